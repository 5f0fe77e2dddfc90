// Single-precision GEMM through cuBLAS on a caller's stream.
#include <cublas_v2.h>  // expect: LIB001
#include <cuda_runtime.h>  // expect: API005

cublasStatus_t gemm(cudaStream_t stream, int m, int n, int k, const float* A, const float* B, float* C) {  // expect: LIB001 API003
  cublasHandle_t handle;  // expect: LIB001
  cublasStatus_t status = cublasCreate(&handle);  // expect: LIB001 LIB001
  if (status != CUBLAS_STATUS_SUCCESS) return status;  // expect: LIB001
  cublasSetStream(handle, stream);  // expect: LIB001
  const float alpha = 1.0f, beta = 0.0f;
  status = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, A, m, B, n, &beta, C, m);  // expect: LIB001 LIB001 LIB001
  cublasDestroy(handle);  // expect: LIB001
  return status;
}
