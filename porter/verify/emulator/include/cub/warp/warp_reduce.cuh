// CUB's WarpReduce on porter's CPU device. Its logical warp defaults to the emulated width, as the
// vendors' do to theirs: CUB's to NVIDIA's 32 lanes, hipCUB's to the device's wavefront
// (HIPCUB_DEVICE_WARP_THREADS, 64 on gfx9). A row kernel's port that leaves the width to the
// default therefore reduces two rows together at 64 lanes, as it would on the device.
#pragma once
#include "../../../porter_emu.h"

namespace cub {

template <typename T, int LOGICAL_WARP_THREADS = PORTER_EMULATOR, int LEGACY_PTX_ARCH = 0>
class WarpReduce {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= PORTER_EMULATOR &&
                    (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                "porter-emu: a logical warp of a power of two up to the warp width");

 public:
  struct TempStorage {};
  explicit WarpReduce(TempStorage&) {}

  // every lane of the logical warp gets the aggregate (CUB promises it to lane 0 alone)
  template <typename Op>
  T Reduce(T value, Op op) {
    for (int offset = LOGICAL_WARP_THREADS / 2; offset > 0; offset /= 2)
      value = op(value, __shfl_xor_sync(porter_emu::kFullMask, value, offset, LOGICAL_WARP_THREADS));
    return value;
  }
  // the first `valid_items` lanes of the logical warp only
  template <typename Op>
  T Reduce(T value, Op op, int valid_items) {
    int lane = porter_emu::lane_id() % LOGICAL_WARP_THREADS;
    for (int offset = 1; offset < LOGICAL_WARP_THREADS; offset *= 2) {
      T other = __shfl_down_sync(porter_emu::kFullMask, value, offset, LOGICAL_WARP_THREADS);
      if (lane % (2 * offset) == 0 && lane + offset < valid_items) value = op(value, other);
    }
    return __shfl_sync(porter_emu::kFullMask, value, 0, LOGICAL_WARP_THREADS);
  }
  T Sum(T value) { return Reduce(value, [](T a, T b) { return a + b; }); }
  T Sum(T value, int valid_items) { return Reduce(value, [](T a, T b) { return a + b; }, valid_items); }
};

}  // namespace cub
