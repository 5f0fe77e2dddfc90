// A convolution forward pass through cuDNN: MIOpen is a port, not a rename.
#include <cudnn.h>  // expect: LIB010

cudnnStatus_t conv_forward(cudnnHandle_t handle, cudnnTensorDescriptor_t x_desc, const float* x,  // expect: LIB010 LIB010 LIB010
                           cudnnFilterDescriptor_t w_desc, const float* w,  // expect: LIB010
                           cudnnConvolutionDescriptor_t conv_desc, void* workspace, size_t workspace_bytes,  // expect: LIB010
                           cudnnTensorDescriptor_t y_desc, float* y) {  // expect: LIB010
  const float alpha = 1.0f, beta = 0.0f;
  return cudnnConvolutionForward(handle, &alpha, x_desc, x, w_desc, w, conv_desc,  // expect: LIB010
                                 CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, workspace, workspace_bytes,  // expect: LIB010
                                 &beta, y_desc, y);
}
