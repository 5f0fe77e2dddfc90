// sm_90 three-argument launch bounds: a maximum cluster size.
__global__ void __launch_bounds__(256, 1, 4) clustered(float* x) { x[threadIdx.x] = 0.0f; }  // expect: LBD001 LBD002
__global__ void __maxnreg__(64) capped(float* x) { x[threadIdx.x] = 1.0f; }  // expect: LBD004
// CUDA 12.9's launch shape, and a cluster's beside it (cf. CCCL's _CCCL_BLOCK_SIZE)
__global__ void __block_size__((256, 1, 1)) shaped(float* x) { x[threadIdx.x] = 2.0f; }  // expect: LBD005
__global__ void __block_size__((128, 1, 1), (2, 1, 1)) cluster_shaped(float* x) { x[threadIdx.x] = 3.0f; }  // expect: LBD005
