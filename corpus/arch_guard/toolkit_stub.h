// A build without any GPU toolkit (the shape of cupy's stub backend) defines the toolkit's version
// macros itself: the definitions use nothing, and the file's own tests and uses of them mean what
// it defines, on every compiler.
#pragma once
#define CUDA_VERSION 0
#define CUDART_VERSION 0

static const int stub_runtime_version = CUDART_VERSION;

#if CUDA_VERSION >= 11000
#define STUB_HAS_GRAPHS 1
#else
#define STUB_HAS_GRAPHS 0
#endif
