// corpus: nvcc
// Timing a kernel on its own stream, and reading device properties.
#include <cuda_runtime.h>  // expect: API005
#include <cstdio>

struct Timer {
  cudaEvent_t start, stop;  // expect: API003
  cudaStream_t stream;  // expect: API003
};

__global__ void fill(float* out, float value, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = value;
}

float time_fill(float* out, int n) {
  Timer t;
  cudaStreamCreateWithFlags(&t.stream, cudaStreamNonBlocking);  // expect: API001 API004
  cudaEventCreate(&t.start);  // expect: API001
  cudaEventCreate(&t.stop);  // expect: API001
  cudaEventRecord(t.start, t.stream);  // expect: API001
  fill<<<120, 256, 0, t.stream>>>(out, 1.0f, n);  // expect: API006
  cudaEventRecord(t.stop, t.stream);  // expect: API001
  cudaEventSynchronize(t.stop);  // expect: API001
  float ms = 0.f;
  cudaEventElapsedTime(&ms, t.start, t.stop);  // expect: API001
  cudaEventDestroy(t.start);  // expect: API001
  cudaEventDestroy(t.stop);  // expect: API001
  cudaStreamDestroy(t.stream);  // expect: API001
  return ms;
}

int describe_device() {
  int device = 0;
  cudaGetDevice(&device);  // expect: API001
  cudaDeviceProp prop;  // expect: API003
  cudaGetDeviceProperties(&prop, device);  // expect: API001
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);  // expect: API001 API004
  // cudaMalloc and cudaFree in a comment are not code.
  const char* label = "cudaMemcpyAsync is only text here";
  std::printf("%s: %s, %d SMs, %zu bytes shared per block\n", label, prop.name, sms, prop.sharedMemPerBlock);
  return prop.major * 10 + prop.minor;  // expect: ARC004
}
