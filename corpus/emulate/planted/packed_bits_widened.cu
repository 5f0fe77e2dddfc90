// A planted port of ../packed_bits.cu as porter made it before it told a bit's offset from a lane
// (porter at 804eab7): the word and the bit in it split at the wavefront. Right at 32 lanes; at 64,
// `bit / 64` and `bit % 64` read other words and shift past the pair, and the sums differ.
__global__ void unpack_sums(const unsigned* packed, const float* codebook, float* out, int bits, int n) {
  float sum = 0.0f;
  for (int k = threadIdx.x; k < n; k += blockDim.x) {
    const int bit = k * bits;
    const int word = bit / warpSize;
    const int shift = bit % warpSize;
    const unsigned long long pair = packed[word] | (static_cast<unsigned long long>(packed[word + 1]) << 32);
    const unsigned index = static_cast<unsigned>(pair >> shift) & ((1u << bits) - 1u);
    sum += codebook[index];
  }
  for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_xor(sum, offset);
  if (threadIdx.x % warpSize == 0) atomicAdd(out + blockIdx.x, sum);
}
