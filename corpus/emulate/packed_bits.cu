// corpus: nvcc
// Codebook indices packed `bits` to an index into 32-bit words, unpacked by a block-stride loop and
// summed per block, in the shape of gptqmodel's VPTQ kernel (vptq_kernel.cu): the index's first bit
// is `k * bits`, its word `bit >> 5` and its place in the word `bit & 31`. Those are a 32-bit word's
// arithmetic, right as written on any wavefront, though the bit's offset starts from a thread's
// position. porter at 804eab7 widened them with the warp (`bit >> 6`, `bit & 63` on wave64), which
// reads the wrong words and shifts (planted/packed_bits_widened.cu). Written for porter.
__global__ void unpack_sums(const unsigned* packed, const float* codebook, float* out, int bits, int n) {
  float sum = 0.0f;
  for (int k = threadIdx.x; k < n; k += blockDim.x) {
    const int bit = k * bits;
    const int word = bit >> 5;
    const int shift = bit & 31;
    const unsigned long long pair = packed[word] | (static_cast<unsigned long long>(packed[word + 1]) << 32);
    const unsigned index = static_cast<unsigned>(pair >> shift) & ((1u << bits) - 1u);
    sum += codebook[index];
  }
  for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);  // expect: MSK001 SYN001
  if (threadIdx.x % warpSize == 0) atomicAdd(out + blockIdx.x, sum);
}
