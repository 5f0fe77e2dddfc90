// The CUDA runtime as porter's CPU emulator provides it (porter/verify/emulator).
#pragma once
#include "../porter_emu.h"
