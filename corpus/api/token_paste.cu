// An error-checking wrapper that builds runtime names by token pasting.
#include <cuda_runtime.h>  // expect: API005

#define GPU_CALL(name, ...) cuda##name(__VA_ARGS__)  // expect: API008
#define GPU_TYPE(name) cuda##name##_t  // expect: API008

__global__ void zero(float* p) { p[threadIdx.x] = 0.0f; }

void allocate_and_zero(int n) {
  float* d = nullptr;
  GPU_TYPE(Stream) stream;  // expect: API008
  GPU_CALL(StreamCreate, &stream);  // expect: API008
  GPU_CALL(Malloc, &d, n * sizeof(float));  // expect: API008
  zero<<<1, n, 0, stream>>>(d);  // expect: API006
  GPU_CALL(StreamSynchronize, stream);  // expect: API008
  GPU_CALL(Free, d);  // expect: API008
}
