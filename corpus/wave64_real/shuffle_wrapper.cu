// corpus: nvcc
// A project's own shuffle wrapper, and a ladder over it that starts at half of a width held in a
// local constant: the constant is the warp width by that use. The class is flashinfer's norm
// kernels (a local `constexpr uint32_t warp_size = 32` halved into `math::shfl_xor_sync`).
namespace util {
__device__ __forceinline__ float shfl_xor(float v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }  // expect: SYN001 MSK001
}  // namespace util

__global__ void row_norm(const float* in, float* out, int cols) {
  constexpr int kWidth = 32;  // expect: WRP006
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += in[blockIdx.x * cols + c] * in[blockIdx.x * cols + c];
  for (int m = kWidth / 2; m > 0; m /= 2) s += util::shfl_xor(s, m);
  if (threadIdx.x == 0) out[blockIdx.x] = sqrtf(s);
}
