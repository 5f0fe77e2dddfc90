// Static shared memory beyond 64 KiB. NVIDIA caps static shared memory at 48 KiB too, so this
// only builds where platform macros pick the sizes; porter reports it per AMD target all the same.
#include "tile_config.h"

#define ROWS 96
#define COLS 192

__global__ void too_big(float* out) {
  __shared__ float tile[ROWS][COLS];  // expect: LDS001
  tile[threadIdx.y][threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x % ROWS][threadIdx.y];
}

typedef struct {
  double values[4096];
  double weights[4100];
} Workspace;

__global__ void hidden_size(double* out) {
  __shared__ Workspace ws;  // expect: LDS001  (the struct sized from its fields, no libclang)
  ws.values[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = ws.values[threadIdx.x] * ws.weights[threadIdx.x];
}
