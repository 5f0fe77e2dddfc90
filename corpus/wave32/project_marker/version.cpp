// corpus: project
// The project's runtime-version helper: its HIP arm is where porter learns that PROJ_WITH_HIP
// means a ROCm build. The CUDA arm stays as it is (no renames). Written for porter.
#ifdef PROJ_WITH_HIP
#include <hip/hip_runtime_api.h>
int runtime_version() {
  int version = 0;
  hipRuntimeGetVersion(&version);
  return version;
}
#else
#include <cuda_runtime_api.h>
int runtime_version() {
  int version = 0;
  cudaRuntimeGetVersion(&version);
  return version;
}
#endif
