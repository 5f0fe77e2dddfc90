// corpus: nvcc
// One constant, two roles: `WORD` is the lanes of a warp and the bits of a 32-bit word (the
// pattern of issue 14). Fixing its definition would change the bitset, so each warp use is fixed.
#define WORD 32

__global__ void mark_and_sum(const float* in, float* out, unsigned* seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicOr(seen + i / WORD, 1u << (i % WORD));
  int lane = threadIdx.x % WORD;  // expect: WRP001
  float v = i < n ? in[i] : 0.f;
  for (int off = 1; off < WORD; off *= 2) v += __shfl_xor_sync(0xffffffffu, v, off);  // expect: WRP002 SYN001 MSK001
  if (lane == 0) atomicAdd(out, v);
}
