// corpus: project
// A third vendor's header (the shape of llama.cpp's vendors/musa.h): gpu_common.cuh includes it
// only for Moore Threads' MUSA, after its ROCm arm, so nothing here is compiled for ROCm. Its first
// include names the MUSA SDK's own musa.h, a header of this file's name: that include is not this
// file including itself, and does not make it a header included everywhere.
#pragma once
#include <musa_runtime.h>
#include <musa.h>
#include <mublas.h>

#define cublasGetStatusString mublasGetStatusString
#define cublasHandle_t mublasHandle_t
#define cudaMalloc musaMalloc
#define cudaStream_t musaStream_t
#define CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED MU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
