// corpus: nvcc
// Ranks of the kept elements of each 32-thread row, from PTX's `%lanemask_lt` read through a
// helper: a block of 32 x 4 threads, one row of the data to each warp. On wave64 two rows share a
// wavefront, so the row's vote and the lanes below a lane are the row's half of the wavefront's:
// porter reads both within the row (porter_row_ballot, the mask shifted down by the row's 32),
// and a mask of the wavefront's lanes would count the other row's lanes too. Written for porter.

__device__ __forceinline__ unsigned lanes_below() {  // expect: MSK002
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));  // expect: ASM001
  return mask;
}

__global__ void row_ranks(const int* keep, int* ranks) {
  const int row = blockIdx.x * 4 + threadIdx.y;
  const int index = row * 32 + threadIdx.x;
  const bool kept = keep[index] != 0;
  const unsigned votes = __ballot_sync(0xffffffff, kept);  // expect: SYN001 WRP017 MSK001
  ranks[index] = kept ? __popc(votes & lanes_below()) : -1;
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_row_ranks(const int* keep, int* ranks, int rows, cudaStream_t stream) {  // expect: API003
  row_ranks<<<rows / 4, dim3(32, 4), 0, stream>>>(keep, ranks);  // expect: API006
}
#endif
