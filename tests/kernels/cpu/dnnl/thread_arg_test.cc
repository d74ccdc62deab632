// dnnl_thread_arg (dnnl/runtime.h): one memory object per thread, argument and layout, pointed
// at each call's data; distinct objects for two arguments of one layout and for two threads;
// the handles of a call in progress stay valid while over a thousand other layouts come and go;
// and a primitive run through the reused objects reads and writes the data of each call.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "kernels/cpu/dnnl/runtime.h"

namespace geon::cpu {
namespace {

using dnnl::memory;

memory::desc plain(memory::dim rows, memory::dim cols) {
  return memory::desc({rows, cols}, memory::data_type::f32, memory::format_tag::ab);
}

void* handle_data(dnnl_memory_t m) {
  void* p = nullptr;
  EXPECT_EQ(dnnl_memory_get_data_handle(m, &p), dnnl_success);
  return p;
}

TEST(DnnlThreadArg, ReusesOneObjectPerArgumentAndLayoutPointedAtEachCallsData) {
  float a[6] = {}, b[6] = {};
  const dnnl_exec_arg_t first = dnnl_thread_arg(DNNL_ARG_SRC, plain(2, 3), a);
  const dnnl_exec_arg_t again = dnnl_thread_arg(DNNL_ARG_SRC, plain(2, 3), b);
  EXPECT_EQ(first.arg, DNNL_ARG_SRC);
  EXPECT_EQ(first.memory, again.memory);
  EXPECT_EQ(handle_data(again.memory), b);

  // Another argument of the same layout (a depthwise layer's src and dst) and another layout.
  const dnnl_exec_arg_t dst = dnnl_thread_arg(DNNL_ARG_DST, plain(2, 3), a);
  const dnnl_exec_arg_t other = dnnl_thread_arg(DNNL_ARG_SRC, plain(3, 2), a);
  EXPECT_NE(dst.memory, again.memory);
  EXPECT_NE(other.memory, again.memory);
  EXPECT_EQ(handle_data(again.memory), b);  // untouched by the other requests
}

TEST(DnnlThreadArg, HandlesOfACallOutliveATurnoverOfLayouts) {
  // On a fresh thread, whose maps are empty: 1500 layouts after the held one turn the current
  // generation over once (on a thread that earlier tests filled, they could turn it twice).
  std::thread([] {
    float src[4] = {}, dst[4] = {};
    const dnnl_exec_arg_t held = dnnl_thread_arg(DNNL_ARG_SRC, plain(2, 2), src);
    for (memory::dim n = 1; n <= 1500; ++n) dnnl_thread_arg(DNNL_ARG_DST, plain(1, n), dst);
    // Still a live object (under ASan a freed one would be reported here).
    EXPECT_EQ(handle_data(held.memory), src);
  }).join();
}

TEST(DnnlThreadArg, EachThreadHasItsOwnObjects) {
  float a[6] = {}, b[6] = {};
  const dnnl_exec_arg_t mine = dnnl_thread_arg(DNNL_ARG_SRC, plain(2, 3), a);
  dnnl_memory_t theirs = nullptr;
  std::thread([&] { theirs = dnnl_thread_arg(DNNL_ARG_SRC, plain(2, 3), b).memory; }).join();
  EXPECT_NE(mine.memory, theirs);
  EXPECT_EQ(handle_data(mine.memory), a);
}

TEST(DnnlThreadArg, APrimitiveRunThroughReusedObjectsUsesEachCallsData) {
  // A transposing reorder (2x3 row-major into column-major), run twice on different buffers.
  const memory::desc from = plain(2, 3);
  const memory::desc to({2, 3}, memory::data_type::f32, memory::format_tag::ba);
  const dnnl::reorder r(dnnl::reorder::primitive_desc(dnnl_engine(), from, dnnl_engine(), to));
  for (int round = 0; round < 2; ++round) {
    std::vector<float> in(6), out(6, -1.0f);
    for (int i = 0; i < 6; ++i) in[i] = static_cast<float>(10 * round + i);
    const dnnl_exec_arg_t args[] = {dnnl_thread_arg(DNNL_ARG_FROM, from, in.data()),
                                    dnnl_thread_arg(DNNL_ARG_TO, to, out.data())};
    dnnl_run(r, args, memory::desc(), 0, "reorder failed");
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(out[j * 2 + i], in[i * 3 + j]) << round;
  }
}

}  // namespace
}  // namespace geon::cpu
