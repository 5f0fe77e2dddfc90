// corpus: nvcc
// Does every element of a block's chunk hold (here: is positive)? Each warp votes; a warp whose
// lanes do not all hold clears the block's flag. The answer is the block's, whatever the warp width:
// a right port gives the same flags at 64 lanes and at 32. Written for porter.
__global__ void block_all_positive(const float* x, int* all_positive, int n) {
  __shared__ int holds;
  if (threadIdx.x == 0) holds = 1;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool positive = i >= n || x[i] > 0.0f;
  if (!__all_sync(0xffffffffu, positive) && threadIdx.x % warpSize == 0) holds = 0;  // expect: MSK001 SYN001
  __syncthreads();
  if (threadIdx.x == 0) all_positive[blockIdx.x] = holds;
}
