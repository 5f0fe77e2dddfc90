// corpus: nvcc
// Groups inside a warp, as llama.cpp's quantised tiles have them: `threads_per_row` threads load
// one row, `warp_size / threads_per_row` rows per warp. 32 threads per row on NVIDIA and on a
// 64-lane wavefront alike (two rows per wavefront there): not the warp width, whatever its value.
template <int group_size>
__device__ inline float group_max(float v) {
  constexpr int warp_size = 32;
  static_assert(group_size <= warp_size, "a group fits in a warp");
  for (int o = group_size / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o, group_size));  // expect: SYN001 MSK001
  return v;
}

template <int warp_size>
__device__ inline void load_rows(const int* src, int* tile, int stride) {
  constexpr int threads_per_row = 32;
  constexpr int rows = warp_size / threads_per_row;
  const int column = threadIdx.x % threads_per_row;
  const int row = threadIdx.y * rows + threadIdx.x / threads_per_row;
  tile[row * threads_per_row + column] = src[row * stride + column];
}
