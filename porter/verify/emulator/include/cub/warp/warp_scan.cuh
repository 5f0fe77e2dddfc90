// CUB's WarpScan on porter's CPU device, its logical warp defaulting to the emulated width
// (warp_reduce.cuh says why).
#pragma once
#include "../../../porter_emu.h"

namespace cub {

template <typename T, int LOGICAL_WARP_THREADS = PORTER_EMULATOR, int LEGACY_PTX_ARCH = 0>
class WarpScan {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= PORTER_EMULATOR &&
                    (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                "porter-emu: a logical warp of a power of two up to the warp width");

 public:
  struct TempStorage {};
  explicit WarpScan(TempStorage&) {}

  template <typename Op>
  void InclusiveScan(T input, T& output, Op op) {
    int lane = porter_emu::lane_id() % LOGICAL_WARP_THREADS;
    output = input;
    for (int offset = 1; offset < LOGICAL_WARP_THREADS; offset *= 2) {
      T other = __shfl_up_sync(porter_emu::kFullMask, output, offset, LOGICAL_WARP_THREADS);
      if (lane >= offset) output = op(other, output);
    }
  }
  template <typename Op>
  void InclusiveScan(T input, T& output, Op op, T& warp_aggregate) {
    InclusiveScan(input, output, op);
    warp_aggregate = __shfl_sync(porter_emu::kFullMask, output, LOGICAL_WARP_THREADS - 1, LOGICAL_WARP_THREADS);
  }
  template <typename Op>
  void ExclusiveScan(T input, T& output, T initial, Op op) {
    T inclusive;
    InclusiveScan(input, inclusive, op);
    T before = __shfl_up_sync(porter_emu::kFullMask, inclusive, 1, LOGICAL_WARP_THREADS);
    output = porter_emu::lane_id() % LOGICAL_WARP_THREADS == 0 ? initial : op(initial, before);
  }
  void InclusiveSum(T input, T& output) { InclusiveScan(input, output, [](T a, T b) { return a + b; }); }
  void InclusiveSum(T input, T& output, T& warp_aggregate) {
    InclusiveScan(input, output, [](T a, T b) { return a + b; }, warp_aggregate);
  }
  void ExclusiveSum(T input, T& output) { ExclusiveScan(input, output, T(0), [](T a, T b) { return a + b; }); }
  void ExclusiveSum(T input, T& output, T& warp_aggregate) {
    T inclusive;
    InclusiveSum(input, inclusive, warp_aggregate);
    output = inclusive - input;
  }
};

}  // namespace cub
