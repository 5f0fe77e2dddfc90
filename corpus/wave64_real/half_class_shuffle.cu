// corpus: nvcc
// A 16-bit float class that converts both to float and to the platform's half type (as torch's
// at::Half does), shuffled in the project's ROCm branch with HIP's mask-less forms. Once HIP
// declared __half shuffles beside the float ones, that call became ambiguous; the compat header
// shuffles such a class by its bits. Written for porter.
#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#define SHUFFLE_DOWN(mask, value, delta) __shfl_down(value, delta)
#else
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define SHUFFLE_DOWN(mask, value, delta) __shfl_down_sync(mask, value, delta)
#endif

struct Half16 {
  unsigned short bits;
  Half16() = default;
  __host__ __device__ Half16(__half h) : bits(__half_as_ushort(h)) {}
  __host__ __device__ operator __half() const { return __ushort_as_half(bits); }
  __host__ __device__ operator float() const { return __half2float(__ushort_as_half(bits)); }
};

#if !defined(__HIP_PLATFORM_AMD__)
// CUDA's __half and float overloads tie for the class too: the project names the __half one
__device__ inline Half16 __shfl_down_sync(unsigned mask, Half16 value, unsigned delta) {
  return Half16(__shfl_down_sync(mask, static_cast<__half>(value), delta));
}
#endif

// each lane adds its right-hand neighbour's value (the last lane keeps its own)
__global__ void pair_sums(const Half16* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const Half16 mine = i < n ? in[i] : Half16(__float2half(0.0f));
  const Half16 next = SHUFFLE_DOWN(0xffffffffu, mine, 1);
  if (i < n) out[i] = static_cast<float>(mine) + static_cast<float>(next);
}

cudaError_t launch_pair_sums(const Half16* in, float* out, int n, cudaStream_t stream) {  // expect: API003 API003
  pair_sums<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n);  // expect: API006
  return cudaGetLastError();  // expect: API001
}
