// corpus: nvcc
// A tensor-core kernel whose lane math is an mma.sync fragment's layout: lane `l` of the warp holds
// rows `l / 4` and `l / 4 + 8` and columns `2 * (l % 4)` of the accumulator (m16n8k16), in the shape
// of gptqmodel's Swordfish decode GEMM and flashinfer's generated MoE kernels. Widening `% 32` and
// `/ 32` leaves a 32-lane layout that no AMD instruction computes: MFMA spreads its operands over 64
// lanes differently, so the kernel's lane math is the MFMA rewrite's to decide (WRP001 suggested,
// never automatic). A reduction in the same file that reaches no fragment keeps its automatic fix.
// Written for porter.
#include <cstdint>

__device__ void load_fragment(uint32_t (&frag)[4], const void* smem) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"  // expect: MMA002
               : "=r"(frag[0]), "=r"(frag[1]), "=r"(frag[2]), "=r"(frag[3]) : "r"(addr));
}

__device__ void mma_f16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"  // expect: MMA002
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__global__ void fragment_gemm(const uint32_t* b, float* c, int ldc) {
  __shared__ uint32_t tile[4][32 * 4];
  const int lane = threadIdx.x % 32;  // expect: WRP001
  const int warp = threadIdx.x / 32;  // expect: WRP001
  const int group = lane / 4, pair = lane % 4;
  for (int i = 0; i < 4; ++i) tile[warp][lane * 4 + i] = b[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i];
  __syncwarp();  // expect: SYN002
  uint32_t a_frag[4], b_frag[2] = {b[lane], b[lane + 32]};
  load_fragment(a_frag, &tile[warp][(lane % 16) * 8]);
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  mma_f16(acc, a_frag, b_frag);
  const float scale = __shfl_sync(0xffffffff, acc[0], 0);  // expect: MSK001 SYN001
  float* out = c + (blockIdx.x * 16) * ldc + warp * 8;
  out[group * ldc + 2 * pair] = acc[0] / scale;
  out[group * ldc + 2 * pair + 1] = acc[1] / scale;
  out[(group + 8) * ldc + 2 * pair] = acc[2] / scale;
  out[(group + 8) * ldc + 2 * pair + 1] = acc[3] / scale;
}

__global__ void column_sums(const float* c, float* sums, int ldc) {
  const int lane = threadIdx.x % 32;  // expect: WRP001
  float v = c[blockIdx.x * ldc + threadIdx.x];
  for (int offset = 1; offset < 32; offset *= 2) {  // expect: WRP002
    const float up = __shfl_up_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001
    if (lane >= offset) v += up;
  }
  sums[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
