// AMD's MFMA builtins on porter's CPU device, at 64 lanes, with the operand layouts of AMD's matrix
// instruction calculator for v_mfma_f32_16x16x16f16 and v_mfma_f32_16x16x16bf16_1k (gfx90a, gfx942,
// gfx950). For lane l and element e = 0..3:
//   A (row i, column k): i = l % 16, k = 4 * (l / 16) + e
//   B (row k, column j): j = l % 16, k = 4 * (l / 16) + e
//   C and D (row i, column j): j = l % 16, i = 4 * (l / 16) + e
// porter_wmma.h is written on these layouts; the emulator computes with them, so a load that puts an
// element where the instruction does not read it gives a wrong product here as on the hardware.
#pragma once
#include "porter_emu_matrix.h"

namespace porter_emu {

template <typename T>
inline void mfma_f32_16x16x16(const T* a, const T* b, float* acc) {
  static_assert(kWidth == 64, "porter-emu: MFMA needs a 64-lane wavefront (PORTER_EMULATOR=64)");
  const int lane = lane_id(), line = lane % 16, first = 4 * (lane / 16);
  MatrixTiles& t = matrix_tiles();
  for (int e = 0; e < 4; ++e) {
    t.a[line * 16 + first + e] = static_cast<float>(a[e]);
    t.b[(first + e) * 16 + line] = static_cast<float>(b[e]);
    t.c[(first + e) * 16 + line] = acc[e];
  }
  matrix_meet("__builtin_amdgcn_mfma_f32_16x16x16");
  for (int e = 0; e < 4; ++e) acc[e] = matrix_element(t, first + e, line);
  matrix_meet("__builtin_amdgcn_mfma_f32_16x16x16");  // all have read before the next one writes
}

}  // namespace porter_emu
