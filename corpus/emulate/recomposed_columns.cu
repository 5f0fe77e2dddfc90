// corpus: nvcc
// Column sums added into `out` over 32-column groups, in the shape of exllamav3's MoE epilogue (exl3_gemm_kernel.cuh):
// a grid-stride loop hands each 32-thread group its 32 columns, and the column is rebuilt from the
// group and the lane, `col = group * 32 + lane`. Nothing here depends on the warp: on wave64 the two
// halves of a wavefront take two groups, as two NVIDIA warps do, so the 32s are right as written.
// Widening the lane alone (`% 64`) leaves the product at 32: lanes 32-63 add into the next group's
// columns a second time and the last group's run past the end (planted/recomposed_columns_widened.cu).
// Written for porter.
__global__ void column_sums(float* out, const float* slices, int columns, int slice_count) {
  int total_groups = columns / 32;
  int groups_in_grid = gridDim.x * blockDim.x / 32;
  int group = threadIdx.x / 32 + blockDim.x / 32 * blockIdx.x;
  int lane = threadIdx.x % 32;
  for (; group < total_groups; group += groups_in_grid) {
    int col = group * 32 + lane;
    float sum = 0.0f;
    for (int j = 0; j < slice_count; ++j) sum += slices[j * columns + col];
    out[col] += sum;
  }
}
