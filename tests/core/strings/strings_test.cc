// String storage (core/strings): stored bytes keep their address while the arena lives, a scope
// makes one arena current per run and nested scopes share it, detached strings outlive the
// arena they came from, and the engine's assign copies string handles through any view.
#include "core/strings/strings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/engine/engine.h"

namespace geon {
namespace {

TEST(StringArena, StoredStringsStayPut) {
  StringArena a;
  std::vector<StringElem> e;
  std::vector<std::string> want;
  for (int i = 0; i < 5000; ++i) {  // several blocks, and one string bigger than a block
    want.push_back(std::string(static_cast<size_t>(i % 97), static_cast<char>('a' + i % 26)));
    if (i == 2500) want.back() = std::string(200000, 'z');
    e.push_back(a.store(want.back()));
  }
  for (size_t i = 0; i < e.size(); ++i) EXPECT_EQ(e[i].view(), want[i]) << i;
  EXPECT_EQ(a.store("").size, 0u);
}

TEST(StringScope, NestedScopesShareTheOuterArena) {
  StringArena* outer = nullptr;
  {
    StringScope s;
    outer = &current_string_arena();
    {
      StringScope inner;
      EXPECT_EQ(&current_string_arena(), outer);
    }
    EXPECT_EQ(&current_string_arena(), outer);
  }
  StringScope again;
  EXPECT_NE(&current_string_arena(), nullptr);
}

TEST(StringArena, DetachedStringsOutliveTheirSource) {
  std::vector<StringElem> e;
  std::shared_ptr<StringArena> kept;
  {
    StringArena temp;
    e = {temp.store("hello"), temp.store(""), temp.store("wörld")};
    kept = detach_strings(e.data(), static_cast<int64_t>(e.size()));
  }
  EXPECT_EQ(e[0].view(), "hello");
  EXPECT_EQ(e[1].view(), "");
  EXPECT_EQ(e[2].view(), "wörld");
  EXPECT_EQ(detach_strings(e.data(), 0), nullptr);
}

TEST(StringAssign, CopiesHandlesThroughTransposeAndBroadcast) {
  StringArena a;
  std::vector<StringElem> src;
  for (const char* s : {"a", "b", "c", "d", "e", "f"}) src.push_back(a.store(s));
  // [2, 3] seen transposed as [3, 2].
  const TensorDesc t = permute(row_major(DType::kString, Dims{2, 3}), std::vector<int64_t>{1, 0});
  std::vector<StringElem> dst(6);
  assign(Operand{row_major(DType::kString, Dims{3, 2}), dst.data()}, ConstOperand(t, src.data()));
  const char* want[] = {"a", "d", "b", "e", "c", "f"};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(dst[i].view(), want[i]);
  // A row broadcast over 4 rows.
  std::vector<StringElem> wide(12);
  assign(Operand{row_major(DType::kString, Dims{4, 3}), wide.data()},
         ConstOperand(row_major(DType::kString, Dims{3}), src.data()));
  for (int i = 0; i < 12; ++i) EXPECT_EQ(wide[i].view(), src[i % 3].view());
  // Strings and numbers do not convert into each other through assign.
  std::vector<float> f(3);
  EXPECT_THROW(assign(Operand{row_major(DType::kFloat, Dims{3}), f.data()},
                      ConstOperand(row_major(DType::kString, Dims{3}), src.data())),
               Error);
}

}  // namespace
}  // namespace geon
