// Verify case for porter's CPU device: a `>> 5` that picks a bit of data, not a warp. Each thread
// dequantises one 32-bit word of 4-bit values with a fifth bit taken from a word of high bits that it
// reads at an index and shift of its own (`qh = high[word] >> (4 * (t % 8))`: data at a thread's
// address); `(qh >> 5) & 0x1000` moves bit 17 to bit 12, as llama.cpp's q5_0 tile loads do. The
// sums are reduced per warp and added per block, so the result does not depend on the wavefront
// width; a port that reads the `>> 5` as a warp's log2 (planted/dequant_bits_widened.cu) shifts by 6.
__global__ void dequant_sums(const unsigned* quants, const unsigned* high, float* out) {
  const unsigned t = threadIdx.x;
  const unsigned qh = high[blockIdx.x * (blockDim.x / 8) + t / 8] >> (4 * (t % 8));
  const unsigned q = quants[blockIdx.x * blockDim.x + t];
  unsigned low = (q & 0x0F0F0F0F) | ((qh << 4) & 0x00000010);
  unsigned upper = ((q >> 4) & 0x0F0F0F0F) | ((qh >> 5) & 0x00001000);
  float v = (float)(low & 0xFF) + (float)((upper >> 8) & 0xFF) * 0.5f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001
  if (t % 32 == 0) atomicAdd(&out[blockIdx.x], v);
}
