// CUDA runtime and driver APIs that HIP lacks, or has only in releases newer than the default target (6.4).
#include <cuda_runtime.h>  // expect: API005
#include <cuda.h>  // expect: API005

__global__ void step(float* x) { x[threadIdx.x] += 1.0f; }

void cluster_occupancy(cudaLaunchConfig_t* config) {  // expect: API007
  int clusters = 0;
  cudaOccupancyMaxActiveClusters(&clusters, (void*)step, config);  // expect: API007
}

void conditional_graph(cudaGraph_t graph) {  // expect: API003
  cudaGraphConditionalHandle handle;  // expect: API007
  cudaGraphConditionalHandleCreate(&handle, graph, 0, 0);  // expect: API007
}

unsigned long long stream_id(cudaStream_t stream) {  // expect: API003
  unsigned long long id = 0;
  cudaStreamGetId(stream, &id);  // expect: API007
  return id;
}

void tensor_map(CUtensorMap* map, void* base) {  // expect: ASY002 API007
  cuuint64_t dims[2] = {1024, 1024};  // expect: API007
  cuuint64_t strides[1] = {1024 * sizeof(float)};  // expect: API007
  cuuint32_t box[2] = {64, 64};  // expect: API007
  cuuint32_t element_strides[2] = {1, 1};  // expect: API007
  cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box, element_strides,  // expect: API007 ASY002 API007
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,  // expect: API007 API007
                         CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);  // expect: API007 API007
}

void capture_into(cudaStream_t stream, cudaGraph_t graph) {  // expect: API003 API003
  cudaStreamBeginCaptureToGraph(stream, graph, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal);  // expect: API001 API004
}
