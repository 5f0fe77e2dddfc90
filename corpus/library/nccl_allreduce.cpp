// A sum all-reduce across ranks: RCCL keeps NCCL's names, only the header changes.
#include <nccl.h>  // expect: LIB009
#include <cuda_runtime.h>  // expect: API005

ncclResult_t all_reduce(float* buf, size_t count, ncclComm_t comm, cudaStream_t stream) {  // expect: API003
  return ncclAllReduce(buf, buf, count, ncclFloat, ncclSum, comm, stream);
}
