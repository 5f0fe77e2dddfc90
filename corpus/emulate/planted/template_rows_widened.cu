// A planted port of ../template_rows.cu as porter made it before it knew a kernel template's row
// branch: WRP006 made `#define WARP_SIZE (32)` the wavefront's width (PORTER_WARP_SIZE, here the CPU
// device's width) and MSK001 the mask all lanes. Right at 32 lanes; at 64 the row branch's helper
// adds each row's dot product to the next row's, and the wide branch stays right.
#if defined(PORTER_EMULATOR)
#define WARP_SIZE PORTER_EMULATOR  // the width under test, as PORTER_WARP_SIZE gives it there
#else
#define WARP_SIZE 64  // PORTER_WARP_SIZE on gfx90a and gfx942, for a compile outside the CPU device
#endif
#define FULL_MASK (0xFFFFFFFFFFFFFFFFull)

template <typename T>
__device__ T warp_sum(T v) {
  for (int i = WARP_SIZE / 2; i; i /= 2) v += __shfl_xor_sync(FULL_MASK, v, i, WARP_SIZE);  // expect: SYN001
  return v;
}

template <int BDIM_X>
__device__ float block_sum(float v) {
  constexpr int kWarps = BDIM_X / WARP_SIZE;
  __shared__ float partial[kWarps];
  const int lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
  v = warp_sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < kWarps ? partial[lane] : 0.0f;
  v = warp_sum(v);
  __syncthreads();
  return v;
}

// One dot product per row of BDIM_X threads: rows of 32 (BDIM_Y of them per block), or one row
// of the whole block.
template <int BDIM_X, int BDIM_Y>
__global__ void row_dots(const float* a, const float* b, float* out, int n) {
  static_assert((BDIM_X == 32 && BDIM_Y > 1) || (BDIM_X > 32 && BDIM_Y == 1));
  const int row = blockIdx.x * BDIM_Y + threadIdx.y;
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n; i += BDIM_X) acc += a[row * n + i] * b[row * n + i];
  if constexpr (BDIM_X == 32) {
    acc = warp_sum(acc);
  } else {
    acc = block_sum<BDIM_X>(acc);
  }
  if (threadIdx.x == 0) out[row] = acc;
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
template <int BDIM_X, int BDIM_Y>
void launch_row_dots(const float* a, const float* b, float* out, int rows, int n) {
  dim3 block(BDIM_X, BDIM_Y);
  dim3 grid((rows + BDIM_Y - 1) / BDIM_Y);
  row_dots<BDIM_X, BDIM_Y><<<grid, block>>>(a, b, out, n);  // expect: API006
}

void dots(const float* a, const float* b, float* out, int rows, int n) {
  if (n <= 256) {
    launch_row_dots<32, 4>(a, b, out, rows, n);
  } else {
    launch_row_dots<256, 1>(a, b, out, rows, n);
  }
}
#endif
