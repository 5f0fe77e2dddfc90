// corpus: nvcc
// Every form of architecture guard porter rewrites or reports, as real code writes them. A test
// builds this file and its port with nvcc and for gfx942: no automatic fix may switch on a branch
// that HIP does not need (the atomicAdd fallback below is a redefinition under HIP).

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600  // expect: ARC001
#else
__device__ double atomicAdd(double* address, double value) {
  unsigned long long* cell = (unsigned long long*)address;
  unsigned long long seen = *cell, assumed;
  do {
    assumed = seen;
    seen = atomicCAS(cell, assumed, __double_as_longlong(value + __longlong_as_double(assumed)));
  } while (assumed != seen);
  return __longlong_as_double(seen);
}
#endif

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 700)  // expect: ARC001
__device__ inline float half_way(float a, float b) { return 0.5f * (a + b); }
#else
__device__ inline float half_way(float a, float b) { return fmaf(0.5f, b - a, a); }
#endif

__device__ inline float load(const float* p) {
#ifdef __CUDA_ARCH__  // expect: ARC002
  return __ldg(p);
#else
  return *p;
#endif
}

__host__ __device__ inline int on_device() {
#ifndef __CUDA_ARCH__  // expect: ARC002
  return 0;
#else
  return 1;
#endif
}

__device__ inline float scaled(float x) {
#if defined(__CUDA_ARCH__)  // expect: ARC002
#if __CUDA_ARCH__ >= 800  // expect: ARC001
  return x * 2.0f;
#else
  return x + x;
#endif
#else
  return x * 2.0f;
#endif
}

// PTX for nvcc's device pass, portable C++ elsewhere (the shape of a fast-division helper in
// flashinfer): HIP's device pass takes the C++ arm, which is right; opening the PTX arm to it
// would hand hip-clang an instruction it cannot assemble, so the guard is a person's to change.
__host__ __device__ inline int mul_high(int a, int b) {
  int high;
#ifdef __CUDA_ARCH__  // expect: ARC002
  asm("mul.hi.s32 %0, %1, %2;" : "=r"(high) : "r"(a), "r"(b));  // expect: ASM001
#else
  high = (int)(((long long)a * (long long)b) >> 32);
#endif
  return high;
}

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define DEVICE_PASS 1
#endif

__global__ void guards(double* sum, float* out, const float* in) {
  atomicAdd(sum, 1.0);
  out[threadIdx.x] = half_way(load(in + threadIdx.x), scaled(in[0])) + on_device() + mul_high(threadIdx.x, 3);
}
