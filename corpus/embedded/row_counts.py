"""Row counts of a sparse matrix, one block per row, compiled at run time through cupy.

The shape of the kernel that cupy/cupy#9977 fixed (written anew): a shuffle ladder from 16, a
32-bit mask over every lane, and per-warp partials counted with 32. The second stage behind
`threadIdx.x < 32` is the first 32 threads, right as written on any wavefront.
"""

import cupy

_ROW_COUNT_SOURCE = r"""
template<typename I>  // expect: EMB001
__global__ void row_count(const int n_row, const I* __restrict__ Ap, const I* __restrict__ Aj,
                          const int* __restrict__ weight, I* __restrict__ out)
{
    const int row = blockIdx.x;
    if (row >= n_row) return;
    int local = 0;
    for (I p = Ap[row] + threadIdx.x; p < Ap[row + 1]; p += blockDim.x)
        local += weight[Aj[p]];
    for (int offset = 16; offset > 0; offset >>= 1)  // expect: WRP002
        local += __shfl_down_sync(0xffffffff, local, offset);  // expect: SYN001 MSK001
    __shared__ int partial[32];
    if (threadIdx.x % 32 == 0)  // expect: WRP001
        partial[threadIdx.x / 32] = local;  // expect: WRP001
    __syncthreads();
    if (threadIdx.x < 32) {
        int val = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0;  // expect: WRP001
        for (int offset = 16; offset > 0; offset >>= 1)
            val += __shfl_down_sync(0xffffffff, val, offset);  // expect: SYN001 MSK001
        if (threadIdx.x == 0) out[row + 1] = I(val);
    }
}
"""

_module = cupy.RawModule(code=_ROW_COUNT_SOURCE, options=("-std=c++17",), name_expressions=["row_count<int>"])


def row_counts(indptr, indices, weight):
    """Counts per row. A docstring that names __global__ and threadIdx.x % 32 is prose, not code."""
    out = cupy.zeros(indptr.size, dtype=indptr.dtype)
    kernel = _module.get_function("row_count<int>")
    kernel((indptr.size - 1,), (256,), (indptr.size - 1, indptr, indices, weight, out))
    return out


# One line of the kernel per literal, Python joining them: escapes are read at their own width.
_SCALE_SOURCE = (
    "extern \"C\" __global__ void scale_rows(float* x, const float* s, int n) {\n"
    "  int lane = threadIdx.x & 31;\n"
    "  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;\n"  # a warp per row: its 32s stay
    "  float scale = __shfl_sync(0xffffffff, s[row], 0);\n"  # expect: WRP016 SYN001 MSK001
    "  for (int i = lane; i < n; i += 32) x[row * n + i] *= scale;\n"
    "}\n"
)
scale_rows = cupy.RawKernel(_SCALE_SOURCE, "scale_rows")

# An f-string is read as the code it becomes: `{{` is a brace, `{value}` a name as long as the field.
# (`warpSize` asks for the wavefront: the lanes counted with 32 beside it are its 32-lane assumption.)
_TEMPLATE = f"__global__ void fill(float* x, int n) {{ for (int i = threadIdx.x % 32; i < n; i += 32) x[i] = {0} * warpSize; }}"  # expect: WRP001 WRP005
