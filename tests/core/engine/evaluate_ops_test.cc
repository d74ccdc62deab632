// Every op of the CPU table, on every compute type it supports, against a naive reference
// that walks the loop shape one element at a time with the generalized broadcasting rule.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/engine/convert.h"
#include "core/engine/engine.h"
#include "core/engine/thread_pool.h"
#include "tests/core/engine/random_views.h"

namespace geon {
namespace {

using namespace testing_views;

bool same_value(const Scalar& a, const Scalar& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Scalar::Kind::kFloat:
      return (std::isnan(a.re) && std::isnan(b.re)) || a.re == b.re;
    case Scalar::Kind::kSigned:
      return a.i == b.i;
    case Scalar::Kind::kUnsigned:
      return a.u == b.u;
    case Scalar::Kind::kComplex:
      return a.re == b.re && a.im == b.im;
  }
  return false;
}

// One node, element by element: convert each argument to the compute type, call the op's
// chunk function on a single element, convert the result to the destination's dtype.
void reference(const OpDef& op, DType compute, Buffer& dst, std::vector<Buffer*> in,
               const Dims& loop) {
  const DType rt = op.result == OpResult::kBool ? DType::kBool : compute;
  for_each_index(loop, [&](const Dims& idx) {
    alignas(16) std::byte args[3][16] = {};
    for (size_t a = 0; a < in.size(); ++a)
      convert_strided(in[a]->desc.dtype, in[a]->data(), reference_offset(in[a]->desc, idx), 1,
                      compute, args[a], 0, 1, 1);
    alignas(16) std::byte out[16] = {};
    op.fn[compute_index(compute)](1, out, args[0], args[1], args[2], {});
    convert_strided(rt, out, 0, 1, dst.desc.dtype, dst.data(), reference_offset(dst.desc, idx), 1,
                    1);
  });
}

void expect_same(const Buffer& got, const Buffer& want, const std::string& what) {
  int mismatches = 0;
  for_each_index(got.desc.shape, [&](const Dims& idx) {
    const int64_t o = reference_offset(got.desc, idx);
    const Scalar g = load_scalar(got.desc.dtype, got.bytes.data(), o);
    const Scalar w = load_scalar(want.desc.dtype, want.bytes.data(), o);
    if (!same_value(g, w) && mismatches++ < 3)
      ADD_FAILURE() << what << " at offset " << o << ": got " << g.re << "/" << g.i << "/" << g.u
                    << " want " << w.re << "/" << w.i << "/" << w.u;
  });
}

DType storage_for(std::mt19937_64& rng, DType compute) {
  if (compute == DType::kFloat) {
    const DType choices[] = {DType::kFloat, DType::kFloat, DType::kFloat16, DType::kBFloat16};
    return choices[rng() % 4];
  }
  return compute;
}

TEST(EngineOps, EveryOpOnEveryComputeTypeMatchesElementwiseReference) {
  std::mt19937_64 rng(1234);
  ThreadPool pool(2);
  int cases = 0;
  for (const OpDef& op : all_ops()) {
    for (int ci = 0; ci < kComputeTypeCount; ++ci) {
      if (!op.fn[ci]) continue;
      const DType compute = kComputeTypes[ci];
      for (int rep = 0; rep < 5; ++rep) {
        Dims loop = random_shape(rng, 4, 5);
        if (rep == 4) loop = {2, 1500};  // crosses chunk boundaries
        std::vector<Buffer> in;
        for (int a = 0; a < op.arity; ++a) {
          const DType t = (a == 0 && op.condition_first) ? DType::kBool : storage_for(rng, compute);
          in.push_back(random_view(rng, t, broadcastable_shape(rng, loop)));
        }
        // At least one input must span the loop shape so the destination is not larger.
        in[op.condition_first ? 1 : 0] =
            random_view(rng, in[op.condition_first ? 1 : 0].desc.dtype, loop);
        const DType rt = op.result == OpResult::kBool ? DType::kBool : compute;
        const DType dt = (rng() % 3 == 0) ? storage_for(rng, DType::kFloat) : rt;
        Buffer got = random_view(rng, dt, loop);
        Buffer want = got;
        std::vector<ConstOperand> ops;
        std::vector<Buffer*> ptrs;
        std::vector<DType> dtypes;
        for (auto& b : in) {
          ops.emplace_back(b.desc, b.data());
          ptrs.push_back(&b);
          dtypes.push_back(b.desc.dtype);
        }
        ExprBuilder eb(dtypes);
        switch (op.arity) {
          case 1:
            eb.apply(op.name, {eb.input(0)});
            break;
          case 2:
            eb.apply(op.name, {eb.input(0), eb.input(1)});
            break;
          default:
            eb.apply(op.name, {eb.input(0), eb.input(1), eb.input(2)});
            break;
        }
        EngineOptions opt;
        opt.pool = &pool;
        evaluate(eb.build(), {got.desc, got.data()}, ops, Reduce::kNone, opt);
        reference(op, compute, want, ptrs, loop);
        expect_same(got, want,
                    std::string(op.name) + " on " + std::string(dtype_name(compute)) + " loop " +
                        to_string(got.desc));
        ++cases;
      }
    }
  }
  EXPECT_GT(cases, 1000);
}

TEST(EngineOps, TableNamesAreUniqueAndFunctionsMatchArity) {
  std::vector<std::string_view> names;
  for (const OpDef& op : all_ops()) {
    EXPECT_EQ(std::count(names.begin(), names.end(), op.name), 0) << op.name;
    names.push_back(op.name);
    EXPECT_TRUE(op.arity >= 1 && op.arity <= 3) << op.name;
    bool any = false;
    for (ChunkFn f : op.fn) any |= f != nullptr;
    EXPECT_TRUE(any) << op.name << " exists for no type";
  }
}

// Operands that hold one value over the whole pass are converted once, on the first chunk,
// and reused: rows of three chunks and a tail, on one and two threads, with scalar Clip bounds
// and a scaled scalar addend, and beside them an operand broadcast along the inner dim only,
// which changes from row to row and must be converted for every row.
TEST(EngineOps, ScalarOperandsHoldOverEveryChunkWhileRowBroadcastsChange) {
  const int64_t rows = 5, cols = 3 * 4096 + 77;
  std::vector<float> x(rows * cols), per_row(rows), y(rows * cols), z(rows * cols), w(rows * cols);
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  for (float& v : x) v = u(gen);
  for (float& v : per_row) v = u(gen);
  const float lo = -1.5f, hi = 2.25f;
  const TensorDesc xd = row_major(DType::kFloat, Dims{rows, cols});
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    EngineOptions opt;
    opt.pool = &pool;
    ternary("clip", Operand{xd, y.data()}, ConstOperand(xd, x.data()),
            ConstOperand::scalar(lo, DType::kFloat), ConstOperand::scalar(hi, DType::kFloat), opt);
    binary("add", Operand{xd, z.data()}, ConstOperand(xd, x.data()),
           ConstOperand(row_major(DType::kFloat, Dims{rows, 1}), per_row.data()), 1.0, 2.0, opt);
    binary("add", Operand{xd, w.data()}, ConstOperand(xd, x.data()),
           ConstOperand::scalar(0.75, DType::kFloat), 1.0, 3.0, opt);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        const float v = x[r * cols + c];
        ASSERT_EQ(y[r * cols + c], std::min(std::max(v, lo), hi)) << r << "," << c;
        ASSERT_EQ(z[r * cols + c], v + 2.0f * per_row[r]) << r << "," << c;
        ASSERT_EQ(w[r * cols + c], v + 3.0f * 0.75f) << r << "," << c;
      }
  }
}

}  // namespace
}  // namespace geon
