// corpus: nvcc
// One kernel template instantiated per row length, each row handled by a group of `kRowThreads`
// threads and `kRowsPerBlock` rows a block (the shape of DeepSpeed's attn_softmax launches): the
// host passes `threads / 32` beside the 32 it divides by, as it passes `threads / 16` beside 16.
// The quotient counts 32-thread groups the kernel is given, not warps: on 64-lane wavefronts it
// stays 8. Changed alone to a warp count of 4, block b's groups 4-7 would scale block b+1's rows a
// second time and the last half of the rows would never be scaled.
template <int kRowThreads, int kRowsPerBlock>
__global__ void scale_rows(float* rows, int row_length, float factor) {
  const int group = threadIdx.x / kRowThreads;
  const int member = threadIdx.x % kRowThreads;
  const int row = blockIdx.x * kRowsPerBlock + group;
  for (int i = member; i < row_length; i += kRowThreads) rows[row * row_length + i] *= factor;
}

void scale_all_rows(float* rows, int nrows, int row_length, float factor) {
  const int threads = 256;
  if (row_length <= 16) {
    const int blocks = (nrows * 16 + threads - 1) / threads;
    scale_rows<16, (threads / 16)><<<blocks, threads>>>(rows, row_length, factor);  // expect: API006
  } else {
    const int blocks = (nrows * 32 + threads - 1) / threads;
    scale_rows<32, (threads / 32)><<<blocks, threads>>>(rows, row_length, factor);  // expect: API006
  }
}
