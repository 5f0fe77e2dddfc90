// The cooperative groups kernels use most, for porter's CPU device: the block, and tiles of a warp
// (tiled_partition<N>, N up to the emulated warp width) with their shuffles, votes and sync.
#pragma once
#include "../porter_emu.h"

namespace cooperative_groups {

class thread_block {
 public:
  void sync() const { __syncthreads(); }
  unsigned thread_rank() const {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  unsigned num_threads() const { return size(); }
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
};

inline thread_block this_thread_block() { return thread_block(); }

template <unsigned N>
class thread_block_tile {
  static_assert(N >= 1 && N <= PORTER_EMULATOR && (N & (N - 1)) == 0,
                "porter-emu: tiles of a power of two up to the warp width");

 public:
  unsigned thread_rank() const { return porter_emu::lane_id() % N; }
  unsigned size() const { return N; }
  unsigned num_threads() const { return N; }
  unsigned meta_group_rank() const { return this_thread_block().thread_rank() / N; }
  unsigned meta_group_size() const { return (this_thread_block().size() + N - 1) / N; }
  void sync() const { __syncwarp(mask()); }
  template <typename T> T shfl(T v, int source) const { return __shfl_sync(mask(), v, source, N); }
  template <typename T> T shfl_down(T v, unsigned delta) const { return __shfl_down_sync(mask(), v, delta, N); }
  template <typename T> T shfl_up(T v, unsigned delta) const { return __shfl_up_sync(mask(), v, delta, N); }
  template <typename T> T shfl_xor(T v, unsigned lanes) const { return __shfl_xor_sync(mask(), v, lanes, N); }
  unsigned long long ballot(int p) const { return (__ballot_sync(mask(), p) >> base()) & tile_bits(); }
  int any(int p) const { return ballot(p) != 0; }
  int all(int p) const { return ballot(p) == tile_bits(); }

 private:
  // the lanes of this tile: the collectives of all tiles in a warp still meet as one warp collective
  unsigned long long mask() const { return porter_emu::kFullMask; }
  unsigned base() const { return porter_emu::lane_id() / N * N; }
  static constexpr unsigned long long tile_bits() { return N >= 64 ? ~0ull : ((1ull << N) - 1); }
};

template <unsigned N, typename Parent>
inline thread_block_tile<N> tiled_partition(const Parent&) {
  return thread_block_tile<N>();
}

template <typename T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <typename T> struct less { T operator()(T a, T b) const { return a < b ? a : b; } };
template <typename T> struct greater { T operator()(T a, T b) const { return a > b ? a : b; } };

template <unsigned N, typename T, typename Op>
inline T reduce(const thread_block_tile<N>& tile, T value, Op op) {
  for (unsigned offset = N / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset));
  return value;
}

}  // namespace cooperative_groups
