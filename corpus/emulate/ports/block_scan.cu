// A hand port of ../warp_ops.cu's block_scan, right at any warp width: the ladder climbs to warpSize.
__global__ void block_scan(const int* in, int* out, int n) {
  __shared__ int totals[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  int v = i < n ? in[i] : 0;
  for (int d = 1; d < warpSize; d *= 2) {
    int t = __shfl_up(v, d);
    if (lane >= d) v += t;
  }
  if (lane == warpSize - 1) totals[warp] = v;
  __syncthreads();
  int offset = 0;
  for (int w = 0; w < warp; ++w) offset += totals[w];
  if (i < n) out[i] = v + offset;
}
