// corpus: project
// A project whose ROCm builds define its own marker (`-DPROJ_WITH_HIP`, as mmcv's setup.py
// defines MMCV_WITH_HIP): porter learns what the macro means from version.cpp, where it guards
// HIP's runtime header. Inside this include guard the ROCm arm sets the width to 64 for every AMD
// target, and the reduction's body is chosen per platform. On CDNA that is right; on RDNA the
// ladder's first step reads each lane's own value. The CUDA arm is the project's NVIDIA path:
// nothing there is porter's to port. Written for porter.
#ifndef PROJ_WIDTHS_CUH
#define PROJ_WIDTHS_CUH

#ifdef PROJ_WITH_HIP
#define PROJ_WARP_SIZE 64
#else
#define PROJ_WARP_SIZE 32
#define PROJ_FULL_MASK 0xffffffff
#endif

template <typename T>
__device__ __forceinline__ T proj_warp_sum(T v) {
  for (int offset = PROJ_WARP_SIZE / 2; offset > 0; offset /= 2)  // expect[gfx1100]: WRP015
#ifdef PROJ_WITH_HIP
    v += __shfl_down(v, offset);
#else
    v += __shfl_down_sync(PROJ_FULL_MASK, v, offset);
#endif
  return v;
}

#endif  // PROJ_WIDTHS_CUH
