// A planted port of ../bounded_groups.cu as porter made it before it saw the bound that counts the
// element in 32-wide groups (porter at 5e9d9c4): the row and the column split at the wavefront, the
// bound left at 32. Right at 32 lanes; at 64, rows 0 to rows/2 are zeroed 64 wide, into the next
// tile's columns, and the others keep their values.
__global__ void zero_then_add(float* c, const float* x, int rows, int ld) {
  float* tile = c + blockIdx.x * 32;
  for (int i = threadIdx.x; i < rows * 32; i += blockDim.x) {
    tile[(i / warpSize) * ld + (i % warpSize)] = 0.0f;
  }
  __syncthreads();
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
  if (threadIdx.x % warpSize == 0) atomicAdd(&tile[0], v);  // the block's sum, whatever the width
}
