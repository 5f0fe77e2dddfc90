// corpus: nvcc
// A host thread hands work to a stream through sequence flags that the GPU's front end waits on,
// as exllamav3's CPU-offloaded MoE does (cpu/moe_handoff.cu). CUDA's GEQ wait compares
// cyclically, `(int32_t)(*addr - value) >= 0`; HIP's `hipStreamWaitValueGte` is a plain unsigned
// `>=`: a 32-bit sequence that wraps is waited for wrongly once ported. A 64-bit wait does not
// wrap, and equality does not depend on the order. Written for porter.
#include <cuda.h>  // expect: API005
#include <cstdint>

typedef CUresult (*wait32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);  // expect: API003 API003 API003 API007

CUresult wait_for_sequence(wait32_fn wait, CUstream stream, CUdeviceptr flag, uint32_t sequence) {  // expect: API003 API003 API003
  return wait(stream, flag, (cuuint32_t) sequence, CU_STREAM_WAIT_VALUE_GEQ);  // expect: API007 API004 API011
}

CUresult wait_for_sequence64(CUstream stream, CUdeviceptr flag, uint64_t sequence) {  // expect: API003 API003 API003
  return cuStreamWaitValue64(stream, flag, (cuuint64_t) sequence, CU_STREAM_WAIT_VALUE_GEQ);  // expect: API004 API007 API004
}

CUresult wait_for_exact(CUstream stream, CUdeviceptr flag, uint32_t sequence) {  // expect: API003 API003 API003
  return cuStreamWaitValue32(stream, flag, (cuuint32_t) sequence, CU_STREAM_WAIT_VALUE_EQ);  // expect: API004 API007 API004
}
