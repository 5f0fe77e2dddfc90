// A planted port of ../row_blocks.cu's row_ranks: what porter made of it before it knew blocks 32
// threads wide, the ballot widened to 64 bits and counted with __popcll. Right at 32 lanes; at 64
// the second row of each wavefront counts the first row's votes as its own.
__global__ void row_ranks(const float* in, int* rank, int* count) {
  const int tid = threadIdx.x + threadIdx.y * 32;
  const int at = blockIdx.x * blockDim.y * 32 + tid;
  const float v = in[at];
  unsigned long long hits = __ballot(v > 0.f);  // expect: WRP017
  rank[at] = v > 0.f ? __popcll(hits & ((1ull << threadIdx.x) - 1)) : -1;
  if (threadIdx.x == 0) count[blockIdx.x * blockDim.y + threadIdx.y] = __popcll(hits) * 100 + __ffsll(hits);
}
