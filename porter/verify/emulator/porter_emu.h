// porter_emu.h: a CPU device for `porter verify`, at a chosen warp width.
//
// A kernel's own source runs unchanged on the host compiler: the threads of a block are fibers
// (ucontext) on one host thread, blocks run in parallel on the host's cores, and the lanes of a
// warp meet in lockstep at every warp collective. The warp width is PORTER_EMULATOR (32 or 64):
// `warpSize`, the lane masks (64 bits wide at 64 lanes: a 32-bit mask names lanes 0-31 only, as
// on AMD), ballots, shuffles and their `width` segments all follow it. Built with g++ or clang.
//
// A barrier or collective that cannot complete, a lane calling a `_sync` collective whose mask
// does not name it, or a kernel that runs past its time limit end the program with a message that
// names the kernel and the construct: exit 124 for a hang, 125 for an error. Shared arrays are
// checked by -fsanitize=bounds where porter builds with it. Shared memory starts each block filled
// with a poison pattern, as a GPU's holds whatever the last kernel left: a port that reads slots no
// thread of the block wrote (a warp count worked out for 32 lanes) reads the poison, not zeros.
#ifndef PORTER_EMU_H
#define PORTER_EMU_H

#ifndef PORTER_EMULATOR
#define PORTER_EMULATOR 32
#endif

#include "porter_emu_std.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __constant__
#define __managed__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
// one block runs at a time on each host thread, and all its threads are fibers of that thread
#define __shared__ static thread_local

struct uint3 {
  unsigned x, y, z;
};
#define PORTER_EMU_VECTORS(T, N2, N3, N4)                                                        \
  struct N2 { T x, y; };                                                                         \
  struct N3 { T x, y, z; };                                                                      \
  struct alignas(4 * sizeof(T) <= 16 ? 4 * sizeof(T) : 16) N4 { T x, y, z, w; };                \
  inline N2 make_##N2(T x, T y) { return {x, y}; }                                               \
  inline N3 make_##N3(T x, T y, T z) { return {x, y, z}; }                                       \
  inline N4 make_##N4(T x, T y, T z, T w) { return {x, y, z, w}; }
PORTER_EMU_VECTORS(float, float2, float3, float4)
PORTER_EMU_VECTORS(int, int2, int3, int4)
PORTER_EMU_VECTORS(double, double2, double3, double4)
#undef PORTER_EMU_VECTORS
struct uint2 { unsigned x, y; };
struct uint4 { unsigned x, y, z, w; };
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

