// corpus: nvcc, planted
// Per-warp staging sized by the warp: 48 KiB on NVIDIA, twice that once the warp is 64 wide.
#define WARP_SIZE 32  // expect: WRP006
#define STAGE 384

__global__ void __launch_bounds__(256) stage_rows(const float* in, float* out) {
  __shared__ float staging[WARP_SIZE * STAGE];  // expect: LDS001
  for (int i = threadIdx.x; i < WARP_SIZE * STAGE; i += blockDim.x) staging[i] = in[blockIdx.x * WARP_SIZE * STAGE + i];
  __syncthreads();
  const int lane = threadIdx.x % WARP_SIZE;  // the use that makes WARP_SIZE a warp width
  out[blockIdx.x * blockDim.x + threadIdx.x] = staging[(lane * 37) % (WARP_SIZE * STAGE)];
}

__global__ void __launch_bounds__(128) small(const float* in, float* out) {
  __shared__ float tile[128];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[127 - threadIdx.x];
}
