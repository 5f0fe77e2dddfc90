// Verify cases for porter's CPU device: scans, votes, grouping and sorting built from warp
// primitives written for 32-lane warps; each block's result does not depend on the warp width.

// An inclusive scan of each block's elements: warp scans by shuffles, warp totals in shared memory.
__global__ void block_scan(const int* in, int* out, int n) {
  __shared__ int totals[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;  // expect: WRP001
  int warp = threadIdx.x >> 5;  // expect: WRP001
  int v = i < n ? in[i] : 0;
  for (int d = 1; d < 32; d *= 2) {  // expect: WRP002
    int t = __shfl_up_sync(0xffffffff, v, d);  // expect: SYN001 MSK001
    if (lane >= d) v += t;
  }
  if (lane == 31) totals[warp] = v;  // expect: WRP001
  __syncthreads();
  int offset = 0;
  for (int w = 0; w < warp; ++w) offset += totals[w];
  if (i < n) out[i] = v + offset;
}

// The exclusive scan of each block, from the same warp scans.
__global__ void block_exclusive_scan(const int* in, int* out, int n) {
  __shared__ int totals[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;  // expect: WRP001
  int warp = threadIdx.x / 32;  // expect: WRP001
  int v = i < n ? in[i] : 0;
  int inclusive = v;
  for (int d = 1; d <= 16; d *= 2) {  // expect: WRP002
    int t = __shfl_up_sync(0xffffffff, inclusive, d);  // expect: SYN001 MSK001
    if (lane >= d) inclusive += t;
  }
  if (lane == 31) totals[warp] = inclusive;  // expect: WRP001
  __syncthreads();
  int offset = 0;
  for (int w = 0; w < warp; ++w) offset += totals[w];
  if (i < n) out[i] = inclusive - v + offset;
}

// Stream compaction: the kept elements of each block, in order, placed with a ballot per warp.
__global__ void compact(const int* in, int* out, int* counts, int n) {
  __shared__ int warp_counts[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;  // expect: WRP001
  int warp = threadIdx.x >> 5;  // expect: WRP001
  bool keep = i < n && (in[i] % 3 == 0);
  unsigned ballot = __ballot_sync(0xffffffff, keep);  // expect: MSK002 SYN001 MSK001
  int before = __popc(ballot & ((1u << lane) - 1));  // expect: MSK003 MSK004
  if (lane == 0) warp_counts[warp] = __popc(ballot);  // expect: MSK003
  __syncthreads();
  int offset = 0;
  for (int w = 0; w < warp; ++w) offset += warp_counts[w];
  if (keep) out[blockIdx.x * blockDim.x + offset + before] = in[i];
  if (threadIdx.x == 0) {
    int total = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) total += warp_counts[w];  // expect: WRP001
    counts[blockIdx.x] = total;
  }
}

// A histogram of keys per block: the threads of a warp that share a key elect a leader with
// match_any, and the leader adds the group's size.
__global__ void key_histogram(const int* keys, int* out, int n) {
  __shared__ int histogram[8];
  if (threadIdx.x < 8) histogram[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int key = i < n ? keys[i] : 7;
  unsigned peers = __match_any_sync(0xffffffff, key);  // expect: MSK002 SYN003 MSK001
  int lane = threadIdx.x & 31;  // expect: WRP001
  if (__ffs(peers) - 1 == lane) atomicAdd(&histogram[key], __popc(peers));  // expect: MSK003 MSK003
  __syncthreads();
  if (threadIdx.x < 8) out[blockIdx.x * 8 + threadIdx.x] = histogram[threadIdx.x];
}

// A bitonic sort of each block: shuffles for strides inside a warp, shared memory beyond.
__global__ void block_sort(const int* in, int* out) {
  __shared__ int values[256];
  int t = threadIdx.x;
  int v = in[blockIdx.x * 256 + t];
  for (int size = 2; size <= 256; size *= 2) {
    for (int stride = size / 2; stride > 0; stride /= 2) {
      int other;
      if (stride < 32) {
        other = __shfl_xor_sync(0xffffffff, v, stride);  // expect: SYN001 MSK001
      } else {
        values[t] = v;
        __syncthreads();
        other = values[t ^ stride];
        __syncthreads();
      }
      bool ascending = (t & size) == 0;
      bool lower = (t & stride) == 0;
      v = (lower == ascending) ? min(v, other) : max(v, other);
    }
  }
  out[blockIdx.x * 256 + t] = v;
}

// Per-warp shared histograms, merged per block: each warp counts into its own row. Its only warp
// operation is a barrier, which reads no lane: each 32-thread group counts into its own row on a
// 64-lane wavefront too, so the 32s stay as written.
__global__ void warp_histograms(const int* in, int* out, int n) {
  __shared__ int rows[8][16];
  int warp = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (lane < 16) rows[warp][lane] = 0;
  __syncwarp();  // expect: SYN002
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&rows[warp][in[i] & 15], 1);
  __syncthreads();
  if (threadIdx.x < 16) {
    int total = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) total += rows[w][threadIdx.x];
    out[blockIdx.x * 16 + threadIdx.x] = total;
  }
}
