// A planted port of ../lane_rows.cu's scale_rows as porter made it before it knew the rows' lanes:
// ASM001 turned the header's %laneid into __lane_id() (porter_lane_id() in the compat header),
// which counts a 64-lane wavefront's lanes, and the kernel took it as its row's lane. Right at 32
// lanes; at 64 two rows share each wavefront, the second reads lanes 32-63, writes the next row's
// elements and leaves its own unwritten. Porter's scan of this HIP-style source names the call.
__device__ __forceinline__ int get_lane_id() { return __lane_id(); }

__global__ void __launch_bounds__(128) scale_rows(const float* in, float* out, int rows) {
  const int row = blockIdx.x * 4 + threadIdx.x / 32;
  const int lane = __lane_id();  // expect: WRP018
  if (row >= rows) return;
  out[row * 32 + lane] = in[row * 32 + lane] * (row + 1);
}
