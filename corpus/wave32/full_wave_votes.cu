// HIP code written on CDNA that asks whether every lane of a 64-lane wavefront voted yes. On RDNA a
// vote has 32 bits, 32-63 clear: the test is never true there (the class of hipSYCL's
// `__ballot(1) == 0xFFFFFFFFFFFFFFFF` before a wave64 DPP reduction). A 64-bit all-ones value that
// is no vote (a sentinel handle, a word of a bitset) is data. Written for porter.
#include <hip/hip_runtime.h>

__global__ void full_wave(const int* in, int* out, const unsigned long long* handles) {
  const int p = in[threadIdx.x] > 0;
  if (__ballot(1) == 0xFFFFFFFFFFFFFFFF) out[blockIdx.x] = 1;  // expect[gfx1100]: WRP015
  const unsigned long long votes = __ballot(p);
  if (__popcll(votes) == 64) out[blockIdx.x] += 2;  // expect[gfx1100]: WRP015
  if (__all(p)) out[blockIdx.x] += 4;
  const unsigned long long handle = handles[blockIdx.x];
  if (handle == ~0ull) out[blockIdx.x] = -1;
  if (__popcll(handle) == 64) out[blockIdx.x] = -2;
}
