"""porter: take CUDA code to AMD GPUs running ROCm/HIP, and prove the port behaves the same."""

__version__ = "0.1.0"
