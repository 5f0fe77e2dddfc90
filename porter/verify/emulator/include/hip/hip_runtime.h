// The HIP runtime as porter's CPU emulator provides it (porter/verify/emulator): a HIP port's
// kernels run on the same CPU device as the CUDA original, at the target's wavefront width.
#pragma once
#include "../../porter_emu.h"