namespace porter_emu {

constexpr int kWidth = PORTER_EMULATOR;
static_assert(kWidth == 32 || kWidth == 64, "PORTER_EMULATOR is the warp width: 32 or 64");
using lane_mask = std::conditional_t<kWidth == 64, unsigned long long, unsigned>;
constexpr unsigned long long kFullMask = kWidth == 64 ? ~0ull : 0xffffffffull;

enum class Wait { kNone, kBarrier, kWarp, kDone };

struct Fiber {
  ucontext_t context;
  std::unique_ptr<char[]> stack;
  uint3 thread;
  int linear = 0;
  Wait wait = Wait::kNone;
  const char* site = "";
};

constexpr int kSlot = 16;  // bytes a lane may exchange: up to double2 / float4

// Lanes that meet at one collective: a `_sync` form's lanes are those its mask names (HIP and CUDA
// both let disjoint masks meet apart: the two 32-thread rows of a wave64 wavefront, each with its
// own half); a form without a mask takes the lanes that reach it while the warp's others wait
// elsewhere (a barrier, another collective) or have ended, as a divergent wavefront runs it.
struct Group {
  int kind = -1;  // -1: free
  const char* name = "";
  bool with_mask = false;
  unsigned long long mask = 0;          // what a `_sync` form's lanes gave
  unsigned long long participants = 0;  // the lanes it waits for (`_sync`), or that took part
  unsigned long long arrived = 0;
};

struct Warp {
  std::vector<Group> groups;
  alignas(16) unsigned char input[64][kSlot];
  alignas(16) unsigned char output[64][kSlot];
  long long parameter[64];
  int second[64];
};

struct Launch {
  const char* kernel = "";
  dim3 grid, block;
  size_t shared = 0;
};

struct Block {
  const Launch* launch = nullptr;
  uint3 index{0, 0, 0};
  int threads = 0;
  std::vector<Fiber> fibers;
  std::vector<Warp> warps;
  ucontext_t scheduler;
  int barrier_arrived = 0;
  const char* barrier_site = nullptr;
  std::vector<unsigned char> dynamic_shared;
  int live = 0;
  unsigned long long events = 0;  // arrivals at barriers and collectives, and exits: the block's progress
  unsigned long long spins = 0;   // atomics since the last event: threads that poll while others wait
};

// Every byte of a block's shared memory before any thread writes it: 0x7f7f7f7f is 3.4e38 as a
// float and 2139062143 as an int, so a sum or a maximum that takes an unwritten slot shows it.
constexpr unsigned char kPoison = 0x7f;
inline thread_local unsigned long long block_serial = 0;  // the blocks this host thread has begun
inline thread_local std::unordered_map<const void*, unsigned long long> poisoned_in_block;

// Called after each `__shared__` declaration (porter stages the sources so): the first thread of
// a block to reach it fills the variable; the others, and later passes, leave it alone.
inline void poison_shared(void* address, size_t bytes) {
  unsigned long long& serial = poisoned_in_block[address];
  if (serial == block_serial) return;
  serial = block_serial;
  std::memset(address, kPoison, bytes);
}

inline thread_local Block* current_block = nullptr;
inline thread_local Fiber* current_fiber = nullptr;
inline thread_local std::function<void()>* current_body = nullptr;

[[noreturn]] inline void stop(int code, const char* what, const char* detail) {
  const Block* block = current_block;
  std::fprintf(stderr, "porter-emu: %s: kernel %s, block (%u,%u,%u)%s%s, warp width %d\n", what,
               block && block->launch ? block->launch->kernel : "?", block ? block->index.x : 0,
               block ? block->index.y : 0, block ? block->index.z : 0, detail ? ": " : "", detail ? detail : "",
               kWidth);
  std::fflush(stderr);
  _exit(code);
}

inline int lane_id() { return current_fiber->linear % kWidth; }
inline int warp_id() { return current_fiber->linear / kWidth; }

// The warp's lanes whose thread exists and whose fiber `wanted` takes.
template <typename Wanted>
inline unsigned long long lanes_where(const Block& block, int warp, Wanted wanted) {
  unsigned long long lanes = 0;
  for (int lane = 0; lane < kWidth; ++lane) {
    int linear = warp * kWidth + lane;
    if (linear < block.threads && wanted(block.fibers[linear])) lanes |= 1ull << lane;
  }
  return lanes;
}

// Lanes that have not ended.
inline unsigned long long live_lanes(const Block& block, int warp) {
  return lanes_where(block, warp, [](const Fiber& f) { return f.wait != Wait::kDone; });
}

inline void yield_to_scheduler() { swapcontext(&current_fiber->context, &current_block->scheduler); }

// An atomic in a loop may be a thread polling for another one: let the others run, and count
// the polls, so that polling while the rest of the block waits at a barrier is found as a hang.
inline void spin_point() {
  Block* block = current_block;
  if (block == nullptr || current_fiber == nullptr) return;
  if (++block->spins % 64 == 0) yield_to_scheduler();
}

// -- warp collectives ---------------------------------------------------------------------------------

enum Kind { kShflIdx, kShflUp, kShflDown, kShflXor, kBallot, kMatchAny, kMatchAll, kSync, kReduce };

inline int source_lane(int kind, int lane, long long parameter, int width) {
  int base = (lane / width) * width;
  switch (kind) {
    case kShflIdx: return base + static_cast<int>(((parameter % width) + width) % width);
    case kShflUp: return lane - parameter < base ? lane : static_cast<int>(lane - parameter);
    case kShflDown: return lane + parameter >= base + width ? lane : static_cast<int>(lane + parameter);
    case kShflXor: {
      int other = lane ^ static_cast<int>(parameter);
      return other < base || other >= base + width ? lane : other;
    }
    default: return lane;
  }
}

inline void release(Warp& warp, Group& group, int warp_index) {
  Block& block = *current_block;
  for (int lane = 0; lane < kWidth; ++lane) {
    if (!(group.participants >> lane & 1)) continue;
    unsigned char* out = warp.output[lane];
    switch (group.kind) {
      case kShflIdx: case kShflUp: case kShflDown: case kShflXor: {
        int source = source_lane(group.kind, lane, warp.parameter[lane], warp.second[lane]);
        if (source >= 0 && source < kWidth && warp_index * kWidth + source >= block.threads) {
          // a lane past the block's last thread never ran: on AMD its register holds whatever an
          // earlier wavefront left there (TileLang's 64-lane butterfly in 32-thread blocks read NaN
          // and garbage so), here the shared-memory poison
          std::memset(out, kPoison, kSlot);
          break;
        }
        // a lane that takes no part has no value to give: the reader keeps its own, as AMD's bpermute of an idle lane
        if (source < 0 || source >= kWidth || !(group.participants >> source & 1)) source = lane;
        std::memcpy(out, warp.input[source], kSlot);
        break;
      }
      case kBallot: {
        unsigned long long bits = 0;
        for (int other = 0; other < kWidth; ++other)
          if ((group.participants >> other & 1) && warp.parameter[other]) bits |= 1ull << other;
        std::memcpy(out, &bits, sizeof bits);
        break;
      }
      case kMatchAny: case kMatchAll: {
        unsigned long long same = 0;
        for (int other = 0; other < kWidth; ++other)
          if ((group.participants >> other & 1) && std::memcmp(warp.input[other], warp.input[lane], kSlot) == 0)
            same |= 1ull << other;
        unsigned long long result = same;
        int all = same == group.participants;
        if (group.kind == kMatchAll) result = all ? same : 0;
        std::memcpy(out, &result, sizeof result);
        std::memcpy(out + 8, &all, sizeof all);
        break;
      }
      case kReduce: {
        long long op = warp.parameter[lane];
        unsigned long long acc = op == 1 ? ~0ull : 0;  // and starts all ones
        long long signed_acc = op == 3 ? INT64_MAX : op == 4 ? INT64_MIN : 0;
        bool first = true;
        for (int other = 0; other < kWidth; ++other) {
          if (!(group.participants >> other & 1)) continue;
          unsigned value;
          std::memcpy(&value, warp.input[other], 4);
          int signed_value = static_cast<int>(value);
          if (op == 0) acc += value;
          else if (op == 1) acc &= value;
          else if (op == 2) acc |= value;
          else if (op == 5) acc ^= value;
          else if (op == 3) signed_acc = first ? signed_value : std::min<long long>(signed_acc, signed_value);
          else if (op == 4) signed_acc = first ? signed_value : std::max<long long>(signed_acc, signed_value);
          first = false;
        }
        unsigned result = op == 3 || op == 4 ? static_cast<unsigned>(signed_acc) : static_cast<unsigned>(acc);
        std::memcpy(out, &result, 4);
        break;
      }
      default: break;
    }
    block.fibers[warp_index * kWidth + lane].wait = Wait::kNone;
  }
  group.kind = -1;
  group.arrived = 0;
}

// Lanes of the warp that can still arrive somewhere: running, neither waiting nor ended.
inline unsigned long long running_lanes(const Block& block, int warp) {
  return lanes_where(block, warp, [](const Fiber& f) { return f.wait == Wait::kNone; });
}

// Release each of the warp's collectives whose lanes are all there; called whenever a lane of the
// warp arrives at one, waits at a barrier or ends.
inline void try_release(int warp_index) {
  Block& block = *current_block;
  Warp& warp = block.warps[warp_index];
  for (Group& group : warp.groups) {
    if (group.kind < 0) continue;
    if (group.with_mask) {
      group.participants = group.mask & live_lanes(block, warp_index);
      if ((group.arrived & group.participants) == group.participants) release(warp, group, warp_index);
    } else if (!running_lanes(block, warp_index) && group.arrived) {
      group.participants = group.arrived;  // the rest wait elsewhere or have ended: they are not active here
      release(warp, group, warp_index);
    }
  }
}

// The group a lane joins: the pending one of the same mask (any mask-less one for a form without),
// else a new one. Lanes that meet one collective at different sites, or one mask at two, are an error.
inline Group& join(Warp& warp, int kind, const char* name, bool with_mask, unsigned long long mask, int index) {
  for (Group& group : warp.groups) {
    if (group.kind < 0 || group.with_mask != with_mask || (with_mask && group.mask != mask)) continue;
    if (group.kind != kind || std::strcmp(group.name, name) != 0) {
      char detail[200];
      std::snprintf(detail, sizeof detail, "lanes of warp %d meet at different collectives (%s and %s)", index,
                    group.name, name);
      stop(125, "error", detail);
    }
    return group;
  }
  for (Group& group : warp.groups) {
    if (group.kind >= 0 && with_mask && group.with_mask && (group.mask & mask)) {
      char detail[200];
      std::snprintf(detail, sizeof detail, "lanes of warp %d call %s and %s with overlapping masks 0x%llx and 0x%llx",
                    index, group.name, name, group.mask, mask);
      stop(125, "error", detail);
    }
  }
  Group* free = nullptr;
  for (Group& group : warp.groups)
    if (group.kind < 0) free = &group;
  if (free == nullptr) free = &warp.groups.emplace_back();
  *free = Group{kind, name, with_mask, mask, 0, 0};
  return *free;
}

// Every lane of a collective deposits its value and parameter, then waits until all the lanes
// taking part have come; the last arrival computes every lane's result.
template <typename T>
inline void collective(int kind, const char* name, unsigned long long mask, bool with_mask, const T& value,
                       long long parameter, int second, unsigned char* result) {
  static_assert(sizeof(T) <= kSlot, "porter-emu: a value wider than 16 bytes in a warp collective");
  Block& block = *current_block;
  int lane = lane_id(), index = warp_id();
  Warp& warp = block.warps[index];
  if (with_mask) {
    mask &= kFullMask;
    if (!(mask >> lane & 1)) {
      char detail[160];
      std::snprintf(detail, sizeof detail, "lane %d calls %s with mask 0x%llx, which does not name it", lane, name, mask);
      stop(125, "error", detail);
    }
  }
  Group& group = join(warp, kind, name, with_mask, mask, index);
  std::memset(warp.input[lane], 0, kSlot);
  std::memcpy(warp.input[lane], &value, sizeof(T));
  warp.parameter[lane] = parameter;
  warp.second[lane] = second;
  group.arrived |= 1ull << lane;
  ++block.events;
  current_fiber->wait = Wait::kWarp;
  current_fiber->site = name;
  try_release(index);
  // the lane whose arrival released the others waits its turn too: the warp's lanes resume in the
  // scheduler's order, none run ahead into the next step (lanes that read what another writes
  // between two collectives race, and the scheduler's order is what verify varies to find it)
  do yield_to_scheduler();
  while (current_fiber->wait == Wait::kWarp);
  std::memcpy(result, warp.output[lane], kSlot);
}

template <typename T>
inline T shuffle(int kind, const char* name, unsigned long long mask, bool with_mask, T value, long long parameter,
                 int width) {
  if (width <= 0 || width > kWidth || (width & (width - 1))) width = kWidth;
  alignas(16) unsigned char out[kSlot];
  collective(kind, name, mask, with_mask, value, parameter, width, out);
  T result;
  std::memcpy(&result, out, sizeof(T));
  return result;
}

inline unsigned long long vote(const char* name, unsigned long long mask, bool with_mask, int predicate) {
  alignas(16) unsigned char out[kSlot];
  collective(kBallot, name, mask, with_mask, 0, predicate != 0, 0, out);
  unsigned long long bits;
  std::memcpy(&bits, out, 8);
  return bits;
}

template <typename T>
inline unsigned long long match(int kind, const char* name, unsigned long long mask, T value, int* all) {
  alignas(16) unsigned char out[kSlot];
  collective(kind, name, mask, true, value, 0, 0, out);
  unsigned long long bits;
  std::memcpy(&bits, out, 8);
  if (all) std::memcpy(all, out + 8, sizeof(int));
  return bits;
}

inline unsigned reduce(const char* name, unsigned long long mask, unsigned value, int op) {
  alignas(16) unsigned char out[kSlot];
  collective(kReduce, name, mask, true, value, op, 0, out);
  unsigned result;
  std::memcpy(&result, out, 4);
  return result;
}

// -- block barrier ------------------------------------------------------------------------------------

inline void barrier(const char* name) {
  Block& block = *current_block;
  current_fiber->wait = Wait::kBarrier;
  current_fiber->site = name;
  ++block.events;
  ++block.barrier_arrived;
  if (block.barrier_arrived == block.live) {  // every thread still running is here
    for (Fiber& fiber : block.fibers)
      if (fiber.wait == Wait::kBarrier) fiber.wait = Wait::kNone;
    block.barrier_arrived = 0;
  } else {
    try_release(warp_id());  // lanes of its warp that diverged to a collective without a mask go on alone
  }
  do yield_to_scheduler();  // the last to arrive resumes in the scheduler's order, as collective's lanes do
  while (current_fiber->wait == Wait::kBarrier);
}

// -- running a grid -----------------------------------------------------------------------------------

inline void fiber_entry(unsigned high, unsigned low) {
  (void)high;
  (void)low;
  (*current_body)();
  Block& block = *current_block;
  current_fiber->wait = Wait::kDone;
  ++block.events;
  --block.live;
  // a thread that ends may complete a barrier or a collective that waited only for it
  if (block.barrier_arrived && block.barrier_arrived == block.live) {
    for (Fiber& fiber : block.fibers)
      if (fiber.wait == Wait::kBarrier) fiber.wait = Wait::kNone;
    block.barrier_arrived = 0;
  }
  try_release(warp_id());
  setcontext(&block.scheduler);
}

inline size_t stack_bytes() {
  const char* text = std::getenv("PORTER_EMU_STACK");
  return text ? static_cast<size_t>(std::atol(text)) : 256 * 1024;
}

inline void describe_deadlock(Block& block) {
  int at_barrier = 0, at_warp = 0;
  const char* warp_site = "";
  for (Fiber& fiber : block.fibers) {
    if (fiber.wait == Wait::kBarrier) ++at_barrier;
    if (fiber.wait == Wait::kWarp) ++at_warp, warp_site = fiber.site;
  }
  char detail[240];
  int polling = block.live - at_barrier - at_warp;
  if (at_barrier && block.live > at_barrier)
    std::snprintf(detail, sizeof detail,
                  "__syncthreads reached by %d of %d running threads (%d wait at %s, %d poll without end): the barrier "
                  "never completes",
                  at_barrier, block.live, at_warp, at_warp ? warp_site : "a collective", polling);
  else
    std::snprintf(detail, sizeof detail, "%d thread(s) wait at %s whose other lanes never arrive", at_warp, warp_site);
  stop(124, "hang", detail);
}

// The order each round runs the block's ready threads in: the threads' order by default, the
// reverse under PORTER_EMU_ORDER=descending. A kernel whose outputs differ between the two has
// threads that read what others write with no barrier or warp collective between: a race, whose
// outcome on a GPU no order of the CPU device's can stand for.
inline bool lanes_descending() {
  const char* text = std::getenv("PORTER_EMU_ORDER");
  return text != nullptr && std::strcmp(text, "descending") == 0;
}

inline void run_block(const Launch& launch, uint3 index, std::function<void()>& body) {
  Block block;
  block.launch = &launch;
  block.index = index;
  block.threads = static_cast<int>(launch.block.x * launch.block.y * launch.block.z);
  block.live = block.threads;
  block.fibers.resize(block.threads);
  block.warps.resize((block.threads + kWidth - 1) / kWidth);
  block.dynamic_shared.assign(launch.shared ? launch.shared : 1, kPoison);
  ++block_serial;
  current_block = &block;
  current_body = &body;
  const size_t bytes = stack_bytes();
  for (int t = 0; t < block.threads; ++t) {
    Fiber& fiber = block.fibers[t];
    fiber.linear = t;
    fiber.thread = {t % launch.block.x, (t / launch.block.x) % launch.block.y, t / (launch.block.x * launch.block.y)};
    fiber.stack.reset(new char[bytes]);
    getcontext(&fiber.context);
    fiber.context.uc_stack.ss_sp = fiber.stack.get();
    fiber.context.uc_stack.ss_size = bytes;
    fiber.context.uc_link = nullptr;
    makecontext(&fiber.context, reinterpret_cast<void (*)()>(fiber_entry), 2, 0u, 0u);
  }
  unsigned long long events = 0, polls_without_event = 0;
  const bool descending = lanes_descending();
  while (block.live > 0) {
    bool progressed = false;
    for (int t = 0; t < block.threads; ++t) {
      Fiber& fiber = block.fibers[descending ? block.threads - 1 - t : t];
      if (fiber.wait != Wait::kNone) continue;
      current_fiber = &fiber;
      swapcontext(&block.scheduler, &fiber.context);
      progressed = true;
    }
    if (!progressed && block.live > 0) describe_deadlock(block);
    // threads that only poll atomics while the others wait: nothing they do can release a barrier
    polls_without_event = block.events == events ? polls_without_event + 1 : 0;
    events = block.events;
    bool someone_waits = std::any_of(block.fibers.begin(), block.fibers.end(),
                                     [](const Fiber& f) { return f.wait == Wait::kBarrier || f.wait == Wait::kWarp; });
    if (someone_waits && polls_without_event > 20000 && block.spins > 1000000) describe_deadlock(block);
  }
  current_fiber = nullptr;
  current_block = nullptr;
}

inline double time_limit() {
  const char* text = std::getenv("PORTER_EMU_TIMEOUT");
  return text ? std::atof(text) : 60.0;
}

// A launch the GPU refuses (cudaErrorInvalidConfiguration, hipErrorInvalidConfiguration): a block of
// more than 1024 threads, or beyond an axis's extent. The CPU device could run it, and a port that
// widened a block past the limit (32 warps of 32 lanes become 32 wavefronts of 64) would pass here
// and never start on the GPU: the emulator stops instead.
inline void check_configuration(const char* kernel, dim3 grid, dim3 block) {
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  const char* fault = nullptr;
  if (threads == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0) fault = "an empty grid or block";
  else if (threads > 1024) fault = "more than 1024 threads in a block";
  else if (block.z > 64) fault = "a block deeper than 64 threads";
  else if (grid.y > 65535 || grid.z > 65535) fault = "a grid taller or deeper than 65535 blocks";
  if (fault == nullptr) return;
  std::fprintf(stderr,
               "porter-emu: error: kernel %s: launch of grid (%u,%u,%u), block (%u,%u,%u) = %llu threads: %s, which "
               "the GPU refuses (the launch fails), warp width %d\n",
               kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z, threads, fault, kWidth);
  std::fflush(stderr);
  _exit(125);
}

inline void launch_grid(const char* kernel, dim3 grid, dim3 block, size_t shared, std::function<void()> body) {
  check_configuration(kernel, grid, block);
  static Launch launch;
  launch = Launch{kernel, grid, block, shared};
  const unsigned long long blocks = 1ull * grid.x * grid.y * grid.z;
  std::atomic<unsigned long long> next{0};
  std::atomic<bool> finished{false};
  std::thread watchdog([&] {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_limit());
    while (!finished.load()) {
      if (std::chrono::steady_clock::now() > deadline) {
        char detail[160];
        std::snprintf(detail, sizeof detail, "not finished after %.0f s (a barrier or spin loop that never ends)",
                      time_limit());
        std::fprintf(stderr, "porter-emu: hang: kernel %s: %s, warp width %d\n", kernel, detail, kWidth);
        std::fflush(stderr);
        _exit(124);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  auto worker = [&] {
    for (unsigned long long b; (b = next.fetch_add(1)) < blocks;) {
      uint3 index{static_cast<unsigned>(b % grid.x), static_cast<unsigned>((b / grid.x) % grid.y),
                  static_cast<unsigned>(b / (1ull * grid.x * grid.y))};
      std::function<void()> copy = body;
      run_block(launch, index, copy);
    }
  };
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> workers;
  for (unsigned i = 1; i < std::min<unsigned long long>(cores, blocks); ++i) workers.emplace_back(worker);
  worker();
  for (auto& w : workers) w.join();
  finished = true;
  watchdog.join();
}

inline void* dynamic_shared() { return current_block->dynamic_shared.data(); }

}  // namespace porter_emu

// -- the built-in variables ---------------------------------------------------------------------------
#define threadIdx (porter_emu::current_fiber->thread)
#define blockIdx (porter_emu::current_block->index)
#define blockDim (porter_emu::current_block->launch->block)
#define gridDim (porter_emu::current_block->launch->grid)
static constexpr int warpSize = PORTER_EMULATOR;

// -- barriers and fences ------------------------------------------------------------------------------
inline void __syncthreads() { porter_emu::barrier("__syncthreads"); }
inline int __syncthreads_count(int p) {
  static thread_local int count;
  porter_emu::barrier("__syncthreads_count");
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) count = 0;
  porter_emu::barrier("__syncthreads_count");
  if (p) __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED);
  porter_emu::barrier("__syncthreads_count");
  return count;
}
inline int __syncthreads_and(int p) { return __syncthreads_count(p != 0) == porter_emu::current_block->live; }
inline int __syncthreads_or(int p) { return __syncthreads_count(p != 0) > 0; }
inline void __syncwarp(unsigned long long mask = porter_emu::kFullMask) {
  alignas(16) unsigned char out[porter_emu::kSlot];
  porter_emu::collective(porter_emu::kSync, "__syncwarp", mask, true, 0, 0, 0, out);
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// -- warp collectives, with and without _sync ---------------------------------------------------------
#define PORTER_EMU_SHUFFLES(name, kind)                                                                   \
  template <typename T>                                                                                 \
  inline T name##_sync(unsigned long long mask, T v, long long p, int width = warpSize) {               \
    return porter_emu::shuffle(porter_emu::kind, #name "_sync", mask, true, v, p, width);               \
  }                                                                                                     \
  template <typename T>                                                                                 \
  inline T name(T v, long long p, int width = warpSize) {                                               \
    return porter_emu::shuffle(porter_emu::kind, #name, 0, false, v, p, width);                         \
  }
PORTER_EMU_SHUFFLES(__shfl, kShflIdx)
PORTER_EMU_SHUFFLES(__shfl_up, kShflUp)
PORTER_EMU_SHUFFLES(__shfl_down, kShflDown)
PORTER_EMU_SHUFFLES(__shfl_xor, kShflXor)
#undef PORTER_EMU_SHUFFLES

inline porter_emu::lane_mask __ballot_sync(unsigned long long mask, int p) {
  return static_cast<porter_emu::lane_mask>(porter_emu::vote("__ballot_sync", mask, true, p));
}
inline unsigned long long __ballot(int p) { return porter_emu::vote("__ballot", 0, false, p); }
inline int __any_sync(unsigned long long mask, int p) { return porter_emu::vote("__any_sync", mask, true, p) != 0; }
inline int __all_sync(unsigned long long mask, int p) {
  unsigned long long bits = porter_emu::vote("__all_sync", mask, true, p);
  return bits == (mask & porter_emu::kFullMask & porter_emu::live_lanes(*porter_emu::current_block, porter_emu::warp_id()));
}
inline int __any(int p) { return porter_emu::vote("__any", 0, false, p) != 0; }
inline int __all(int p) {
  return porter_emu::vote("__all", 0, false, p) == porter_emu::live_lanes(*porter_emu::current_block, porter_emu::warp_id());
}
inline porter_emu::lane_mask __activemask() {
  return static_cast<porter_emu::lane_mask>(porter_emu::live_lanes(*porter_emu::current_block, porter_emu::warp_id()));
}
template <typename T>
inline porter_emu::lane_mask __match_any_sync(unsigned long long mask, T v) {
  return static_cast<porter_emu::lane_mask>(porter_emu::match(porter_emu::kMatchAny, "__match_any_sync", mask, v, nullptr));
}
template <typename T>
inline porter_emu::lane_mask __match_all_sync(unsigned long long mask, T v, int* pred) {
  return static_cast<porter_emu::lane_mask>(porter_emu::match(porter_emu::kMatchAll, "__match_all_sync", mask, v, pred));
}
inline unsigned __reduce_add_sync(unsigned long long m, unsigned v) { return porter_emu::reduce("__reduce_add_sync", m, v, 0); }
inline unsigned __reduce_and_sync(unsigned long long m, unsigned v) { return porter_emu::reduce("__reduce_and_sync", m, v, 1); }
inline unsigned __reduce_or_sync(unsigned long long m, unsigned v) { return porter_emu::reduce("__reduce_or_sync", m, v, 2); }
inline unsigned __reduce_xor_sync(unsigned long long m, unsigned v) { return porter_emu::reduce("__reduce_xor_sync", m, v, 5); }
inline int __reduce_min_sync(unsigned long long m, int v) { return static_cast<int>(porter_emu::reduce("__reduce_min_sync", m, static_cast<unsigned>(v), 3)); }
inline int __reduce_max_sync(unsigned long long m, int v) { return static_cast<int>(porter_emu::reduce("__reduce_max_sync", m, static_cast<unsigned>(v), 4)); }
inline unsigned __lane_id() { return static_cast<unsigned>(porter_emu::lane_id()); }
// PTX's lane-mask registers (porter/verify/emulate.py rewrites the asm that reads one): every lane of
// the warp counts, taking part or not; a lane past the top bit shifts to 0
inline porter_emu::lane_mask porter_emu_lanemask_eq() { return static_cast<porter_emu::lane_mask>(1ull << porter_emu::lane_id()); }
inline porter_emu::lane_mask porter_emu_lanemask_lt() { return static_cast<porter_emu::lane_mask>((1ull << porter_emu::lane_id()) - 1); }
inline porter_emu::lane_mask porter_emu_lanemask_le() { return static_cast<porter_emu::lane_mask>(porter_emu_lanemask_lt() | porter_emu_lanemask_eq()); }
inline porter_emu::lane_mask porter_emu_lanemask_gt() { return static_cast<porter_emu::lane_mask>(porter_emu::kFullMask & ~static_cast<unsigned long long>(porter_emu_lanemask_le())); }
inline porter_emu::lane_mask porter_emu_lanemask_ge() { return static_cast<porter_emu::lane_mask>(porter_emu::kFullMask & ~static_cast<unsigned long long>(porter_emu_lanemask_lt())); }
// HIP's own: the lanes below or above the caller among those taking part (a ballot of 1)
inline unsigned long long __lanemask_lt() { return porter_emu_lanemask_lt() & static_cast<unsigned long long>(__activemask()); }
inline unsigned long long __lanemask_gt() { return porter_emu_lanemask_gt() & static_cast<unsigned long long>(__activemask()); }
inline unsigned long long __lanemask_eq() { return porter_emu_lanemask_eq(); }

// -- bit intrinsics -----------------------------------------------------------------------------------
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}

// -- atomics: global memory is shared by blocks running on several host threads -----------------------
template <typename T>
inline T porter_emu_atomic_update(T* address, T value, T (*op)(T, T)) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "porter-emu: atomics on 4- and 8-byte values");
  porter_emu::spin_point();
  using Bits = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
  Bits* raw = reinterpret_cast<Bits*>(address);
  Bits expected = __atomic_load_n(raw, __ATOMIC_SEQ_CST);
  for (;;) {
    T old;
    std::memcpy(&old, &expected, sizeof(T));
    T updated = op(old, value);
    Bits desired;
    std::memcpy(&desired, &updated, sizeof(T));
    if (__atomic_compare_exchange_n(raw, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return old;
  }
}
template <typename T> inline T atomicAdd(T* a, T v) { return porter_emu_atomic_update<T>(a, v, [](T x, T y) { return T(x + y); }); }
template <typename T> inline T atomicSub(T* a, T v) { return porter_emu_atomic_update<T>(a, v, [](T x, T y) { return T(x - y); }); }
template <typename T> inline T atomicExch(T* a, T v) { return porter_emu_atomic_update<T>(a, v, [](T, T y) { return y; }); }
template <typename T> inline T atomicMin(T* a, T v) { return porter_emu_atomic_update<T>(a, v, [](T x, T y) { return y < x ? y : x; }); }
template <typename T> inline T atomicMax(T* a, T v) { return porter_emu_atomic_update<T>(a, v, [](T x, T y) { return y > x ? y : x; }); }
template <typename T> inline T atomicAnd(T* a, T v) { return porter_emu_atomic_update<T>(a, v, [](T x, T y) { return T(x & y); }); }
template <typename T> inline T atomicOr(T* a, T v) { return porter_emu_atomic_update<T>(a, v, [](T x, T y) { return T(x | y); }); }
template <typename T> inline T atomicXor(T* a, T v) { return porter_emu_atomic_update<T>(a, v, [](T x, T y) { return T(x ^ y); }); }
inline unsigned atomicInc(unsigned* a, unsigned limit) {
  return porter_emu_atomic_update<unsigned>(a, limit, [](unsigned x, unsigned l) { return x >= l ? 0u : x + 1; });
}
template <typename T> inline T atomicCAS(T* a, T compare, T value) {
  porter_emu::spin_point();
  T expected = compare;
  __atomic_compare_exchange_n(a, &expected, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
template <typename T> inline T __ldg(const T* p) { return *p; }

// -- math ---------------------------------------------------------------------------------------------
using std::max;
using std::min;
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline unsigned __float_as_uint(float x) { unsigned u; std::memcpy(&u, &x, 4); return u; }
inline float __uint_as_float(unsigned u) { float x; std::memcpy(&x, &u, 4); return x; }
inline int __float_as_int(float x) { int u; std::memcpy(&u, &x, 4); return u; }
inline float __int_as_float(int u) { float x; std::memcpy(&x, &u, 4); return x; }

#include "porter_emu_runtime.h"

#endif  // PORTER_EMU_H
