// A warp width kept in a named constant of a shared header, used by another file (the pattern
// of issue 14: `static const int WS = 32;` and everything derived from it).
#pragma once
static const int SIMD_W = 32;  // expect: WRP006 (the warp width of width_constants.cu, by its uses there)
#define HALF_SIMD_W (SIMD_W / 2)
#define BITS_PER_WORD 32  // a second role: bits of a 32-bit word, never the warp width
