// porter_emu_runtime.h: the CUDA runtime calls a verify harness and simple host code make, on the CPU.
// Device memory is host memory; a launch runs the grid through porter_emu::launch_grid.
#ifndef PORTER_EMU_RUNTIME_H
#define PORTER_EMU_RUNTIME_H

#include "porter_emu_std.h"

enum cudaError_t { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorInvalidValue = 1 };
using cudaError = cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize, cudaFuncAttributePreferredSharedMemoryCarveout };
using cudaStream_t = void*;
struct porter_emu_event { std::chrono::steady_clock::time_point at; };
using cudaEvent_t = porter_emu_event*;

struct cudaDeviceProp {
  char name[256];
  int warpSize;
  int l2CacheSize;
  int multiProcessorCount;
  size_t sharedMemPerBlock;
  int maxThreadsPerBlock;
  int major, minor;
};

inline const char* cudaGetErrorString(cudaError_t error) { return error == cudaSuccess ? "no error" : "porter-emu error"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaPeekAtLastError() { return cudaSuccess; }
inline cudaError_t cudaMalloc(void** pointer, size_t bytes) {
  *pointer = std::calloc(bytes ? bytes : 1, 1);
  return *pointer ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <typename T> inline cudaError_t cudaMalloc(T** pointer, size_t bytes) { return cudaMalloc(reinterpret_cast<void**>(pointer), bytes); }
inline cudaError_t cudaFree(void* pointer) { std::free(pointer); return cudaSuccess; }
inline cudaError_t cudaMemcpy(void* to, const void* from, size_t bytes, cudaMemcpyKind) { std::memmove(to, from, bytes); return cudaSuccess; }
inline cudaError_t cudaMemcpyAsync(void* to, const void* from, size_t bytes, cudaMemcpyKind kind, cudaStream_t = nullptr) { return cudaMemcpy(to, from, bytes, kind); }
inline cudaError_t cudaMemset(void* to, int value, size_t bytes) { std::memset(to, value, bytes); return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaEventCreate(cudaEvent_t* event) { *event = new porter_emu_event(); return cudaSuccess; }
inline cudaError_t cudaEventDestroy(cudaEvent_t event) { delete event; return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t = nullptr) { event->at = std::chrono::steady_clock::now(); return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop) {
  *ms = std::chrono::duration<float, std::milli>(stop->at - start->at).count();
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties, int) {
  std::memset(properties, 0, sizeof *properties);
  std::snprintf(properties->name, sizeof properties->name, "porter CPU emulator (warp width %d)", PORTER_EMULATOR);
  properties->warpSize = PORTER_EMULATOR;
  properties->l2CacheSize = 1 << 20;
  properties->multiProcessorCount = 1;
  properties->sharedMemPerBlock = 65536;
  properties->maxThreadsPerBlock = 1024;
  return cudaSuccess;
}
template <typename F> inline cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int) { return cudaSuccess; }

namespace porter_emu {
inline const char* kernel_name = "kernel";

template <typename... A, size_t... I>
inline void launch_with(void (*kernel)(A...), dim3 grid, dim3 block, void** args, size_t shared, std::index_sequence<I...>) {
  std::tuple<std::decay_t<A>...> values{*static_cast<std::decay_t<A>*>(args[I])...};
  launch_grid(kernel_name, grid, block, shared, [kernel, values] { std::apply(kernel, values); });
}
}  // namespace porter_emu

template <typename... A>
inline cudaError_t cudaLaunchKernel(void (*kernel)(A...), dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t) {
  porter_emu::launch_with(kernel, grid, block, args, shared, std::index_sequence_for<A...>{});
  return cudaSuccess;
}

#endif  // PORTER_EMU_RUNTIME_H
