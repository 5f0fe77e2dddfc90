// corpus: nvcc
// A block-wide sum with CUB, then a device-wide one.
#include <cub/cub.cuh>  // expect: LIB007
#include <cub/block/block_reduce.cuh>  // expect: LIB007
#include <cub/warp/warp_reduce.cuh>  // expect: LIB007

template <int BLOCK>
__global__ void block_sum(const float* in, float* out, int n) {
  using BlockReduce = cub::BlockReduce<float, BLOCK>;  // expect: LIB007
  __shared__ typename BlockReduce::TempStorage storage;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  float total = BlockReduce(storage).Sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

size_t device_sum_bytes(const float* in, float* out, int n) {
  size_t bytes = 0;
  cub::DeviceReduce::Sum(nullptr, bytes, in, out, n);  // expect: LIB007
  return bytes;
}

template __global__ void block_sum<256>(const float*, float*, int);
