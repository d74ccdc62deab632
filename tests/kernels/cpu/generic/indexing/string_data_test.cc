// cpu.generic's indexing kernels on string tensors, against naive loops over std::string: the
// movement ops (GatherElements, GatherND, Compress, ScatterElements, Scatter, TensorScatter,
// OneHot) copy handles from dense and transposed views; NonZero's truth is "not empty";
// Unique orders by bytes (non-ASCII after ASCII, a prefix first); the scatter reductions
// refuse strings with a reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/text/text_harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// "a0", "b1", ... distinct, of varied lengths (the empty string included), row-major (r, c).
std::vector<std::string> words(int64_t n) {
  std::vector<std::string> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(i == 3
                    ? std::string()
                    : std::string(1 + i % 3, static_cast<char>('a' + i % 26)) + std::to_string(i));
  return v;
}

// Both the dense and the transposed-storage view of the (r, c) strings v.
std::vector<Host> views(const Dims& shape, const std::vector<std::string>& v) {
  return {strings(shape, v), transposed_strings(shape, v)};
}

TEST(CpuGenericIndexingStrings, GatherElementsCopiesHandles) {
  const Dims ds{3, 4};
  const std::vector<std::string> v = words(12);
  const std::vector<int64_t> idx{2, 0, -1, 1, 0, -3, -2, 2};  // (2, 4), in range for 3 and 4
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t len = ds[axis];
    std::vector<std::string> want;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 4; ++j) {
        const int64_t k = idx[i * 4 + j] < 0 ? idx[i * 4 + j] + len : idx[i * 4 + j];
        want.push_back(axis == 0 ? v[k * 4 + j] : v[i * 4 + k]);
      }
    for (const Host& data : views(ds, v)) {
      NodeGraph ng("GatherElements", 13);
      Host ix = Host::dense(DType::kInt64, {2, 4});
      for (int64_t i = 0; i < 8; ++i) ix.set(i, static_cast<double>(idx[i]));
      ng.in(data).in(ix).out(DType::kString).attr_i("axis", axis);
      EXPECT_EQ(all_strings(ng.run(gen())[0]), want) << "axis " << axis;
    }
  }
}

TEST(CpuGenericIndexingStrings, GatherNDPicksElementsAndRows) {
  const Dims ds{3, 4};
  const std::vector<std::string> v = words(12);
  for (const Host& data : views(ds, v)) {
    NodeGraph rows("GatherND", 13);
    rows.in(data).in(Host::of(DType::kInt64, {2, 1}, {2, -3})).out(DType::kString);
    std::vector<std::string> want(v.begin() + 8, v.end());
    want.insert(want.end(), v.begin(), v.begin() + 4);
    EXPECT_EQ(all_strings(rows.run(gen())[0]), want);
    NodeGraph elems("GatherND", 13);
    elems.in(data).in(Host::of(DType::kInt32, {3, 2}, {1, 3, 0, 0, 2, -1})).out(DType::kString);
    EXPECT_EQ(all_strings(elems.run(gen())[0]), (std::vector<std::string>{v[7], v[0], v[11]}));
  }
}

TEST(CpuGenericIndexingStrings, CompressKeepsSelectedSlices) {
  const Dims ds{3, 4};
  const std::vector<std::string> v = words(12);
  const std::vector<double> cond{1, 0, 1, 1};
  for (const Host& data : views(ds, v)) {
    NodeGraph cols("Compress", 11);
    cols.in(data).in(Host::of(DType::kBool, {4}, cond)).out(DType::kString).attr_i("axis", -1);
    std::vector<std::string> want;
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t c = 0; c < 4; ++c)
        if (cond[c] != 0) want.push_back(v[r * 4 + c]);
    const Host got = cols.run(gen())[0];
    EXPECT_EQ(got.shape(), (Dims{3, 3}));
    EXPECT_EQ(all_strings(got), want);
    NodeGraph flat("Compress", 11);
    flat.in(data).in(Host::of(DType::kBool, {4}, cond)).out(DType::kString);
    EXPECT_EQ(all_strings(flat.run(gen())[0]), (std::vector<std::string>{v[0], v[2], v[3]}));
  }
}

