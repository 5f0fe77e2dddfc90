// A device-wide GEMM instantiated from CUTLASS templates.
#include <cutlass/gemm/device/gemm.h>  // expect: LIB011
#include <cute/tensor.hpp>  // expect: LIB011

using RowMajor = cutlass::layout::RowMajor;  // expect: LIB011
using Gemm = cutlass::gemm::device::Gemm<float, RowMajor, float, RowMajor, float, RowMajor>;  // expect: LIB011

int run(int m, int n, int k, const float* A, const float* B, float* C) {
  Gemm gemm;
  auto layout = cute::make_layout(cute::make_shape(m, n));  // expect: LIB011 LIB011
  typename Gemm::Arguments args({m, n, k}, {A, k}, {B, n}, {C, n}, {C, n}, {1.0f, 0.0f});
  return gemm(args) == cutlass::Status::kSuccess ? 0 : 1;  // expect: LIB011
}
