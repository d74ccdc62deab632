// tinygrad-style replay: random seeded sequences of views over a storage holding 0..N-1, each
// mirrored on a plain reference model (the storage position of every element, in row-major
// order of the logical shape). After every step each logical index must map to the same storage
// element, and spans, contiguity, reshape's view-or-not answer and may_overlap must agree with
// what the model says.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "core/desc/desc.h"
#include "core/desc/views.h"
#include "tests/core/desc/desc_test_util.h"
#include "tests/core/desc/reference_model.h"

namespace geon {
namespace {

constexpr int64_t kMaxElements = 3000;

class Replay {
 public:
  explicit Replay(uint64_t seed) : rng_(seed) {}

  void run(int steps) {
    start();
    for (int s = 0; s < steps && !::testing::Test::HasFatalFailure(); ++s) {
      step();
      check();
      // Empty and one-element views have little left to test; usually start over.
      if (m_.pos.size() <= 1 && pick(0, 3) != 0) start();
    }
  }

 private:
  int64_t pick(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }

  void start() {
    const int rank = pick(0, 19) == 0 ? 0 : static_cast<int>(pick(1, 4));
    Dims shape, padded;
    for (int i = 0; i < rank; ++i) shape.push_back(pick(0, 39) == 0 ? 0 : pick(1, 5));
    const bool pad = pick(0, 2) == 0;
    for (int64_t len : shape) padded.push_back(len + (pad ? pick(0, 2) : 0));
    const bool row = pick(0, 3) != 0;
    d_ = row ? row_major(DType::kInt32, shape, padded) : col_major(DType::kInt32, shape, padded);
    m_ = dense_model(shape, padded, row);
    int64_t alloc = 1;
    for (int64_t len : padded) alloc *= std::max<int64_t>(len, 1);
    storage_.resize(alloc);
    std::iota(storage_.begin(), storage_.end(), 0);
    prev_.clear();
    trace_ += (trace_.empty() ? "" : "\n  restart: ") + to_string(d_);
    check();
  }

