// corpus: project
// The project's common header: its vendor header by platform (what gpu_vendor_cuda.h and
// vendors/musa.h hold is never compiled for ROCm: not to be ported), then guards on `__CUDA_ARCH__`, which
// gpu_vendor_hip.h defines for ROCm (1300: every feature test passes there).
#pragma once
#if defined(MYPROJ_USE_HIP)
#include "gpu_vendor_hip.h"
#elif defined(MYPROJ_USE_MUSA)
#include "vendors/musa.h"
#else
#include "gpu_vendor_cuda.h"
#endif

#ifdef __CUDA_ARCH__
#define DEVICE_ONLY_TRAP() __trap()
#else
#define DEVICE_ONLY_TRAP() abort()
#endif

#if __CUDA_ARCH__ >= 530
#define HALF_MATH_AVAILABLE
#endif
