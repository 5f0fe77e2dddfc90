// corpus: nvcc
// A lane helper as real headers write it (flashinfer's utils.cuh has this shape): PTX's %laneid,
// 0-31 on NVIDIA. Ported, it is __lane_id(), which counts a 64-lane wavefront's lanes on CDNA:
// right where a kernel's warps are wavefronts, not where the kernel's rows of 32 threads share one
// (lane_rows.cu). Written for porter.
#pragma once

__device__ __forceinline__ int get_lane_id() {
  int lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));  // expect: ASM001
  return lane;
}
