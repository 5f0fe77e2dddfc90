// corpus: nvcc
// Each lane takes a chunk of consecutive elements and the warp steps by 32 chunks, as bitsandbytes'
// 4-bit GEMV walks a row (`inner_idx = warp_lane * num_values_4bit`, `inner_idx += 32 *
// num_values_4bit`): ROCm's fork widened its lane id and kept the step, so on MI300X lanes 32-63
// started on the chunks lanes 0-31 take a step later, and those were summed twice. Here the
// warps stride the grid's rows (`gridDim.x * blockDim.x / 32`), so widening is the port: the step's
// 32 follows the lanes. A step whose chunk differs from the start's is no lane's. The ladder shuffles
// down, and lanes near the top of a 32-lane half read the other half's lanes: porter does not follow
// which lanes' sums are used, so it does not keep this kernel's warps at 32 (porter.rules.within_rows).
// Written for porter.
#define CHUNK 4

__global__ void row_dots(const float* m, const float* x, float* out, int rows, int cols) {
  const int lane = threadIdx.x % 32;  // expect: WRP001
  for (int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32; row < rows; row += gridDim.x * blockDim.x / 32) {  // expect: WRP001 WRP001
    float sum = 0.0f;
    for (int k = lane * CHUNK; k < cols; k += 32 * CHUNK) {  // expect: WRP005
      for (int v = 0; v < CHUNK; ++v) {
        if (k + v < cols) sum += m[row * cols + k + v] * x[k + v];
      }
    }
    for (int k = lane * CHUNK; k < 2 * CHUNK; k += 32 * 2) out[k] = 0.0f;
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffff, sum, o);  // expect: MSK001 SYN001 WRP002
    if (lane == 0) out[row] = sum;
  }
}
