"""A block sum written for any wavefront (the fixed shape of cupy/cupy#9977, written anew):
the ladder starts at warpSize / 2, the mask is the active lanes, and the partials are counted
in wavefronts. Nothing here assumes 32 lanes, so porter reports only what ROCm 6.4 needs."""

import cupy

_SOURCE = r"""
#ifdef __HIP_DEVICE_COMPILE__  // expect: EMB001
#define ACTIVE_LANES __activemask()
#else
#define ACTIVE_LANES 0xffffffffu
#endif

extern "C" __global__ void block_sum(const float* x, float* out, int n)
{
    float local = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) local += x[i];
    for (int offset = warpSize / 2; offset > 0; offset >>= 1)
        local += __shfl_down_sync(ACTIVE_LANES, local, offset);  // expect: SYN001
    __shared__ float partial[32];
    if ((threadIdx.x & (warpSize - 1)) == 0) partial[threadIdx.x / warpSize] = local;
    __syncthreads();
    if (threadIdx.x < warpSize) {
        const int warps = blockDim.x / warpSize;
        float val = threadIdx.x < warps ? partial[threadIdx.x] : 0.f;
        for (int offset = warpSize / 2; offset > 0; offset >>= 1)
            val += __shfl_down_sync(ACTIVE_LANES, val, offset);  // expect: SYN001
        if (threadIdx.x == 0) *out = val;
    }
}
"""

block_sum = cupy.RawKernel(_SOURCE, "block_sum")
