// hipCUB on porter's CPU device: CUB's warp collectives (../cub), whose default logical warp is the
// emulated width, as hipCUB's is the device's wavefront.
#pragma once
#include "../cub/cub.cuh"
namespace hipcub = cub;
