// Profiler ranges around a training step.
#include <nvToolsExt.h>  // expect: LIB013

void step(int iteration) {
  nvtxRangePushA("step");  // expect: LIB013
  (void)iteration;
  nvtxRangePop();  // expect: LIB013
}