  void step() {
    const int rank = d_.rank();
    const int op = static_cast<int>(pick(0, 10));
    if (op == 0 && rank > 0) {  // permute
      Dims perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng_);
      apply("permute " + dims_text(perm), permute(d_, perm), [&] {
        Dims shape(rank);
        for (int i = 0; i < rank; ++i) shape[i] = m_.shape[perm[i]];
        return remap(m_, shape, [&](const Dims& i) {
          Dims o(rank);
          for (int k = 0; k < rank; ++k) o[perm[k]] = i[k];
          return o;
        });
      });
    } else if ((op == 1 || op == 2) && rank > 0) {  // slice, any step
      const int ax = static_cast<int>(pick(0, rank - 1));
      const int64_t len = m_.shape[ax];
      int64_t step = pick(1, 3) * (pick(0, 1) ? 1 : -1);
      if (pick(0, 9) == 0) step = step > 0 ? INT64_MAX : INT64_MIN;
      int64_t start = pick(-len - 2, len + 2), stop = pick(-len - 2, len + 2);
      if (len > 0 && pick(0, 7) != 0) {
        // Mostly non-empty: a start inside, a stop beyond it in the step's direction, each
        // written from the front or from the back.
        start = pick(0, len - 1);
        stop = step > 0 ? pick(start + 1, len + 2) : pick(-1, start - 1);
        if (step < 0 && stop == -1)
          stop = -len - pick(1, 3);  // -1 itself would mean len-1
        else if (stop <= len && pick(0, 1))
          stop -= len;
        if (pick(0, 1)) start -= len;
      }
      const std::vector<int64_t> idx = onnx_slice_indices(len, start, stop, step);
      const int axis = ax - (pick(0, 1) ? rank : 0);  // negative axes too
      apply("slice axis " + std::to_string(axis) + " " + std::to_string(start) + ":" +
                std::to_string(stop) + ":" + std::to_string(step),
            slice(d_, axis, start, stop, step), [&] {
              Dims shape = m_.shape;
              shape[ax] = static_cast<int64_t>(idx.size());
              return remap(m_, shape, [&](const Dims& i) {
                Dims o = i;
                o[ax] = idx[i[ax]];
                return o;
              });
            });
    } else if (op == 3 && rank > 0) {  // select
      const int ax = static_cast<int>(pick(0, rank - 1));
      if (m_.shape[ax] == 0) return;
      const int64_t index = pick(-m_.shape[ax], m_.shape[ax] - 1);
      apply("select axis " + std::to_string(ax) + " index " + std::to_string(index),
            select(d_, ax, index), [&] {
              Dims shape = m_.shape;
              shape.erase(shape.begin() + ax);
              return remap(m_, shape, [&](const Dims& i) {
                Dims o = i;
                o.insert(o.begin() + ax, index < 0 ? index + m_.shape[ax] : index);
                return o;
              });
            });
    } else if (op == 4) {  // broadcast: grow length-1 dims, maybe add a leading dim
      Dims shape;
      if (pick(0, 2) == 0) shape.push_back(pick(1, 3));
      for (int64_t len : m_.shape) shape.push_back(len == 1 ? (pick(0, 9) ? pick(1, 3) : 0) : len);
      if (count_of(shape) > kMaxElements) return;
      const size_t lead = shape.size() - m_.shape.size();
      apply("broadcast_to " + dims_text(shape), broadcast_to(d_, shape), [&] {
        return remap(m_, shape, [&](const Dims& i) {
          Dims o(i.begin() + lead, i.end());
          for (size_t k = 0; k < o.size(); ++k)
            if (m_.shape[k] == 1) o[k] = 0;
          return o;
        });
      });
    } else if (op == 5 || op == 6) {  // reshape
      reshape_step();
    } else if (op == 7) {  // squeeze, all or some
      Dims axes;
      if (pick(0, 1))
        for (int i = 0; i < rank; ++i)
          if (m_.shape[i] == 1 && pick(0, 1)) axes.push_back(i - (pick(0, 1) ? rank : 0));
      Dims shape;
      for (int i = 0; i < rank; ++i) {
        const bool named = std::any_of(axes.begin(), axes.end(),
                                       [&](int64_t a) { return a == i || a == i - rank; });
        if (!(m_.shape[i] == 1 && (axes.empty() || named))) shape.push_back(m_.shape[i]);
      }
      apply("squeeze " + dims_text(axes), squeeze(d_, axes), [&] { return same_order(shape); });
    } else if (op == 8 && rank < 6) {  // unsqueeze
      const int64_t n = pick(1, 2);
      const int out_rank = rank + static_cast<int>(n);
      Dims axes;
      while (static_cast<int64_t>(axes.size()) < n) {
        const int64_t a = pick(0, out_rank - 1);
        if (std::find(axes.begin(), axes.end(), a) == axes.end()) axes.push_back(a);
      }
      Dims shape(out_rank, 1);
      for (int p = 0, i = 0; p < out_rank; ++p)
        if (std::find(axes.begin(), axes.end(), p) == axes.end()) shape[p] = m_.shape[i++];
      for (int64_t& a : axes)
        if (pick(0, 1)) a -= out_rank;
      apply("unsqueeze " + dims_text(axes), unsqueeze(d_, axes), [&] { return same_order(shape); });
    } else if (op == 9) {  // flatten
      const int axis = static_cast<int>(pick(-rank, rank));
      const int split = axis < 0 ? axis + rank : axis;
      Dims shape{1, 1};
      for (int i = 0; i < rank; ++i) shape[i < split ? 0 : 1] *= m_.shape[i];
      const ReshapeResult r = flatten(d_, axis);
      expect_view_iff_layout("flatten " + std::to_string(axis), shape, r);
    } else if (op == 10 && rank > 0) {  // narrow
      const int ax = static_cast<int>(pick(0, rank - 1));
      const int64_t start = pick(0, m_.shape[ax]);
      const int64_t length = pick(std::min<int64_t>(1, m_.shape[ax] - start), m_.shape[ax] - start);
      apply("narrow axis " + std::to_string(ax) + " " + std::to_string(start) + "+" +
                std::to_string(length),
            narrow(d_, ax, start, length), [&] {
              Dims shape = m_.shape;
              shape[ax] = length;
              return remap(m_, shape, [&](const Dims& i) {
                Dims o = i;
                o[ax] += start;
                return o;
              });
            });
    }
  }

