// corpus: nvcc
// Each warp holds one 32-value fragment, a lane a value, and adds the value four lanes below, within
// its 32 lanes: the shape of exllamav3's reconstruct and quantize kernels (vendored by gptqmodel:
// exllamav3/quant/reconstruct.cu), which shuffle a tensor-core fragment with
// `__shfl_down_sync(__activemask(), v, 4, 32)` and a `__syncwarp()`. As the shuffle's mask,
// `__activemask()` names whichever lanes run, on either vendor; the width keeps each shuffle within
// its 32 lanes: on a 64-lane wavefront each half does what one NVIDIA warp does, so the 32s are
// right as written and porter leaves them. porter at 9dae229 counted `__activemask` as asking for the
// wavefront and widened lane, warp and width (planted/fragment_shifts_widened.cu): at 64 lanes a
// lane then reads past its fragment and half the block's outputs go unwritten. Written for porter.
__global__ void fragment_shifts(const float* in, float* out) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const float* fragment = in + (blockIdx.x * 8 + warp) * 32;
  float v = fragment[lane];
  float below = __shfl_down_sync(__activemask(), v, 4, 32);  // expect: SYN001 SYN001
  __syncwarp();  // expect: SYN002
  out[(blockIdx.x * 8 + warp) * 32 + lane] = v + below;
}
