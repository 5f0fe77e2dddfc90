// Library entry points that the ROCm counterparts do not offer.
#include <cublas_v2.h>  // expect: LIB001
#include <cusolverDn.h>  // expect: LIB006

void complex_gemm_3m(cublasHandle_t h, int n, const cuComplex* a, const cuComplex* b, cuComplex* c) {  // expect: LIB001 API003 API003 API003
  const cuComplex one = make_cuComplex(1.0f, 0.0f);  // expect: API003 API001
  cublasCgemm3m(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &one, c, n);  // expect: LIB012 LIB001 LIB001
  cublasDaxpy_v2(h, n, nullptr, nullptr, 1, nullptr, 1);  // expect: LIB001
}

size_t eigen_workspace(cusolverDnHandle_t h, cusolverDnParams_t params, int n, double* a, double* w) {  // expect: LIB006 LIB006
  size_t device_bytes = 0, host_bytes = 0;
  cusolverDnXsyevd_bufferSize(h, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, a, n,  // expect: LIB012 LIB006 LIB001 API004
                              CUDA_R_64F, w, CUDA_R_64F, &device_bytes, &host_bytes);  // expect: API004 API004
  return device_bytes + host_bytes;
}

// Names that only the cuBLAS headers list (torch's table does not): a status hipBLAS lacks, a
// grouped GEMM it has no counterpart for, and an ILP64 entry point it has under its `_v2`-less name.
const char* status_name(cublasStatus_t status) {  // expect: LIB001
  switch (status) {
    case CUBLAS_STATUS_LICENSE_ERROR: return "license";  // expect: LIB012
    default: return "other";
  }
}

void ilp64_gemm(cublasHandle_t h, int64_t n, const float* a, const float* b, float* c, float one) {  // expect: LIB001
  cublasSgemm_v2_64(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &one, c, n);  // expect: LIB001 LIB001 LIB001
}
