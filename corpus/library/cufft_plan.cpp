// A batched 1-D complex FFT with cuFFT.
#include <cufft.h>  // expect: LIB005

cufftResult forward(cufftComplex* data, int n, int batch) {  // expect: LIB005 LIB005
  cufftHandle plan;  // expect: LIB005
  cufftResult rc = cufftPlan1d(&plan, n, CUFFT_C2C, batch);  // expect: LIB005 LIB005 LIB005
  if (rc != CUFFT_SUCCESS) return rc;  // expect: LIB005
  rc = cufftExecC2C(plan, data, data, CUFFT_FORWARD);  // expect: LIB005 LIB005
  cufftDestroy(plan);  // expect: LIB005
  return rc;
}
