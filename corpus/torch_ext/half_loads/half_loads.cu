// corpus: torch
// Read-only loads of at::Half through __ldg: torch declares that overload for NVIDIA compilers only
// (c10/util/Half.h), so a kernel template dispatched with Half has no __ldg under hipcc (nvcc
// takes it: the load depends on scalar_t, and nvcc's device pass sees torch's overload). torch's
// BFloat16 overload and HIP's own (int64_t, float) are declared for HIP.
#include <ATen/Dispatch.h>
#include <c10/core/ScalarType.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

template <typename scalar_t>
__global__ void gather_rows(const scalar_t* __restrict__ src, const int64_t* __restrict__ index,
                            scalar_t* __restrict__ out, int64_t cols, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const int64_t row = __ldg(index + i / cols);
  out[i] = __ldg(src + row * cols + i % cols);  // expect: TRX004
}

__global__ void scale_bf16(const c10::BFloat16* __restrict__ in, float* __restrict__ out, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(__ldg(in + i)) * factor;
}

void gather_rows_launch(c10::ScalarType type, const void* src, const int64_t* index, void* out, int64_t cols,
                        int64_t n) {
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(type, "gather_rows", [&] {
    gather_rows<<<(n + 255) / 256, 256>>>(static_cast<const scalar_t*>(src), index, static_cast<scalar_t*>(out),  // expect: API006
                                         cols, n);
  });
}

void scale_bf16_launch(const c10::BFloat16* in, float* out, float factor, int n) {
  scale_bf16<<<(n + 255) / 256, 256>>>(in, out, factor, n);  // expect: API006
}
