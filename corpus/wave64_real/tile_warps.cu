// corpus: nvcc
// A quotient by the columns of one warp's tile: AWQ's GEMM launcher (optimum-quanto 0.2.7) works out
// NUM_WARPS = (CTA_M / WARP_M) * (CTA_N / WARP_N) with WARP_N = 32 and hands WARP_N to its kernel as a
// template argument the kernel takes for shapes alone, so the quotient counts tiles, whatever a warp
// is. Where the kernel takes the parameter as its lanes' width (a shuffle's width, `threadIdx.x %
// WIDTH`), the same quotient counts warps. Written for porter.
template <int CTA_N, int WARP_N>
__global__ void tile_copy(const float* a, float* c) {
  const int tile = threadIdx.y;
  const int col0 = (tile % (CTA_N / WARP_N)) * WARP_N;
  for (int j = threadIdx.x; j < WARP_N; j += blockDim.x) c[blockIdx.x * CTA_N + col0 + j] = a[col0 + j];
}

void launch_tile_copy(const float* a, float* c, int n) {
  constexpr int CTA_N = 128;
  constexpr int WARP_N = 32;
  constexpr int NUM_WARPS = CTA_N / WARP_N;
  dim3 threads(64, NUM_WARPS);
  tile_copy<CTA_N, WARP_N><<<n, threads>>>(a, c);  // expect: API006
}

template <int THREADS, int WIDTH>
__global__ void width_sums(const float* x, float* out) {
  const int lane = threadIdx.x % WIDTH;  // expect: WRP001
  float v = x[blockIdx.x * THREADS + threadIdx.x];
  for (int o = WIDTH / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o, WIDTH);  // expect: WRP002 SYN001 MSK001 WRP004
  if (lane == 0) out[(blockIdx.x * THREADS + threadIdx.x) / WIDTH] = v;  // expect: WRP001
}

void launch_width_sums(const float* x, float* out, int n) {
  constexpr int THREADS = 256;
  constexpr int WIDTH = 32;  // expect: WRP006
  constexpr int NUM_WARPS = THREADS / WIDTH;  // expect: WRP008
  width_sums<THREADS, WIDTH><<<n / NUM_WARPS, THREADS>>>(x, out);  // expect: API006
}

