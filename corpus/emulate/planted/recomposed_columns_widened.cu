// A planted port of ../recomposed_columns.cu as porter made it before it saw the product that
// rebuilds the column (porter at 22d2a42): the lane widened to the wavefront, the group and the
// product left at 32. Right at 32 lanes; at 64, lanes 32-63 add into the next group's columns a
// second time and the last group's run past the end of `out` (the case pads it).
__global__ void column_sums(float* out, const float* slices, int columns, int slice_count) {
  int total_groups = columns / 32;
  int groups_in_grid = gridDim.x * blockDim.x / 32;
  int group = threadIdx.x / 32 + blockDim.x / 32 * blockIdx.x;
  int lane = threadIdx.x % warpSize;
  for (; group < total_groups; group += groups_in_grid) {
    int col = group * 32 + lane;
    float sum = 0.0f;
    for (int j = 0; j < slice_count; ++j) sum += slices[j * columns + col];
    out[col] += sum;
  }
}
