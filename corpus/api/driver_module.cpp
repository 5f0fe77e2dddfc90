// Loading a cubin and launching through the driver API.
#include <cuda.h>  // expect: API005
#include <cstddef>

struct Module {
  CUmodule module;  // expect: API003
  CUfunction kernel;  // expect: API003
};

CUresult load_and_launch(Module& m, const void* image, CUdeviceptr data, int n) {  // expect: API003 API003
  CUresult rc = cuModuleLoadData(&m.module, image);  // expect: API003 API002
  if (rc != CUDA_SUCCESS) return rc;  // expect: API004
  rc = cuModuleGetFunction(&m.kernel, m.module, "scale");  // expect: API002
  if (rc != CUDA_SUCCESS) return rc;  // expect: API004
  void* args[] = {&data, &n};
  rc = cuLaunchKernel(m.kernel, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);  // expect: API002
  cuCtxSynchronize();  // expect: API002
  return cuModuleUnload(m.module);  // expect: API002
}
