// corpus: nvcc
// Device helpers declared through the project's own specifier macro (as DeepSpeed's DS_D_INLINE
// and FlashInfer's FLASHINFER_INLINE are): the macro's definition, not its name, says they are
// device code, so their warp arithmetic is a warp's. Their only warp operation is a butterfly below
// 32: each 32-lane half of a wave64 wavefront runs it as one NVIDIA warp, and its 32s stay; its mask
// must name the 64-bit wavefront's lanes.
#define DINLINE __device__ __forceinline__

DINLINE float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001
  }
  return v;
}

DINLINE bool last_lane(int id) {
  const int lane = id & 31;
  return lane == 31;
}

__global__ void sums(const float* in, float* out) {
  const float v = warp_sum(in[threadIdx.x]);
  if (last_lane(threadIdx.x)) out[blockIdx.x] = v;
}
