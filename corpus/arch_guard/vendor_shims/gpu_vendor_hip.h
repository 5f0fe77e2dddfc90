// corpus: project
// A project's own HIP vendor header (the shape of llama.cpp's vendors/hip.h): it maps CUDA's names
// onto HIP's and gives hip-clang the `__CUDA_ARCH__` that nvcc predefines, so the project's guards
// on it mean on ROCm what the project chose. Included only by the ROCm build (gpu_common.cuh).
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_fp8.h>

#define __CUDA_ARCH__ 1300
#define cudaStream_t hipStream_t
#define cudaGetLastError hipGetLastError
typedef __hip_fp8_e4m3 __nv_fp8_e4m3;
