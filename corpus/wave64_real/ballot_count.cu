// corpus: nvcc
// A ballot kept in 32 bits and counted with 32-bit popcount: the class fixed in
// pytorch/FBGEMM#5830 (lanes 32-63 dropped on wave64, colliding offsets), and the same with the
// vote cast down to 32 bits where its lanes below are taken. Written anew.
__global__ void bucket_offsets(const int* bucket, int* offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;  // expect: WRP001
  int mine = i < n ? bucket[i] : -1;
  unsigned same = __ballot_sync(0xffffffff, mine == 0);  // expect: MSK002 MSK001 SYN001
  unsigned before = same & ((1u << lane) - 1);  // expect: MSK004 MSK002
  if (i < n) offset[i] = __popc(before);  // expect: MSK003
}

// the same count with the vote kept in 64 bits and cast down where its lanes below are taken
__global__ void bucket_offsets_cast(const int* bucket, int* offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;  // expect: WRP001
  int mine = i < n ? bucket[i] : -1;
  unsigned long long same = __ballot_sync(0xffffffff, mine == 0);  // expect: MSK001 SYN001
  unsigned before = (unsigned)same & ((1u << lane) - 1);  // expect: MSK004 MSK002
  if (i < n) offset[i] = __popc(before);  // expect: MSK003
}
