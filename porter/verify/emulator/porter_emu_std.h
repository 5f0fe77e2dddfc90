// porter_emu_std.h: the system headers of the CPU device and of every verify harness, in one place so
// that porter can precompile them once per run (they are most of each harness's build time) and give
// them to each build with `-include`. Every harness includes all of them before any kernel source,
// so a harness means the same with or without the precompiled copy.
#ifndef PORTER_EMU_STD_H
#define PORTER_EMU_STD_H

#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#endif
