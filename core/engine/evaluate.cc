// Evaluating fused expressions: plan the loop, cut it across threads, and run each part chunk
// by chunk. A chunk gathers each input (converting to the node's compute type only when it is
// not already contiguous and of that type), runs the nodes' table functions on L1-sized
// buffers, and stores or accumulates the result.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/buffer/buffer.h"
#include "core/desc/views.h"
#include "core/engine/accumulate.h"
#include "core/engine/checks.h"
#include "core/engine/convert.h"
#include "core/engine/engine.h"
#include "core/engine/parallel.h"
#include "core/engine/plain_copy.h"

namespace geon {
namespace {

// 4096 elements: large enough that per-chunk dispatch costs vanish, small enough that a
// chunk's buffers stay in L2.
constexpr int64_t kChunk = 4096;
constexpr int64_t kMaxPrivateAccumulator = int64_t{1} << 20;
// A transposing pass (some operand strided along the inner dim, so each element of a chunk
// touches its own cache line) runs groups of kTileRows rows over chunks of kTileInner elements:
// the group's next row uses the neighbours in the lines the previous one brought to L1, instead
// of coming back to them a whole row (thousands of lines) later.
// 32 x 128 measured best of 8-64 rows by 64-512 elements (a 1x56x56x256 float NHWC -> NCHW
// copy on one thread: 1.76 ms untiled, 0.86 tiled).
constexpr int64_t kTileRows = 32;
constexpr int64_t kTileInner = 128;

int64_t inner_stride(const LoopPlan& p, int op) {
  return p.rank == 0 ? 0 : p.stride[op][p.rank - 1];
}

int64_t elem_bytes(DType t) { return dtype_bits(t) / 8; }

struct PassState {
  const Expr* expr;
  const Operand* dst;
  const void* in_base[kMaxLoopOperands];
  DType in_dtype[kMaxLoopOperands];
  Reduce reduce;
  DType acc_dtype;
  const EngineOptions* opt;
};

// Scratch memory a thread keeps between passes (up to this size), so that small passes do not
// pay an allocation each; larger needs are allocated per pass.
constexpr size_t kKeptScratchBytes = size_t{1} << 20;

// Per-part buffers: one per node result and one per node argument, each a chunk of 8-byte
// elements (the widest compute type). Sized for the rows actually run, so a small pass does
// not pay for a full chunk.
struct Scratch {
  Scratch(size_t nodes, int64_t chunk) : chunk_bytes(chunk * 8) {
    // Buffers start on a cache line: a 64-byte vector store into a misaligned chunk splits
    // across two lines on every store.
    const size_t need = nodes * 4 * static_cast<size_t>(chunk_bytes) + kLine;
    thread_local std::unique_ptr<std::byte[]> kept;
    thread_local size_t kept_bytes = 0;
    std::byte* raw;
    if (need > kKeptScratchBytes) {
      own.reset(new std::byte[need]);
      raw = own.get();
    } else {
      // Passes never nest on one thread (table functions do not call the engine), so the
      // thread's buffer is free here.
      if (kept_bytes < need) {
        kept.reset(new std::byte[need]);
        kept_bytes = need;
      }
      raw = kept.get();
    }
    mem = raw + (kLine - reinterpret_cast<uintptr_t>(raw) % kLine) % kLine;
  }
  void* result(size_t node) { return &mem[node * 4 * chunk_bytes]; }
  void* arg(size_t node, int a) { return &mem[(node * 4 + 1 + a) * chunk_bytes]; }
  static constexpr size_t kLine = 64;
  int64_t chunk_bytes;
  std::byte* mem = nullptr;
  std::unique_ptr<std::byte[]> own;
};

void scale_chunk(DType t, void* data, int64_t n, double s) {
  switch (t) {
    case DType::kFloat:
      for (int64_t i = 0; i < n; ++i) static_cast<float*>(data)[i] *= static_cast<float>(s);
      return;
    case DType::kDouble:
      for (int64_t i = 0; i < n; ++i) static_cast<double*>(data)[i] *= s;
      return;
    default: {
      // Integer scales are integral (checked by ExprBuilder); go through int64 and back.
      std::vector<int64_t> tmp(n);
      convert_strided(t, data, 0, 1, DType::kInt64, tmp.data(), 0, 1, n);
      for (int64_t& v : tmp)
        v = static_cast<int64_t>(static_cast<uint64_t>(v) *
                                 static_cast<uint64_t>(static_cast<int64_t>(s)));
      convert_strided(DType::kInt64, tmp.data(), 0, 1, t, data, 0, 1, n);
    }
  }
}

// Whether the pass transposes: an operand's inner stride is neither 0 nor 1, over enough rows
// and elements that tiling pays (an elementwise pass only: tiles change no result).
bool transposing(const PassState& st, const LoopPlan& p) {
  if (st.reduce != Reduce::kNone || loop_rows(p) < 2 || loop_inner(p) <= kTileInner) return false;
  for (int o = 0; o < p.operands; ++o)
    if (const int64_t s = inner_stride(p, o); s != 0 && s != 1) return true;
  return false;
}

// Whether the pass copies its one input bit for bit: an identity of the destination's type.
bool plain_copy(const PassState& st) {
  const Expr& e = *st.expr;
  const DType t = st.dst->desc.dtype;
  return st.reduce == Reduce::kNone && e.nodes.size() == 1 && e.nodes[0].op->name == "identity" &&
         !e.nodes[0].args[0].node && e.nodes[0].scale[0] == 1.0 && st.in_dtype[0] == t &&
         !is_packed(t) && dtype_bits(t) % 8 == 0;
}

// Runs one part serially: every row of the plan, chunk by chunk (tiles when transposing).
void run_serial(const PassState& st, const LoopPlan& p, void* acc) {
  if (plain_copy(st)) {
    const int bytes = static_cast<int>(elem_bytes(st.dst->desc.dtype));
    if (copy_rows(p, bytes, st.dst->data, st.in_base[0]) ||
        copy_transposed(p, bytes, st.dst->data, st.in_base[0]))
      return;
  }
  const Expr& e = *st.expr;
  const int n_in = static_cast<int>(e.inputs.size());
  const int acc_op = n_in + 1;
  const int64_t rows = loop_rows(p), inner = loop_inner(p);
  const bool tiled = transposing(st, p);
  const int64_t chunk = tiled ? kTileInner : kChunk, group = tiled ? kTileRows : 1;
  Scratch scratch(e.nodes.size(), std::max<int64_t>(1, std::min(chunk, inner)));
  int64_t offs[kTileRows][kMaxLoopOperands] = {};
  // Most expressions are a few nodes: keep their chunk pointers on the stack.
  constexpr size_t kInlineNodes = 16;
  const void* inline_vals[kInlineNodes];
  std::vector<const void*> heap_vals(e.nodes.size() > kInlineNodes ? e.nodes.size() : 0);
  const void** vals = e.nodes.size() > kInlineNodes ? heap_vals.data() : inline_vals;
  const ExprNode& last = e.nodes.back();
  const DType dst_t = st.dst->desc.dtype;
  const bool direct_store =
      st.reduce == Reduce::kNone && dst_t == last.result && inner_stride(p, 0) == 1;

  // The accumulator elements of the row whose operand offsets are `off`, from j0.
  const auto acc_at = [&](const int64_t* off, int64_t j0) {
    return static_cast<char*>(acc) + (off[acc_op] + j0 * inner_stride(p, acc_op)) * 8;
  };
  // A sum whose last node multiplies folds the products as they are made
  // (accumulate_products), never storing them: for sum((x - y)^2) that is a third of the
  // chunk's passes.
  const size_t fold_at =
      st.reduce != Reduce::kNone && last.op->name == "mul" ? e.nodes.size() - 1 : e.nodes.size();
  // sum((x - y)^2): where the folded mul squares the difference just before it, that node
  // folds each difference's square as it makes it (accumulate_squared_differences), and x - y
  // is never stored, not even in the chunk.
  const size_t square_at = [&] {
    const size_t none = e.nodes.size();
    if (fold_at + 1 != e.nodes.size() || fold_at == 0) return none;
    const ExprNode& mul = e.nodes[fold_at];
    const ExprNode& sub = e.nodes[fold_at - 1];
    bool squares = sub.op->name == "sub" && sub.compute == DType::kFloat &&
                   sub.result == DType::kFloat && mul.compute == DType::kFloat;
    for (int a = 0; a < 2; ++a)
      squares = squares && mul.args[a].node && mul.args[a].index == static_cast<int>(fold_at - 1) &&
                mul.scale[a] == 1.0;
    return squares ? fold_at - 1 : none;
  }();
  // Identity nodes whose argument is already of their type (the lone node of a plain
  // ReduceSum or ReduceMax) pass that argument on, read in place, instead of copying it: a
  // row reduction was one copy of every row through the chunk before its fold.
  uint64_t aliases = 0;
  for (size_t k = 0; k < std::min<size_t>(e.nodes.size(), 64); ++k) {
    const ExprNode& node = e.nodes[k];
    const bool stored = k + 1 == e.nodes.size() && direct_store;
    if (node.op->name == "identity" && node.result == node.compute && !stored)
      aliases |= uint64_t{1} << k;
  }
  // Arguments that are one value over the whole plan (a Clip bound, a scalar divisor, Pow's
  // exponent) are converted into their buffer on their first chunk only; every later chunk is
  // no longer than the first. Bit 3k + a: argument a of node k.
  uint64_t invariant = 0, filled = 0;
  for (size_t k = 0; k < std::min<size_t>(e.nodes.size(), 21); ++k)
    for (int a = 0; a < e.nodes[k].op->arity; ++a) {
      const ExprArg arg = e.nodes[k].args[a];
      bool zero = !arg.node;
      for (int d = 0; zero && d < p.rank; ++d) zero = p.stride[1 + arg.index][d] == 0;
      if (zero) invariant |= uint64_t{1} << (3 * k + a);
    }
  // One chunk of n elements from j0 of the row whose operand offsets are `off`.
  const auto run_chunk = [&](const int64_t* off, int64_t j0, int64_t n) {
    for (size_t k = 0; k < e.nodes.size(); ++k) {
      const ExprNode& node = e.nodes[k];
      const void* args[3] = {nullptr, nullptr, nullptr};
      for (int a = 0; a < node.op->arity; ++a) {
        const ExprArg arg = node.args[a];
        DType from;
        const void* base;
        int64_t first, stride;
        if (arg.node) {
          from = e.nodes[arg.index].result;
          base = vals[arg.index];
          first = 0;
          stride = 1;
        } else {
          from = st.in_dtype[arg.index];
          base = st.in_base[arg.index];
          stride = inner_stride(p, 1 + arg.index);
          first = off[1 + arg.index] + j0 * stride;
        }
        if (from == node.compute && stride == 1 && node.scale[a] == 1.0) {
          args[a] = static_cast<const char*>(base) + first * elem_bytes(from);
          continue;
        }
        void* buf = scratch.arg(k, a);
        const uint64_t bit = k < 21 ? uint64_t{1} << (3 * k + a) : 0;
        if (!(filled & bit)) {
          convert_strided(from, base, first, stride, node.compute, buf, 0, 1, n);
          if (node.scale[a] != 1.0) scale_chunk(node.compute, buf, n, node.scale[a]);
          filled |= invariant & bit;
        }
        args[a] = buf;
      }
      if (k < 64 && (aliases >> k & 1)) {
        vals[k] = args[0];
        continue;
      }
      if (k == square_at &&
          accumulate_squared_differences(st.reduce, st.acc_dtype, acc_at(off, j0),
                                         inner_stride(p, acc_op), node.result, args[0], args[1], n))
        return;
      if (k == fold_at &&
          accumulate_products(st.reduce, st.acc_dtype, acc_at(off, j0), inner_stride(p, acc_op),
                              node.result, args[0], args[1], n))
        return;
      void* out = scratch.result(k);
      if (k + 1 == e.nodes.size() && direct_store)
        out = static_cast<char*>(st.dst->data) + (off[0] + j0) * elem_bytes(dst_t);
      node.op->fn[compute_index(node.compute)](n, out, args[0], args[1], args[2], node.params);
      vals[k] = out;
    }
    if (st.reduce != Reduce::kNone) {
      accumulate(st.reduce, st.acc_dtype, acc_at(off, j0), inner_stride(p, acc_op), last.result,
                 vals[e.nodes.size() - 1], n);
    } else if (!direct_store) {
      const int64_t ds = inner_stride(p, 0);
      convert_strided(last.result, vals[e.nodes.size() - 1], 0, 1, dst_t, st.dst->data,
                      off[0] + j0 * ds, ds, n, st.opt->cast);
    }
  };

  RowCursor cursor(p);
  for (int64_t r0 = 0; r0 < rows; r0 += group) {
    const int64_t in_group = std::min(group, rows - r0);
    for (int64_t r = 0; r < in_group; ++r, cursor.next())
      std::copy_n(cursor.offset, p.operands, offs[r]);
    for (int64_t j0 = 0; j0 < inner; j0 += chunk) {
      const int64_t n = std::min(chunk, inner - j0);
      for (int64_t r = 0; r < in_group; ++r) run_chunk(offs[r], j0, n);
    }
  }
}

}  // namespace

ConstOperand ConstOperand::scalar(double value, DType dtype) {
  ConstOperand op;
  require(dtype_bits(dtype) > 0 && dtype_bits(dtype) <= 128 && is_numeric(dtype),
          [&] { return "scalar operand: unsupported dtype " + std::string(dtype_name(dtype)); });
  op.desc = row_major(dtype, {});
  Scalar s;
  s.kind = Scalar::Kind::kFloat;
  s.re = value;
  store_scalar(dtype, op.inline_value_, 0, s);
  return op;
}

void evaluate(const Expr& expr, const Operand& dst, std::span<const ConstOperand> inputs,
              Reduce reduce, const EngineOptions& opt) {
  // Messages are built only on failure and operands are not copied unless they alias the
  // destination: small passes are dominated by this per-call work.
  const int n_in = static_cast<int>(inputs.size());
  if (n_in != static_cast<int>(expr.inputs.size()))
    fail(ErrorCode::kInvalidArgument, "evaluate: the expression takes " +
                                          std::to_string(expr.inputs.size()) + " inputs, got " +
                                          std::to_string(n_in));
  if (n_in + 2 > kMaxLoopOperands)
    fail(ErrorCode::kInvalidArgument,
         "evaluate: at most " + std::to_string(kMaxLoopOperands - 2) + " inputs");
  check_operand(dst.desc, dst.data, "destination");
  if (reduce == Reduce::kNone) check_not_self_overlapping(dst.desc);
  if (!is_numeric(dst.desc.dtype))
    fail(ErrorCode::kInvalidArgument, "evaluate: destination dtype " +
                                          std::string(dtype_name(dst.desc.dtype)) +
                                          " is not numeric");

  // Inputs that alias the destination other than as the very same view are copied first.
  const ConstOperand* in[kMaxLoopOperands];
  std::vector<ConstOperand> copied;  // the dense copies `in` points into
  std::vector<std::unique_ptr<Storage>> copies;
  for (int i = 0; i < n_in; ++i) {
    const ConstOperand& x = inputs[i];
    in[i] = &x;
    check_operand(x.desc, x.base(), "input " + std::to_string(i));
    if (x.desc.dtype != expr.inputs[i])
      fail(ErrorCode::kInvalidArgument,
           "evaluate: input " + std::to_string(i) + " is " + std::string(dtype_name(x.desc.dtype)) +
               " but the expression expects " + std::string(dtype_name(expr.inputs[i])));
    const bool same_view = x.base() == dst.data && x.desc == dst.desc;
    if (!same_view && ranges_intersect(x.base(), x.desc, dst.data, dst.desc)) {
      if (copied.empty()) copied.reserve(n_in);  // `in` points into it: no reallocation
      TensorDesc cd = row_major(x.desc.dtype, x.desc.shape);
      copies.push_back(std::make_unique<Storage>(host_allocator(),
                                                 dtype_bytes_for(cd.dtype, element_count(cd))));
      assign({cd, copies.back()->data()}, x, opt);
      copied.emplace_back(cd, copies.back()->data());
      in[i] = &copied.back();
    }
  }

  const TensorDesc* desc_list[kMaxLoopOperands + 1] = {&dst.desc};
  for (int i = 0; i < n_in; ++i) desc_list[1 + i] = &in[i]->desc;
  std::span<const TensorDesc* const> descs(desc_list, static_cast<size_t>(n_in + 1));
  const Dims shape = loop_shape(descs);
  const bool full = dst.desc.rank() == static_cast<int>(shape.size()) &&
                    std::equal(shape.begin(), shape.end(), dst.desc.shape.begin());
  if (reduce == Reduce::kNone && !full)
    fail(ErrorCode::kInvalidArgument,
         "evaluate: destination " + to_string(dst.desc) +
             " is smaller than the loop shape; pass a reduction to accumulate into it");

  PassState st{&expr, &dst, {}, {}, reduce, DType::kDouble, &opt};
  for (int i = 0; i < n_in; ++i) {
    st.in_base[i] = in[i]->base();
    st.in_dtype[i] = in[i]->desc.dtype;
  }
  ThreadPool& pool = opt.pool ? *opt.pool : default_thread_pool();

  if (reduce == Reduce::kNone) {
    const LoopPlan plan = make_loop_plan(descs, shape);
    // Packed destinations share bytes between neighbours: one writer only.
    const int parts = is_packed(dst.desc.dtype) ? 1 : parts_for(plan, pool);
    run_parts(pool, plan, split_dim(plan, parts, 0), parts,
              [&](const LoopPlan& sub, int) { run_serial(st, sub, nullptr); });
    return;
  }

  // Reduction: a dense accumulator shaped like the destination rides along as the last
  // operand. Parts own disjoint accumulator elements when a dim can be cut that way;
  // otherwise each part fills a private copy and the copies are combined in part order, so
  // results are the same on every run.
  st.acc_dtype = accumulator_dtype(expr.result());
  const TensorDesc acc_desc = row_major(st.acc_dtype, dst.desc.shape);
  desc_list[n_in + 1] = &acc_desc;
  descs = std::span<const TensorDesc* const>(desc_list, static_cast<size_t>(n_in + 2));
  const int64_t acc_n = element_count(acc_desc);
  const LoopPlan plan = make_loop_plan(descs, shape);
  const int acc_op = n_in + 1;
  const int parts = parts_for(plan, pool);
  int d = split_dim(plan, parts, acc_op);
  const bool private_acc =
      parts > 1 && (d < 0 || plan.length[d] < parts) && acc_n <= kMaxPrivateAccumulator;
  if (private_acc) d = split_dim(plan, parts, -1);
  const int n_acc = private_acc ? parts : 1;
  // Raw bytes: the accumulators are double, int64 or uint64 depending on the result type.
  std::vector<std::unique_ptr<std::byte[]>> accs;
  accs.reserve(n_acc);  // before the buffers: a vector growing after `new` would leak one
  for (int a = 0; a < n_acc; ++a) {
    accs.emplace_back(new std::byte[std::max<int64_t>(acc_n, 1) * 8]);
    fill_identity(reduce, st.acc_dtype, accs.back().get(), acc_n);
  }
  run_parts(pool, plan, d, private_acc ? parts : (d < 0 ? 1 : parts),
            [&](const LoopPlan& sub, int part) {
              run_serial(st, sub, accs[private_acc ? part : 0].get());
            });
  for (int a = 1; a < n_acc; ++a)
    combine_partials(reduce, st.acc_dtype, accs[0].get(), accs[a].get(), acc_n);
  if (reduce == Reduce::kMean)
    divide_by_count(st.acc_dtype, accs[0].get(), acc_n, acc_n ? loop_elements(plan) / acc_n : 0);
  assign(dst, ConstOperand{acc_desc, accs[0].get()}, opt);
}

}  // namespace geon
