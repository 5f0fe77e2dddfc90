// LU factorisation with cuSOLVER's dense API.
#include <cusolverDn.h>  // expect: LIB006

int factor(float* A, int n, int* pivots, int* info, float* work) {
  cusolverDnHandle_t handle;  // expect: LIB006
  cusolverDnCreate(&handle);  // expect: LIB006
  cusolverDnSgetrf(handle, n, n, A, n, work, pivots, info);  // expect: LIB006
  cusolverDnDestroy(handle);  // expect: LIB006
  return 0;
}
