// corpus: nvcc
// Two kernels whose port must read as the original does, or a second conversion changes it
// (`porter convert` is idempotent; tests/test_convert.py converts the corpus twice). Found on
// flashinfer's mla_kv_pack_fp8.cuh and exllamav3's MoE kernel, written here for porter:
// - rows of 32 threads in a block bounded at 4 rows, `__launch_bounds__(128, 2)`: the bound becomes
//   `PORTER_LAUNCH_BOUNDS(128, 2)`, which the parser must still read as the kernel's bounds (as a
//   macro it took it for the kernel's name, lost the rows and widened their 32s);
// - a lane's bit offset, `(lane << 3) * 3`, divided by 32 to pick a 32-bit word: a stride of 24 a
//   lane, not a lane of a warp. No warp operation reads the lane, so its `% 32` only groups the
//   threads by 32, on wave64 as on NVIDIA: the port leaves it as written.
__global__ void __launch_bounds__(128, 2) sum_rows(const float* x, float* y, int rows) {  // expect: LBD001
  const int row = blockIdx.x * 4 + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float v = x[row * 32 + lane];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);  // expect: SYN001 MSK001
  y[row * 32 + lane] = v;
}

__global__ void unpack_words(const unsigned* in, unsigned* out) {
  const int lane = threadIdx.x % 32;
  const int bit = (lane << 3) * 3;
  const int word = (bit + 15) / 32;
  out[blockIdx.x * 1024 + threadIdx.x] = in[blockIdx.x * 96 + word] >> (bit & 31);
}
