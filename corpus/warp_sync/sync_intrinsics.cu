// Warp-synchronous idioms across ROCm versions: syncwarp, match, reduce.
#include <cuda_runtime.h>  // expect: API005

__device__ int histogram_peers(int key) {
  const unsigned long long peers = __match_any_sync(__activemask(), key);  // expect: SYN003 SYN001
  return __popcll(peers);
}

__device__ int warp_total(int count) {
  return __reduce_add_sync(__activemask(), count);  // expect: SYN004 SYN001
}

__device__ float exchange(float* smem, float v, int lane) {
  smem[lane] = v;
  __syncwarp();  // expect: SYN002
  return smem[lane ^ 1];
}

__device__ bool all_positive(float v) {
  return __all_sync(__activemask(), v > 0.0f) && __any_sync(__activemask(), v > 1.0f);  // expect: SYN001 SYN001 SYN001 SYN001
}
