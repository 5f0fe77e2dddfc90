// corpus: nvcc
// Host guards that refuse any warp size but 32 (issue 14's held-out misses): the code behind them
// was written for 32 lanes, so each is an error for a person, with no automatic fix.
#include <cstdio>
#include <cstdlib>

static const int kTile = 32;  // a tile width that is not a warp width: its comparison stays silent

int check_device() {
  int warp_size = 0;
  cudaDeviceGetAttribute(&warp_size, cudaDevAttrWarpSize, 0);  // expect: API001 API004
  if (warp_size != 32) {  // expect: WRP010
    std::fprintf(stderr, "only 32-wide warps are supported\n");
    std::exit(1);
  }
  cudaDeviceProp prop;  // expect: API003
  cudaGetDeviceProperties(&prop, 0);  // expect: API001
  if (prop.warpSize == 32 && kTile == 32) return 1;  // expect: WRP010
  return 0;
}
