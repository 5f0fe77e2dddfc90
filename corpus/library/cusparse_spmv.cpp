// CSR sparse matrix times a dense vector with cuSPARSE's generic API.
#include <cusparse.h>  // expect: LIB004

void spmv(cusparseHandle_t handle, cusparseSpMatDescr_t A, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y, void* buffer) {  // expect: LIB004 LIB004 LIB004 LIB004
  const float alpha = 1.0f, beta = 0.0f;
  cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, x, &beta, y, CUDA_R_32F,  // expect: LIB004 LIB004 API004
               CUSPARSE_SPMV_ALG_DEFAULT, buffer);  // expect: LIB004
}

cusparseStatus_t make_handle(cusparseHandle_t* handle) { return cusparseCreate(handle); }  // expect: LIB004 LIB004 LIB004
