// sm_90 three-argument launch bounds: a maximum cluster size.
__global__ void __launch_bounds__(256, 1, 4) clustered(float* x) { x[threadIdx.x] = 0.0f; }  // expect: LBD001 LBD002
__global__ void __maxnreg__(64) capped(float* x) { x[threadIdx.x] = 1.0f; }  // expect: LBD004
