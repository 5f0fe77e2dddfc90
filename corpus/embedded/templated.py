"""Kernels that Python fills in before compiling them (pycuda's %-formatting, string.Template): each
field reads as a name, so the code around it parses and its 32-lane assumptions show."""

import string

from pycuda.compiler import SourceModule

# one warp per row: the row's values summed by a shuffle ladder, lane 31 writing the row's sum; each
# 32 threads of the grid take a row, so its 32s are the row's width and stay (porter.rules.block_rows)
_ROW_SUM = """
typedef %(value_type)s value_type;  // expect: EMB001

__global__ void %(name)s(const value_type* x, value_type* out, int n)
{
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  value_type v = 0;
  for (int i = lane; i < n; i += 32) v += x[row * n + i];
  for (int offset = 1; offset < 32; offset *= 2) v += __shfl_xor_sync(0xffffffff, v, offset);  // expect: SYN001 MSK001
  if (lane == 31) out[row] = v;
}
"""

_SCALE = string.Template("""
extern "C" __global__ void ${name}(${value_type}* x, ${value_type} s)
{
  const unsigned active = __ballot_sync(0xffffffff, x[threadIdx.x] != 0);  // expect: MSK002 SYN001 MSK001
  if (threadIdx.x % 32 == 0) x[threadIdx.x] *= s * __popc(active);  // expect: WRP001 MSK003
}
""")


def row_sum(value_type="float"):
    return SourceModule(_ROW_SUM % {"value_type": value_type, "name": "row_sum"}).get_function("row_sum")


def scale(value_type="float"):
    return SourceModule(_SCALE.substitute(value_type=value_type, name="scale")).get_function("scale")
