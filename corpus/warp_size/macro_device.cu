// corpus: nvcc
// Device helpers declared through the project's own specifier macro (as DeepSpeed's DS_D_INLINE
// and FlashInfer's FLASHINFER_INLINE are): the macro's definition, not its name, says they are
// device code, so their warp arithmetic is a warp's.
#define DINLINE __device__ __forceinline__

DINLINE float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) {  // expect: WRP002
    v += __shfl_xor_sync(0xffffffff, v, offset);  // expect: SYN001 MSK001
  }
  return v;
}

DINLINE bool last_lane(int id) {
  const int lane = id & 31;
  return lane == 31;  // expect: WRP001
}

__global__ void sums(const float* in, float* out) {
  const float v = warp_sum(in[threadIdx.x]);
  if (last_lane(threadIdx.x)) out[blockIdx.x] = v;
}
