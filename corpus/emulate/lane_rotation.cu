// corpus: nvcc
// Verify case for porter's CPU device: each warp's 32 values rotated by one lane, the source lane
// taken modulo 32 (`__shfl_sync(mask, v, (lane + 1) % 32)`, as warp transposes and FFT stages
// write it). The result is laid out in 32s: widened to the wavefront, the rotation wraps at lane
// 63 and lane 31 takes lane 32's value; kept at 32 with the row's width given to the shuffle, each
// 32 lanes rotate among themselves at any width. Written for porter.

__global__ void lane_rotation(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  out[i] = __shfl_sync(0xffffffff, in[i], (lane + 1) % 32);  // expect: SYN001 WRP016 MSK001
}

// The same rotation with the source lane left to wrap: CUDA reads a source past the warp's 32
// lanes modulo 32, so `lane + 1` is lane 0 for lane 31, as `(lane + 1) % 32` is.
__global__ void lane_rotation_wrap(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  out[i] = __shfl_sync(0xffffffff, in[i], lane + 1);  // expect: SYN001 WRP016 MSK001
}
