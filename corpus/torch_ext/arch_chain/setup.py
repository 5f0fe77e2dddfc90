# Architectures chosen by compute capability in an if/elif/else chain: one decision, one finding
# (issue 14 counted one BLD004 per arm as noise). A flag outside the chain is its own finding.
import os

from setuptools import Extension, setup

nvcc_flags = ["-O3"]
capability = os.environ.get("TARGET_CAPABILITY", "90")
if capability == "90":
    nvcc_flags.append("-gencode=arch=compute_90a,code=sm_90a")  # expect: BLD004
elif capability == "80":
    nvcc_flags.append("-gencode=arch=compute_80,code=sm_80")
else:
    nvcc_flags.append("-arch=sm_70")
nvcc_flags.append("-gencode=arch=compute_75,code=sm_75")  # expect: BLD004

# the project's own build_ext passes nvcc_flags to nvcc
setup(name="chain_ext", ext_modules=[Extension("chain_ext._C", sources=["kernel.cu"])], options={"nvcc": nvcc_flags})
