// A cuBLASLt matmul descriptor: hipBLASLt has these names only in recent ROCm.
#include <cublasLt.h>  // expect: LIB002

void describe(cublasLtHandle_t lt) {  // expect: LIB002
  cublasLtMatmulDesc_t desc;  // expect: LIB002
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);  // expect: LIB002 LIB001 API004
  cublasLtMatmulDescDestroy(desc);  // expect: LIB002
}
