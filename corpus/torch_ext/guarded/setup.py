# A setup script that assumes CUDA: it aborts or misbuilds under a ROCm torch.
import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CUDAExtension

assert CUDA_HOME is not None, "CUDA is required"  # expect: TRX003
cuda_major = int(torch.version.cuda.split(".")[0])  # expect: TRX003

setup(
    name="guards_ext",
    ext_modules=[
        CUDAExtension(
            "guards_ext._C",
            ["csrc/binding.cpp", "csrc/warp_helpers.cu"],
            include_dirs=["/usr/local/cuda/include"],  # expect: TRX003
            extra_compile_args={"nvcc": ["--expt-relaxed-constexpr", "-Xptxas=-v", "-lineinfo"]},  # expect: TRX003 TRX003 TRX003
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
