// A project's own platform layer (the shape of bitsandbytes' common.cuh, written anew): a platform
// macro, condition macros over the AMD target macros, and a warp width chosen by them. The target
// macros exist only in hip-clang's device passes, so the host pass, compiled once for every
// target, takes the `#else`: 64 in the kernels for gfx942, 32 in the host code that launches them.
#pragma once
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#define HPW_ROCM 1
#else
#define HPW_ROCM 0
#endif

#define HPW_CDNA2 (defined(__gfx90a__))
#define HPW_CDNA3 (defined(__gfx942__) || \
                   defined(__gfx950__))
#define HPW_WAVE64 (HPW_CDNA2 || HPW_CDNA3)

#if HPW_ROCM
#if HPW_WAVE64
#define HPW_WARP 64
#else
#define HPW_WARP 32
#endif
#else
#define HPW_WARP 32
#endif

// the same width chosen by the platform alone: host and device passes agree, nothing to report
#if HPW_ROCM
#define HPW_LANES_BOTH_PASSES 64
#else
#define HPW_LANES_BOTH_PASSES 32
#endif
