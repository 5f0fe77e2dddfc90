// CRLF line endings, as written on Windows.
#include <cuda_runtime.h>  // expect: API005

void release(void* p) {
  cudaFree(p);  // expect: API001
}
