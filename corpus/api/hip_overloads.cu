// corpus: nvcc
// A project's own float atomicMax: CUDA lacks it, HIP declares it (issue 14: a redefinition under hipcc).
__device__ float atomicMax(float* address, float value) {  // expect: API010
  int* cell = (int*)address;
  int old = *cell, assumed;
  do {
    assumed = old;
    old = atomicCAS(cell, assumed, __float_as_int(fmaxf(value, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}
__global__ void peak(const float* x, float* out) { atomicMax(out, x[threadIdx.x]); }