TEST(CpuGenericIndexingStrings, NonZeroIsNotEmpty) {
  const std::vector<std::string> v{"", "x", "", std::string(1, '\0'), "hello", "", " ", "", "z",
                                   "", "",  "é"};
  for (const Host& data : views({3, 4}, v)) {
    NodeGraph ng("NonZero", 13);
    ng.in(data).out(DType::kInt64);
    std::vector<int64_t> rows, cols;
    for (int64_t i = 0; i < 12; ++i)
      if (!v[i].empty()) {
        rows.push_back(i / 4);
        cols.push_back(i % 4);
      }
    const Host got = ng.run(gen())[0];
    const auto n = static_cast<int64_t>(rows.size());
    ASSERT_EQ(got.shape(), (Dims{2, n}));
    for (int64_t j = 0; j < n; ++j) {
      EXPECT_EQ(got.at(j), static_cast<double>(rows[j]));
      EXPECT_EQ(got.at(n + j), static_cast<double>(cols[j]));
    }
  }
}

TEST(CpuGenericIndexingStrings, ScatterElementsReplacesInOrder) {
  const Dims ds{3, 4};
  const std::vector<std::string> v = words(12);
  const std::vector<std::string> u{"U0", "U1", "U2", "U3", "U4", "U5"};
  const std::vector<int64_t> idx{1, 1, 0, 2, -1, 3};  // (2, 3) along axis 1: a repeated 1
  std::vector<std::string> want = v;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      const int64_t k = idx[i * 3 + j] < 0 ? idx[i * 3 + j] + 4 : idx[i * 3 + j];
      want[i * 4 + k] = u[i * 3 + j];
    }
  for (const char* op : {"ScatterElements", "Scatter"}) {
    for (const Host& data : views(ds, v)) {
      NodeGraph ng(op, std::string(op) == "Scatter" ? 9 : 18);
      Host ix = Host::dense(DType::kInt64, {2, 3});
      for (int64_t i = 0; i < 6; ++i) ix.set(i, static_cast<double>(idx[i]));
      ng.in(data).in(ix).in(transposed_strings({2, 3}, u)).out(DType::kString).attr_i("axis", 1);
      EXPECT_EQ(all_strings(ng.run(gen())[0]), want) << op;
    }
  }
}

TEST(CpuGenericIndexingStrings, ScatterReductionsOnStringsAreRefused) {
  for (const char* red : {"add", "mul", "max", "min"}) {
    NodeGraph ng("ScatterElements", 18);
    ng.in(strings({2}, {"a", "b"})).in(ints({0})).in(strings({1}, {"c"}));
    ng.out(DType::kString).attr_s("reduction", red);
    const auto why = ng.supports(gen());
    ASSERT_TRUE(why.has_value()) << red;
    EXPECT_NE(why->find("string"), std::string::npos) << *why;
    EXPECT_NE(why->find(red), std::string::npos) << *why;
  }
}

TEST(CpuGenericIndexingStrings, TensorScatterWritesRuns) {
  const Dims ps{2, 5, 2};  // batch, sequence, head
  const std::vector<std::string> past = words(20);
  const std::vector<std::string> upd{"p", "q", "r", "s", "t", "u", "v", "w"};  // (2, 2, 2)
  for (const char* mode : {"linear", "circular"}) {
    const std::vector<int64_t> start{1, mode == std::string("linear") ? 3 : 4};
    std::vector<std::string> want = past;
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t s = 0; s < 2; ++s)
        for (int64_t h = 0; h < 2; ++h)
          want[(b * 5 + (start[b] + s) % 5) * 2 + h] = upd[(b * 2 + s) * 2 + h];
    NodeGraph ng("TensorScatter", 24);
    ng.in(strings(ps, past)).in(strings({2, 2, 2}, upd)).in(ints(start));
    ng.out(DType::kString).attr_i("axis", 1).attr_s("mode", mode);
    EXPECT_EQ(all_strings(ng.run(gen())[0]), want) << mode;
  }
}

TEST(CpuGenericIndexingStrings, OneHotWithStringValues) {
  NodeGraph ng("OneHot", 11);
  ng.in(Host::of(DType::kInt64, {3}, {0, -1, 7})).in(Host::of(DType::kInt64, {}, {3}));
  ng.in(strings({2}, {"off", "on"})).out(DType::kString);
  const std::vector<int64_t> hot{0, 2, -1};  // -1 wraps to 2; 7 is out of range: all off
  std::vector<std::string> want;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t d = 0; d < 3; ++d) want.push_back(hot[i] == d ? "on" : "off");
  EXPECT_EQ(all_strings(ng.run(gen())[0]), want);
}

// numpy.unique over strings: a naive reference by linear search, then sorted by bytes.
struct UniqueRef {
  std::vector<std::string> y;
  std::vector<int64_t> first, inverse, counts;
};

