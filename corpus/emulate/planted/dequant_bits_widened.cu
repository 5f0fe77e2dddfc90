// A planted port of ../dequant_bits.cu as porter made it before it told data from positions (porter
// at b2e7ffd): the `>> 5` that moves bit 17 to bit 12 became the wavefront's log2. Right at 32
// lanes; at 64 it moves bit 18 instead, so every block's sum of the upper values changes.
__global__ void dequant_sums(const unsigned* quants, const unsigned* high, float* out) {
  const unsigned t = threadIdx.x;
  const unsigned qh = high[blockIdx.x * (blockDim.x / 8) + t / 8] >> (4 * (t % 8));
  const unsigned q = quants[blockIdx.x * blockDim.x + t];
  unsigned low = (q & 0x0F0F0F0F) | ((qh << 4) & 0x00000010);
  const int log2_wave = warpSize == 64 ? 6 : 5;
  unsigned upper = ((q >> 4) & 0x0F0F0F0F) | ((qh >> log2_wave) & 0x00001000);
  float v = (float)(low & 0xFF) + (float)((upper >> 8) & 0xFF) * 0.5f;
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
  if (t % warpSize == 0) atomicAdd(&out[blockIdx.x], v);
}
