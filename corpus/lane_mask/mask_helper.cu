// corpus: nvcc
// A vote result handed to the file's own helper, whose parameter is 32 bits wide: the helper
// truncates the mask its caller widened, and its bit scan reads half of it. Dataflow through the
// call, one level: the parameter is a mask because a caller passes one, whatever its name.
#include <cuda_runtime.h>  // expect: API005

__device__ int first_lane(unsigned bits) {  // expect: MSK002
  return __ffs(bits) - 1;  // expect: MSK003
}

__device__ int below(unsigned bits, int lane) {  // expect: MSK002
  return __popc(bits & ((1u << lane) - 1));  // expect: MSK003 MSK004
}

__global__ void elect(const int* keys, int* leaders, int* ranks) {
  const int lane = threadIdx.x & 31;  // expect: WRP001
  const unsigned long long peers = __match_any_sync(0xffffffff, keys[threadIdx.x]);  // expect: SYN003 MSK001
  leaders[threadIdx.x] = first_lane(peers);
  ranks[threadIdx.x] = below(__ballot_sync(0xffffffff, keys[threadIdx.x] > 0), lane);  // expect: SYN001 MSK001
}
