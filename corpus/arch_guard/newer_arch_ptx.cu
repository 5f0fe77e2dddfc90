// corpus: nvcc
// `__CUDA_ARCH__` lower bounds around PTX for a newer NVIDIA GPU. With a fallback arm, hip-clang
// (which defines no `__CUDA_ARCH__`) compiles the fallback, the only arm that can compile there:
// nothing to decide, and the PTX arm is NVIDIA's alone, so nothing in it is reported either
// (flashinfer's generated MoE kernels guard their Blackwell
// `fma.rn.f32x2` blocks so). Without one, around code HIP could compile, or where the fallback is
// PTX too (gptqmodel's AWQ semaphore: a `.release` store, else a `.cg` one, whose older semantics
// HIP would inherit), or a stub, the test still needs a person. Written for porter.
__device__ float fused(float a, float b, float c) {
  float r;
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 1000)
  asm volatile("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));  // NVIDIA's alone: no ASM001
#else
  r = a * b + c;
#endif
  return r;
}

__device__ float touched(float a) {
#if __CUDA_ARCH__ >= 800  // expect: ARC001
  asm volatile("mov.b32 %0, %0;" : "+f"(a));  // expect: ASM001
#endif
  return a;
}

__device__ float root(float a) {
#if __CUDA_ARCH__ >= 800  // expect: ARC001
  a = __fsqrt_rn(a);
#else
  a = sqrtf(a);
#endif
  return a;
}

__device__ void release(int* lock, int status) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700  // expect: ARC001
  asm volatile("st.global.release.gpu.b32 [%0], %1;" : : "l"(lock), "r"(status));  // expect: ASM001
#else
  asm volatile("st.global.cg.b32 [%0], %1;" : : "l"(lock), "r"(status));  // expect: ASM001
#endif
}

// a stub for older GPUs (flashinfer's SM120 NVFP4 MMA: `(void)a0; …`): HIP would take a result never computed
__device__ float stubbed(float a) {
  float r = 0.0f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200  // expect: ARC001
  asm volatile("mov.b32 %0, %1;" : "=f"(r) : "f"(a));  // expect: ASM001
#else
  (void)a;
#endif
  return r;
}

__global__ void apply(float* x) { x[threadIdx.x] = root(touched(fused(x[threadIdx.x], 2.0f, 1.0f))); }
