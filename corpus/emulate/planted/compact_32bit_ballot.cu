// A planted port of ../warp_ops.cu's compact: full-width votes, but the ballot still lands in a
// 32-bit unsigned. Right at 32 lanes; at 64 the votes of lanes 32-63 are cut off.
__global__ void compact(const int* in, int* out, int* counts, int n) {
  __shared__ int warp_counts[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  bool keep = i < n && (in[i] % 3 == 0);
  unsigned ballot = __ballot(keep);  // expect: MSK002
  int before = __popc(ballot & ((1u << lane) - 1));  // expect: MSK003 MSK004
  if (lane == 0) warp_counts[warp] = __popc(ballot);  // expect: MSK003
  __syncthreads();
  int offset = 0;
  for (int w = 0; w < warp; ++w) offset += warp_counts[w];
  if (keep) out[blockIdx.x * blockDim.x + offset + before] = in[i];
  if (threadIdx.x == 0) {
    int total = 0;
    for (int w = 0; w < blockDim.x / warpSize; ++w) total += warp_counts[w];
    counts[blockIdx.x] = total;
  }
}
