// A UTF-8 byte order mark opens this file.
#include <cuda_runtime.h>  // expect: API005
int count() { int n = 0; cudaGetDeviceCount(&n); return n; }  // expect: API001
