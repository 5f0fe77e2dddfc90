# A helper module that adds the CUDA language late.
enable_language(CUDA)  # expect: BLD001
find_package(CUDA 11 REQUIRED)  # expect: BLD002
set_target_properties(kernels PROPERTIES CUDA_ARCHITECTURES "80;90")  # expect: BLD004
target_link_libraries(kernels PRIVATE -lcufft -lnccl)  # expect: BLD003 BLD003
