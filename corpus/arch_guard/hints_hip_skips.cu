// corpus: nvcc
// `__CUDA_ARCH__` lower bounds around PTX that a HIP program loses nothing without, with no
// fallback: hip-clang reads the test false, skips the arm, and is right to. flashinfer waits on
// Hopper's programmatic dependent launch before each kernel's first load and releases the next
// kernel after its last store (`griddepcontrol`); a kernel launched in a HIP stream starts after
// the one before it has finished, which is what the wait gives. A cache hint changes no value.
// Nothing here is reported, the version test beside the arch test included (false on HIP
// whatever the version). Around PTX that computes a value, the test still needs a person.
// Written for porter.
__global__ void scale(float* out, const float* in, int n) {
#if (__CUDACC_VER_MAJOR__ >= 12 && defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("prefetch.global.L2 [%0];" : : "l"(in + i));
#endif
  if (i < n) out[i] = in[i] * 2.0f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

__global__ void first_lane(int* out) {
  unsigned lane = threadIdx.x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // expect: ARC001
  asm volatile("griddepcontrol.wait;" ::: "memory");  // expect: ASY005
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));  // expect: ASM001
#endif
  out[threadIdx.x] = lane;
}