  // A random shape with the same element count: factor it into random pieces.
  void reshape_step() {
    const int64_t n = count_of(m_.shape);
    Dims shape;
    if (n == 0) {
      shape = {pick(0, 3), 0, pick(1, 2)};
      std::shuffle(shape.begin(), shape.end(), rng_);
    } else {
      int64_t left = n;
      while (left > 1 && shape.size() < 5) {
        std::vector<int64_t> divisors;
        for (int64_t k = 2; k <= left; ++k)
          if (left % k == 0) divisors.push_back(k);
        const int64_t k = pick(0, 2) == 0 ? left : divisors[pick(0, divisors.size() - 1)];
        shape.push_back(k);
        left /= k;
        if (pick(0, 4) == 0) shape.push_back(1);
      }
      if (left > 1) shape.push_back(left);
      std::shuffle(shape.begin(), shape.end(), rng_);
    }
    expect_view_iff_layout("reshape " + dims_text(shape), shape, reshape(d_, shape));
  }

  // reshape/flatten must give a view exactly when some strided layout fits the model.
  void expect_view_iff_layout(const std::string& what, const Dims& shape, const ReshapeResult& r) {
    const Model next = same_order(shape);
    const bool exists = strided_layout_exists(shape, next.pos);
    ASSERT_EQ(r.view.has_value(), exists) << trace_ << "\n  then " << what << ": " << r.why;
    if (!r.view) {
      EXPECT_FALSE(r.why.empty());
      return;
    }
    trace_ += "\n  " + what + " -> " + to_string(*r.view);
    prev_.push_back(d_);
    d_ = *r.view;
    m_ = next;
  }

  Model same_order(const Dims& shape) const { return Model{shape, m_.pos}; }

  void apply(const std::string& what, const TensorDesc& next, const std::function<Model()>& model) {
    trace_ += "\n  " + what + " -> " + to_string(next);
    prev_.push_back(d_);
    d_ = next;
    m_ = model();
  }

  void check() {
    SCOPED_TRACE(trace_);
    ASSERT_EQ(d_.shape, m_.shape);
    ASSERT_EQ(positions(d_), m_.pos);
    // Every element is read from inside the storage and is the one the model names.
    const std::vector<int> values = values_of(storage_, d_);
    for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(values[i], m_.pos[i]);
    // Spans are tight.
    const ElementSpan s = element_span(d_);
    if (m_.pos.empty()) {
      EXPECT_TRUE(s.empty());
    } else {
      EXPECT_EQ(s.first, *std::min_element(m_.pos.begin(), m_.pos.end()));
      EXPECT_EQ(s.last, *std::max_element(m_.pos.begin(), m_.pos.end()));
      const ByteSpan b = byte_span(d_);
      EXPECT_EQ(b.begin, s.first * 4);
      EXPECT_EQ(b.end, (s.last + 1) * 4);
    }
    // Contiguous exactly when the elements are consecutive in storage.
    bool consecutive = true;
    for (size_t i = 1; i < m_.pos.size(); ++i)
      consecutive = consecutive && m_.pos[i] == m_.pos[i - 1] + 1;
    EXPECT_EQ(is_contiguous(d_), consecutive);
    // may_overlap is exact against every earlier view of this storage.
    const std::set<int64_t> mine(m_.pos.begin(), m_.pos.end());
    for (const TensorDesc& p : prev_) {
      bool shared = false;
      for (int64_t q : positions(p)) shared = shared || mine.count(q) > 0;
      EXPECT_EQ(may_overlap(d_, p), shared) << to_string(p);
    }
  }

  static std::string dims_text(const Dims& d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) {
      if (i) s += ",";
      s += std::to_string(d[i]);
    }
    return s + "]";
  }

  std::mt19937_64 rng_;
  TensorDesc d_;
  Model m_;
  std::vector<int> storage_;
  std::vector<TensorDesc> prev_;
  std::string trace_;
};

class DescReplay : public ::testing::TestWithParam<int> {};

// Each parameter runs ten seeded sequences of twelve views: 400 sequences in all.
TEST_P(DescReplay, EveryLogicalIndexMapsToTheSameStorageElementAsTheReference) {
  for (int k = 0; k < 10; ++k) {
    const uint64_t seed = static_cast<uint64_t>(GetParam()) * 10 + k;
    SCOPED_TRACE("seed " + std::to_string(seed));
    Replay(seed).run(12);
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, DescReplay, ::testing::Range(0, 40));

}  // namespace
}  // namespace geon
