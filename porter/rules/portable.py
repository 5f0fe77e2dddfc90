"""Names that porter's fixes write, all defined by the generated compat header.

On NVIDIA they are the CUDA spellings (32, 0xffffffffu, unsigned); under __HIP_PLATFORM_AMD__
they follow the wavefront of the architecture being compiled.
"""

WARP_SIZE = "PORTER_WARP_SIZE"  # device: constexpr per architecture (64 on gfx9, 32 on gfx10+)
LOG2_WARP_SIZE = "PORTER_LOG2_WARP_SIZE"
HOST_WARP_SIZE = "porter_warp_size()"  # host: queried from the device at run time
FULL_MASK = "PORTER_FULL_MASK"  # every lane: 64 bits on wave64
ROW_MASK = "PORTER_ROW_MASK"  # the lanes of a 32-thread row: the caller's half of a wave64 wavefront
# a 32-thread row's votes as NVIDIA's warp gives them, 32 bits: the caller's half of a wave64 ballot
ROW_VOTES = {"__ballot_sync": "porter_row_ballot", "__activemask": "porter_row_activemask"}
LANE_MASK_TYPE = "porter_lane_mask_t"  # unsigned on NVIDIA, unsigned long long on AMD
# for a mask the code keeps in a signed `int`: int on NVIDIA (its shifts and comparisons unchanged),
# long long on AMD
SIGNED_LANE_MASK_TYPE = "porter_signed_lane_mask_t"
ONE_LANE = "PORTER_LANE_BIT"  # PORTER_LANE_BIT(lane): a mask with one lane set
LAUNCH_BOUNDS = "PORTER_LAUNCH_BOUNDS"  # PORTER_LAUNCH_BOUNDS(threads, blocks): CUDA's second number made AMD's
