// CUDA's WMMA API on porter's CPU device, at the emulated warp width: 16x16x16 fragments of half,
// bfloat16 and float. Each lane holds 256 / width consecutive elements of a fragment's tile in
// row-major order (CUDA leaves the layout unspecified; code that reads `x[]` only elementwise runs
// the same under any). mma_sync multiplies in float, in k order.
#pragma once
#include <type_traits>

#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "porter_emu_matrix.h"

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <typename Use, int M, int N, int K, typename T, typename Layout = void>
class fragment {
  static_assert(M == 16 && N == 16 && K == 16, "porter-emu: WMMA fragments of 16x16x16 only");

 public:
  typedef T element_type;
  static constexpr int num_elements = 256 / porter_emu::kWidth;
  T x[num_elements];
};

namespace detail {
inline int first() { return porter_emu::lane_id() * (256 / porter_emu::kWidth); }

// where element (row, column) of a tile sits in memory of leading dimension ldm
inline unsigned offset(int row, int column, unsigned ldm, bool by_rows) {
  return by_rows ? row * ldm + column : column * ldm + row;
}
}  // namespace detail

template <typename Use, int M, int N, int K, typename T, typename Layout, typename V>
inline void fill_fragment(fragment<Use, M, N, K, T, Layout>& f, const V& value) {
  for (int e = 0; e < f.num_elements; ++e) f.x[e] = static_cast<T>(value);
}

// matrix_a holds A (row i, column k), matrix_b holds B (row k, column j): both indexed row * 16 + column
template <typename Use, typename T, typename Layout>
inline void load_matrix_sync(fragment<Use, 16, 16, 16, T, Layout>& f, const T* p, unsigned ldm) {
  static_assert(!std::is_same<Use, accumulator>::value, "porter-emu: an accumulator load names its layout");
  for (int e = 0; e < f.num_elements; ++e) {
    const int index = detail::first() + e;
    f.x[e] = p[detail::offset(index / 16, index % 16, ldm, std::is_same<Layout, row_major>::value)];
  }
}

template <typename T>
inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, T>& f, const T* p, unsigned ldm, layout_t layout) {
  for (int e = 0; e < f.num_elements; ++e) {
    const int index = detail::first() + e;
    f.x[e] = p[detail::offset(index / 16, index % 16, ldm, layout == mem_row_major)];
  }
}

template <typename T>
inline void store_matrix_sync(T* p, const fragment<accumulator, 16, 16, 16, T>& f, unsigned ldm, layout_t layout) {
  for (int e = 0; e < f.num_elements; ++e) {
    const int index = detail::first() + e;
    p[detail::offset(index / 16, index % 16, ldm, layout == mem_row_major)] = f.x[e];
  }
}

template <typename TD, typename TA, typename LA, typename TB, typename LB, typename TC>
inline void mma_sync(fragment<accumulator, 16, 16, 16, TD>& d, const fragment<matrix_a, 16, 16, 16, TA, LA>& a,
                     const fragment<matrix_b, 16, 16, 16, TB, LB>& b, const fragment<accumulator, 16, 16, 16, TC>& c) {
  porter_emu::MatrixTiles& t = porter_emu::matrix_tiles();
  for (int e = 0; e < d.num_elements; ++e) {
    const int index = detail::first() + e;
    t.a[index] = static_cast<float>(a.x[e]);
    t.b[index] = static_cast<float>(b.x[e]);
    t.c[index] = static_cast<float>(c.x[e]);
  }
  porter_emu::matrix_meet("wmma::mma_sync");
  TD out[256 / porter_emu::kWidth];
  for (int e = 0; e < d.num_elements; ++e) {
    const int index = detail::first() + e;
    out[e] = static_cast<TD>(porter_emu::matrix_element(t, index / 16, index % 16));
  }
  porter_emu::matrix_meet("wmma::mma_sync");
  for (int e = 0; e < d.num_elements; ++e) d.x[e] = out[e];
}

}  // namespace wmma
}  // namespace nvcuda
