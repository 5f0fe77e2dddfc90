// The CUB warp collectives porter's CPU device runs (WarpReduce, WarpScan); block and device-wide
// algorithms are not emulated.
#pragma once
#include "warp/warp_reduce.cuh"
#include "warp/warp_scan.cuh"
