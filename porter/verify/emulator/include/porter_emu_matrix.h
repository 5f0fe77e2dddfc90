// Matrix operations of a warp on porter's CPU device: the lanes put their shares of the 16x16
// tiles in one exchange per warp, meet, and each lane reads the elements of the product it holds.
// Shared by CUDA's WMMA (mma.h, any width) and AMD's MFMA builtins (porter_emu_mfma.h, 64 lanes).
#pragma once
#include <cmath>

#include "../porter_emu.h"

namespace porter_emu {

struct MatrixTiles {
  float a[256], b[256], c[256];  // A (row i, column k), B (row k, column j), C (row i, column j): row-major
};

// one exchange per warp of the block this host thread runs (its fibers are that block's threads)
inline MatrixTiles& matrix_tiles() {
  static thread_local MatrixTiles tiles[1024 / 32];
  return tiles[warp_id()];
}

// every live lane of the warp arrives before any goes on: a lane missing from a matrix operation is a
// hang, as on the hardware, and is reported as one
inline void matrix_meet(const char* name) {
  alignas(16) unsigned char out[kSlot];
  collective(kSync, name, kFullMask, true, 0, 0, 0, out);
}

// element (i, j) of A B + C, summed over k in order, in float
inline float matrix_element(const MatrixTiles& t, int i, int j) {
  float sum = t.c[i * 16 + j];
  for (int k = 0; k < 16; ++k) sum = std::fma(t.a[i * 16 + k], t.b[k * 16 + j], sum);
  return sum;
}

}  // namespace porter_emu
