// corpus: nohipify
// A project's own compatibility header (the shape of llama.cpp's vendors/hip.h and cupy's ROCm
// backend headers): on HIP it maps the CUDA names it uses onto HIP's, by macro, alias and
// forwarding function, and a warp vote onto HIP's maskless one. Those names need no rename; the
// ones it forgot do. Written for porter.
#pragma once
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#define cudaMalloc hipMalloc
#define cudaStream_t hipStream_t
typedef __hip_bfloat162 __nv_bfloat162;
using __nv_bfloat16 = __hip_bfloat16;
static inline hipError_t cudaStreamSynchronize(hipStream_t stream) {
  return hipStreamSynchronize(stream);
}
// HIP's maskless vote under CUDA's name: the mask is dropped, and no ROCm version gates the _sync form
#define __ballot_sync(mask, predicate) \
  (static_cast<unsigned long long>(__ballot(predicate)))
#else
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#endif