UniqueRef unique_ref(const std::vector<std::vector<std::string>>& rows, bool sorted) {
  std::vector<std::vector<std::string>> keys;
  UniqueRef e;
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto at = std::find(keys.begin(), keys.end(), rows[r]);
    if (at == keys.end()) {
      keys.push_back(rows[r]);
      e.first.push_back(static_cast<int64_t>(r));
      e.counts.push_back(0);
    }
    const auto u = std::find(keys.begin(), keys.end(), rows[r]) - keys.begin();
    ++e.counts[u];
    e.inverse.push_back(u);
  }
  std::vector<int64_t> order(keys.size()), rank(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  // Byte order: compare as unsigned char, so "é" (0xC3 0xA9) sorts after "z".
  auto bytes_less = [](const std::string& a, const std::string& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
      return static_cast<unsigned char>(x) < static_cast<unsigned char>(y);
    });
  };
  if (sorted)
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return std::lexicographical_compare(keys[a].begin(), keys[a].end(), keys[b].begin(),
                                          keys[b].end(), bytes_less);
    });
  UniqueRef s;
  for (size_t k = 0; k < order.size(); ++k) {
    rank[order[k]] = static_cast<int64_t>(k);
    s.first.push_back(e.first[order[k]]);
    s.counts.push_back(e.counts[order[k]]);
    for (const std::string& x : keys[order[k]]) s.y.push_back(x);
  }
  for (int64_t v : e.inverse) s.inverse.push_back(rank[v]);
  return s;
}

std::vector<int64_t> int_values(const Host& h) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < element_count(h.desc); ++i) out.push_back(static_cast<int64_t>(h.at(i)));
  return out;
}

TEST(CpuGenericIndexingStrings, UniqueOrdersByBytes) {
  const std::vector<std::string> v{"b", "é", "ab", "", "abc", "b", "z", "", "ab", "Z", "é", "b"};
  for (const Host& data : views({3, 4}, v)) {
    for (bool sorted : {true, false}) {
      // Flattened: every element its own row.
      std::vector<std::vector<std::string>> rows;
      for (const std::string& s : v) rows.push_back({s});
      const UniqueRef want = unique_ref(rows, sorted);
      NodeGraph ng("Unique", 11);
      ng.in(data).attr_i("sorted", sorted ? 1 : 0);
      ng.out(DType::kString).out(DType::kInt64).out(DType::kInt64).out(DType::kInt64);
      const std::vector<Host> got = ng.run(gen());
      EXPECT_EQ(all_strings(got[0]), want.y);
      EXPECT_EQ(int_values(got[1]), want.first);
      EXPECT_EQ(int_values(got[2]), want.inverse);
      EXPECT_EQ(int_values(got[3]), want.counts);
    }
  }
}

TEST(CpuGenericIndexingStrings, UniqueSlicesAlongAnAxis) {
  // Columns 0 and 2 are equal; column 3 differs from column 1 only in its last row.
  const std::vector<std::string> v{"q", "a", "q", "a", "", "b", "", "b", "x", "c", "x", "d"};
  std::vector<std::vector<std::string>> cols(4);
  for (int64_t c = 0; c < 4; ++c)
    for (int64_t r = 0; r < 3; ++r) cols[c].push_back(v[r * 4 + c]);
  for (const Host& data : views({3, 4}, v)) {
    for (bool sorted : {true, false}) {
      const UniqueRef want = unique_ref(cols, sorted);
      NodeGraph ng("Unique", 11);
      ng.in(data).attr_i("axis", -1).attr_i("sorted", sorted ? 1 : 0);
      ng.out(DType::kString).out(DType::kInt64).out(DType::kInt64).out(DType::kInt64);
      const std::vector<Host> got = ng.run(gen());
      const auto n = static_cast<int64_t>(want.first.size());
      ASSERT_EQ(got[0].shape(), (Dims{3, n}));
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t u = 0; u < n; ++u) EXPECT_EQ(string_at(got[0], r * n + u), want.y[u * 3 + r]);
      EXPECT_EQ(int_values(got[1]), want.first);
      EXPECT_EQ(int_values(got[2]), want.inverse);
      EXPECT_EQ(int_values(got[3]), want.counts);
    }
  }
}

TEST(CpuGenericIndexingStrings, OutOfRangeIndexIsAnError) {
  NodeGraph ng("GatherElements", 13);
  ng.in(strings({2}, {"a", "b"})).in(ints({2})).out(DType::kString);
  expect_error(ng, gen(), ErrorCode::kOutOfRange, {"GatherElements", "index 2", "length 2"});
  NodeGraph sc("ScatterElements", 18);
  sc.in(strings({2}, {"a", "b"})).in(ints({-3})).in(strings({1}, {"c"})).out(DType::kString);
  expect_error(sc, gen(), ErrorCode::kOutOfRange, {"ScatterElements", "index -3", "length 2"});
}

}  // namespace
}  // namespace geon::cpu::testing
