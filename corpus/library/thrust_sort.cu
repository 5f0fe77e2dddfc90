// corpus: nvcc
// Sorting keys on a stream with Thrust's CUDA backend.
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>  // expect: LIB008

void sort_on(cudaStream_t stream, thrust::device_vector<int>& keys) {  // expect: API003
  thrust::sort(thrust::cuda::par.on(stream), keys.begin(), keys.end());  // expect: LIB008
}

int count_positive(const thrust::device_vector<float>& v) {
  return static_cast<int>(v.size());
}
