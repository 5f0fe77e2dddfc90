// corpus: nvcc
// A header function's own `warp_size` (a constant of that function alone) used as its warp width:
// the definition carries the fix. Another header declares a constant of the same name in its own
// function for a static_assert only (scoped/group_tiles.cuh): that one is not a warp width.
__device__ inline float row_sum(float v) {
  constexpr int warp_size = 32;  // expect: WRP006
  for (int o = warp_size / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);  // expect: SYN001 MSK001
  return v;
}
