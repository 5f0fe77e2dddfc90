// corpus: project
// The project's CUDA vendor header (the shape of llama.cpp's vendors/cuda.h): gpu_common.cuh
// includes it only where its ROCm marker is undefined, so nothing here is compiled for ROCm and
// nothing here is to be ported, not even the CUDA headers and the toolkit-version test.
#pragma once
#include <cuda_runtime.h>
#include <cuda.h>
#include <cuda_fp8.h>

#if CUDART_VERSION >= 12000
#define HAS_GRAPH_CONDITIONALS 1
#endif
