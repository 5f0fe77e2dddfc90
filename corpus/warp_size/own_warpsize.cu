// corpus: nvcc
// A project that names its own constant `warpSize` (as flashinfer's mamba kernels do, in their
// namespace): the name is not HIP's `warpSize`, so ROCm 7's change to it (WRP009) does not
// concern it; it is a constant of 32 used as the warp width. Written for porter.
namespace ssm {
constexpr unsigned warpSize = 32;  // expect: WRP006

template <int Dim>
__global__ void state_sums(const float* x, float* out) {
  constexpr unsigned per_lane = Dim / warpSize;
  float v = 0.0f;
  for (unsigned i = 0; i < per_lane; ++i) v += x[blockIdx.x * Dim + threadIdx.x * per_lane + i];
  for (int s = warpSize / 2; s > 0; s /= 2) v += __shfl_xor_sync(0xffffffffu, v, s);  // expect: SYN001 MSK001
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

inline void launch_state_sums(const float* x, float* out, int rows) {
  static_assert(128 % warpSize == 0, "Dim must be a whole number of warps");
  state_sums<128><<<rows, dim3(warpSize)>>>(x, out);  // expect: API006
}
}  // namespace ssm
