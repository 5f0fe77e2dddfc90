// Ampere and Hopper data movement: cp.async pipelines, TMA descriptors, mbarriers, clusters, wgmma.
#include <cuda_pipeline.h>  // expect: ASY001
#include <cuda/barrier>  // expect: ASY003
#include <cooperative_groups.h>  // expect: API005
#include <cuda.h>  // expect: API005
namespace cg = cooperative_groups;

__global__ void staged_copy(const float4* in, float4* out, int n) {
  __shared__ float4 stage[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) __pipeline_memcpy_async(&stage[threadIdx.x], &in[i], sizeof(float4));  // expect: ASY001
  __pipeline_commit();  // expect: ASY001
  __pipeline_wait_prior(0);  // expect: ASY001
  __syncthreads();
  if (i < n) out[i] = stage[threadIdx.x];
}

__device__ void cp_async_16(void* smem, const void* gmem) {
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(addr), "l"(gmem));  // expect: ASY001
  asm volatile("cp.async.commit_group;");  // expect: ASY001
  asm volatile("cp.async.wait_group 0;" ::: "memory");  // expect: ASY001
}

__global__ void with_barrier(float* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;  // expect: ASY003
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  bar.arrive_and_wait();
  out[threadIdx.x] = 1.0f;
}

__device__ void tma_load(void* smem, const CUtensorMap* map, int x, int y, unsigned long long* mbar) {  // expect: ASY002 API007
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(mbar));
  asm volatile(  // expect: ASY002
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      :: "r"(dst), "l"(map), "r"(x), "r"(y), "r"(bar) : "memory");
  asm volatile("mbarrier.try_wait.parity.shared::cta.b64 _, [%0], 0;" :: "r"(bar));  // expect: ASY003
}

__global__ void __cluster_dims__(2, 1, 1) cluster_kernel(float* out) {  // expect: ASY004
  cg::cluster_group cluster = cg::this_cluster();  // expect: ASY004 ASY004
  cluster.sync();
  out[blockIdx.x] = static_cast<float>(cluster.block_rank());
}

__device__ void warpgroup_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");  // expect: ASY005
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");  // expect: ASY005
}

// programmatic dependent launch, unguarded: compiled for HIP too, with nothing there to port
__global__ void released_early(float* out, int early) {
  if (early) {
    asm volatile("griddepcontrol.launch_dependents;");  // expect: ASY005
  }
  out[threadIdx.x] = 1.0f;
}
