# A minimal PyTorch CUDA extension: one binding file, one kernel file.
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="scale_ext",
    ext_modules=[
        CUDAExtension(
            name="scale_ext._C",
            sources=["csrc/binding.cpp", "csrc/scale_kernel.cu"],
            libraries=["cublas"],  # expect: BLD003
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "-arch=sm_90", "--use_fast_math"]},  # expect: BLD004 TRX003
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
