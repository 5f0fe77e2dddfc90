// A HIP port's block reductions whose per-warp partials are read back by loops counted in 32-lane
// warps: the shape of the cross-entropy kernels in RWKV-Vibe/RWKV-LM-V7 pull request 20, where a
// review found that on a 64-lane wavefront `lane = tid & 31`, `warp = tid >> 5` and a ladder from 16
// leave half of each wavefront's sum out, and that a block of 256 threads fills only 4 of the 8
// slots `for (w = 0; w < 8; ++w)` adds up. A prefix over the warps before one's own (flashinfer's
// expert-count compaction) reads only slots that exist, and 8 slots are the right count for a block
// of 512 threads in wavefronts of 64. Written for porter.
#include <hip/hip_runtime.h>
#include <cfloat>

template <int kBlock>
__global__ void row_logsumexp(const float* logits, float* lse, int vocab) {
  const int tid = threadIdx.x;
  const int lane = tid & 31;  // expect: WRP001
  const int warp = tid >> 5;  // expect: WRP001
  __shared__ float warp_max[8];
  __shared__ float warp_sum[8];
  const float* row = logits + static_cast<size_t>(blockIdx.x) * vocab;
  float m = -FLT_MAX;
  for (int i = tid; i < vocab; i += kBlock) m = fmaxf(m, row[i]);
  for (int offset = 16; offset > 0; offset >>= 1) m = fmaxf(m, __shfl_xor(m, offset));  // expect: WRP002
  if (lane == 0) warp_max[warp] = m;
  __syncthreads();
  m = -FLT_MAX;
  for (int w = 0; w < 8; ++w) m = fmaxf(m, warp_max[w]);  // expect: WRP012
  float s = 0.0f;
  for (int i = tid; i < vocab; i += kBlock) s += __expf(row[i] - m);
  for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down(s, offset);  // expect: WRP002
  if (lane == 0) warp_sum[warp] = s;
  __syncthreads();
  if (tid == 0) {
    float total = 0.0f;
    for (int w = 0; w < 8; ++w) total += warp_sum[w];  // expect: WRP012
    lse[blockIdx.x] = m + __logf(total);
  }
}

// Each thread's offset is the count of the warps before its own: slot `w < warp` exists on wave64.
__global__ void compact_offsets(const int* flags, int* offsets) {
  __shared__ int warp_count[8];
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  const int count = __popcll(__ballot(flags[threadIdx.x] != 0));
  if (lane == 0) warp_count[warp] = count;
  __syncthreads();
  int before = 0;
  for (int w = 0; w < 8; ++w) {
    if (w < warp) before += warp_count[w];
  }
  offsets[blockIdx.x * 256 + threadIdx.x] = before;
}

// 512 threads are 8 wavefronts of 64: the 8 slots are the block's count on CDNA. On RDNA the block
// has 16 wavefronts of 32, and wavefronts 8-15 write past the array (a wave32 scan says so).
__global__ void wide_block_sum(const float* x, float* y) {
  __shared__ float partial[8];  // expect[gfx1100]: WRP015
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < 8; ++w) total += partial[w];
    y[blockIdx.x] = total;
  }
}

void launch_all(const float* logits, float* lse, int rows, int vocab, const int* flags, int* offsets, hipStream_t stream) {
  hipLaunchKernelGGL(row_logsumexp<256>, dim3(rows), dim3(256), 0, stream, logits, lse, vocab);
  hipLaunchKernelGGL(compact_offsets, dim3(rows), dim3(256), 0, stream, flags, offsets);
  hipLaunchKernelGGL(wide_block_sum, dim3(rows), dim3(512), 0, stream, logits, lse);
}
