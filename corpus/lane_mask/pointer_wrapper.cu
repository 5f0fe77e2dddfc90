// corpus: nvcc
// A shuffle wrapper that returns a pointer (where the next warp's results go): its mask parameter
// sits one declarator further in than a plain function's, `float* f(…)`, and its callers' 32-bit
// masks were missed (porter before stop 57). Written for porter.
__device__ float* sum_pairs_into(float* out, unsigned mask, float v) {  // expect: MSK002
  v += __shfl_xor_sync(mask, v, 1);  // expect: SYN001
  *out = v;
  return out + 1;
}

__device__ const float& larger_of_pair(const float* values, unsigned mask, int i) {  // expect: MSK002
  int other = __shfl_xor_sync(mask, i, 1);  // expect: SYN001
  return values[i] > values[other] ? values[i] : values[other];
}

__global__ void pair_sums(const float* x, float* out) {
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  sum_pairs_into(out + blockIdx.x * blockDim.x + threadIdx.x, 0xffffffff, v);  // expect: MSK001
  out[threadIdx.x] += larger_of_pair(x, 0xffffffff, threadIdx.x);  // expect: MSK001
}
