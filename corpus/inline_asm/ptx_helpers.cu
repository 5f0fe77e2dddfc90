// corpus: nvcc
// The inline PTX that real kernels carry: lane ids, cache-bypassing loads, byte permutes, packing.
#include <cstdint>
#include <cuda_fp16.h>  // expect: API005

__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));  // expect: ASM001
  return lane;
}

__device__ __forceinline__ float load_streaming(const float* p) {
  float v;
  asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));  // expect: ASM001
  return v;
}

__device__ __forceinline__ uint32_t swap_halves(uint32_t x) {
  uint32_t r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(0u), "r"(0x1032u));  // expect: ASM001
  return r;
}

__device__ __forceinline__ uint32_t extract_bits(uint32_t x, uint32_t pos, uint32_t len) {
  uint32_t r;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len));  // expect: ASM001
  return r;
}

__device__ __forceinline__ uint32_t majority(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm("lop3.b32 %0, %1, %2, %3, 0xE8;" : "=r"(r) : "r"(a), "r"(b), "r"(c));  // expect: ASM001
  return r;
}

__device__ __forceinline__ uint32_t pack_half2(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));  // expect: ASM001
  return r;
}

__device__ __forceinline__ uint32_t pack_u16(uint16_t lo, uint16_t hi) {
  uint32_t r;
  asm("mov.b32 %0, {%1, %2};" : "=r"(r) : "h"(lo), "h"(hi));  // expect: ASM001
  return r;
}

__device__ __forceinline__ float fused(float a, float b, float c) {
  float d;
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));  // expect: ASM001
  return d;
}

__device__ __forceinline__ void add_to(float* p, float v) {
  asm volatile("red.global.add.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");  // expect: ASM001
}

__device__ __forceinline__ void publish() {
  asm volatile("membar.gl;" ::: "memory");  // expect: ASM001
}

__device__ __forceinline__ int is_nonzero(int x) {
  int r;
  asm("{\n\t.reg .pred p;\n\tsetp.ne.s32 p, %1, 0;\n\tselp.s32 %0, 1, 0, p;\n}" : "=r"(r) : "r"(x));  // expect: ASM001
  return r;
}

__device__ __forceinline__ uint32_t sad4(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));  // expect: ASM002
  return d;
}

#define LDG_V4(dst, ptr) asm volatile("ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(dst.x), "=f"(dst.y), "=f"(dst.z), "=f"(dst.w) : "l"(ptr))  // expect: ASM001

__global__ void uses(const float4* in, float4* out) {
  float4 v;
  LDG_V4(v, in + threadIdx.x);
  out[threadIdx.x] = v;
}

void host_side_pause() {
  asm volatile("pause");
}
