// A hand port of ../warp_ops.cu's compact, right at any warp width: the ballot is kept in 64 bits.
__global__ void compact(const int* in, int* out, int* counts, int n) {
  __shared__ int warp_counts[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  bool keep = i < n && (in[i] % 3 == 0);
  unsigned long long ballot = __ballot(keep);
  int before = __popcll(ballot & ((1ull << lane) - 1));
  if (lane == 0) warp_counts[warp] = __popcll(ballot);
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
