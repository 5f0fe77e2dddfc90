// A HIP port of ../block_votes.cu's block_all_positive written on CDNA, for 64-lane wavefronts: a
// wavefront holds where its ballot has all 64 bits set. Right on gfx9; on RDNA a vote has 32 bits,
// bits 32-63 clear, so no wavefront ever holds and every block reports "not all positive". The
// class of hipSYCL's `__ballot(1) == 0xFFFFFFFFFFFFFFFF` full-wavefront test. Written for porter.
#include <hip/hip_runtime.h>

__global__ void block_all_positive(const float* x, int* all_positive, int n) {
  __shared__ int holds;
  if (threadIdx.x == 0) holds = 1;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool positive = i >= n || x[i] > 0.0f;
  const unsigned long long votes = __ballot(positive);
  if (votes != ~0ull && threadIdx.x % warpSize == 0) holds = 0;  // expect[gfx1100]: WRP015
  __syncthreads();
  if (threadIdx.x == 0) all_positive[blockIdx.x] = holds;
}
