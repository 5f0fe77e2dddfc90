// corpus: nvcc
// A block's inclusive scan: each warp scans its values with `__shfl_up_sync` at offsets `1 << step`
// for steps 0-4, its last lane stores the warp's total, and each thread adds the totals of the warps
// before its own. The shape of flashinfer's generated MoE bucket scans (cake_bgmv_moe). As written it
// is right on a 64-lane wavefront too (each half scans its own 32 lanes, as two warps do). porter
// widens its lane, its warp and its last lane, and at 804eab7 it left the exponent's `5`: the port's
// lanes 32-63 then summed lanes 0-31 in part (planted/power_ladder_scan_widened.cu); now the ladder
// widens with them. Written for porter.
__global__ void block_scan(const int* in, int* out) {
  __shared__ int warp_sum[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;  // expect: WRP001 WRP001
  int incl = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int step = 0; step < 5; step++) {  // expect: WRP002
    const int up = __shfl_up_sync(0xffffffff, incl, 1 << step);  // expect: MSK001 SYN001
    if (lane >= 1 << step) incl += up;
  }
  if (lane == 31) warp_sum[warp] = incl;  // expect: WRP001
  __syncthreads();
  int base = 0;
  for (int w = 0; w < warp; w++) base += warp_sum[w];
  out[blockIdx.x * blockDim.x + threadIdx.x] = base + incl;
}
