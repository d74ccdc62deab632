// Host planning of CUDA passes (see plan.h).
#include "kernels/cuda/plan.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/engine/accumulate.h"
#include "kernels/cuda/cast.h"
#include "kernels/cuda/op_table.h"
#include "kernels/cuda/reduce.h"
#include "kernels/cuda/typed.h"

namespace geon::cuda {
namespace {

DType dtype_of(int ci) { return kComputeTypes[ci]; }

int element_bytes(DType t) { return std::max(1, dtype_bits(t) / 8); }

int typed_vec_of(int ci) {
  int v = 0;
  with_compute(ci, [&](auto t) { v = typed_vec<decltype(t)>(); });
  return v;
}

// Binds input i of e to operand o. A scalar operand (no data, ConstOperand::scalar) is copied
// into the pass; its view must stay within the 16 inline bytes.
void bind_input(DevExpr& e, int i, const ConstOperand& o) {
  e.in_dtype[i] = o.desc.dtype;
  if (o.data != nullptr) {
    e.in[i] = o.data;
    return;
  }
  require(element_count(o.desc) == 0 ||
              (element_span(o.desc).first >= 0 && byte_span(o.desc).end <= 16),
          [&] {
            return "CUDA engine: a scalar operand's view must stay within its value: " +
                   to_string(o.desc);
          });
  e.inline_mask |= static_cast<uint8_t>(1u << i);
  std::memcpy(e.inline_value[i], o.base(), sizeof e.inline_value[i]);
}

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// Merges neighbouring dims that every operand steps through as one (after a split).
void coalesce(LoopPlan& p) {
  int r = 0;
  for (int d = 0; d < p.rank; ++d) {
    bool merge = r > 0;
    for (int o = 0; o < p.operands && merge; ++o)
      merge = p.stride[o][r - 1] == p.stride[o][d] * p.length[d];
    if (merge) {
      p.length[r - 1] *= p.length[d];
      for (int o = 0; o < p.operands; ++o) p.stride[o][r - 1] = p.stride[o][d];
      continue;
    }
    p.length[r] = p.length[d];
    for (int o = 0; o < p.operands; ++o) p.stride[o][r] = p.stride[o][d];
    ++r;
  }
  p.rank = r;
}

// A single node whose arguments are all inputs stored in its compute type (the condition of
// where: bool), so a typed kernel can read them directly.
bool single_typed_node(const DevExpr& e, std::span<const ConstOperand> in) {
  if (e.n_nodes != 1) return false;
  const DevNode& n = e.nodes[0];
  const bool cond_first = all_ops()[static_cast<int>(n.op)].condition_first;
  for (int a = 0; a < n.arity; ++a) {
    if (n.arg[a] < 0) return false;
    const DType want = (cond_first && a == 0) ? DType::kBool : dtype_of(n.compute);
    if (in[n.arg[a]].desc.dtype != want) return false;
  }
  return true;
}

// The pass's inputs: all of them, or for a typed kernel one per node argument, in order.
std::vector<const ConstOperand*> bind_all(DevExpr& e, std::span<const ConstOperand> in,
                                          bool typed) {
  std::vector<const ConstOperand*> args;
  if (typed) {
    DevNode& n = e.nodes[0];
    for (int a = 0; a < n.arity; ++a) {
      args.push_back(&in[n.arg[a]]);
      n.arg[a] = static_cast<int8_t>(a);
    }
  } else {
    for (const ConstOperand& o : in) args.push_back(&o);
  }
  e.n_in = static_cast<int>(args.size());
  e.inline_mask = 0;
  for (int i = 0; i < e.n_in; ++i) bind_input(e, i, *args[i]);
  return args;
}

}  // namespace

Grid items_grid(int64_t items, int multiprocessors) {
  Grid g;
  if (items <= 0) return g;
  const int64_t want = (items + kBlockThreads - 1) / kBlockThreads;
  g.blocks = static_cast<unsigned>(std::min<int64_t>(want, int64_t{8} * multiprocessors));
  return g;
}

DevExpr encode_expr(const Expr& expr) {
  const int n_nodes = static_cast<int>(expr.nodes.size());
  const int n_in = static_cast<int>(expr.inputs.size());
  if (n_nodes > kMaxNodes)
    fail(ErrorCode::kNotSupported, "CUDA engine: expressions of more than " +
                                       std::to_string(kMaxNodes) + " nodes are not supported (" +
                                       std::to_string(n_nodes) + " given)");
  require(n_nodes >= 1, "expression: no ops");
  require(n_in <= kMaxInputs,
          [&] { return "evaluate: at most " + std::to_string(kMaxInputs) + " inputs"; });
  DevExpr e;
  e.n_in = n_in;
  e.n_nodes = n_nodes;
  for (int i = 0; i < n_in; ++i) e.in_dtype[i] = expr.inputs[i];
  for (int k = 0; k < n_nodes; ++k) {
    const ExprNode& src = expr.nodes[k];
    const CudaOpDef* op = find_op(src.op->name);
    const int ci = compute_index(src.compute);
    if (op == nullptr || ci < 0 || !op->types[ci])
      fail(ErrorCode::kNotSupported, "CUDA engine: op '" + std::string(src.op->name) +
                                         "' is not available for " +
                                         std::string(dtype_name(src.compute)));
    DevNode& n = e.nodes[k];
    n.op = op->id;
    n.compute = static_cast<int8_t>(ci);
    n.result = static_cast<int8_t>(compute_index(src.result));
    n.arity = static_cast<int8_t>(op->arity);
    n.alpha = src.params.alpha;
    n.beta = src.params.beta;
    for (int a = 0; a < op->arity; ++a) {
      const ExprArg arg = src.args[a];
      n.arg[a] = static_cast<int8_t>(arg.node ? ~arg.index : arg.index);
      n.scale[a] = src.scale[a];
    }
  }
  return e;
}

DevExpr simplify(const DevExpr& in) {
  DevExpr e = in;
  const int last = e.n_nodes - 1;
  auto uses = [&](int node) {
    int n = 0;
    for (int k = 0; k < e.n_nodes; ++k)
      for (int a = 0; a < e.nodes[k].arity; ++a) n += e.nodes[k].arg[a] == ~node;
    return n;
  };
  std::vector<bool> dead(e.n_nodes, false);
  for (int k = 0; k < e.n_nodes; ++k) {
    DevNode& m = e.nodes[k];
    if (m.op != OpId::Mul || m.arg[0] != m.arg[1] || m.scale[0] != 1 || m.scale[1] != 1) continue;
    if (m.arg[0] >= 0) {  // mul(x, x) of an input: square(x)
      m.op = OpId::Square;
      m.arity = 1;
      continue;
    }
    const int d = ~m.arg[0];
    const DevNode& s = e.nodes[d];
    if (s.op != OpId::Sub || s.compute != m.compute || d == last || uses(d) != 2) continue;
    m.op = OpId::SquaredDifference;  // wrap_mul(wrap_sub(a, b), same): the functor itself
    m.arg[0] = s.arg[0];
    m.arg[1] = s.arg[1];
    m.scale[0] = s.scale[0];
    m.scale[1] = s.scale[1];
    dead[d] = true;
  }
  // Drop dead nodes and renumber node references.
  DevExpr out = e;
  std::vector<int> new_index(e.n_nodes, -1);
  int n = 0;
  for (int k = 0; k < e.n_nodes; ++k) {
    if (dead[k]) continue;
    new_index[k] = n;
    DevNode node = e.nodes[k];
    for (int a = 0; a < node.arity; ++a)
      if (node.arg[a] < 0) node.arg[a] = static_cast<int8_t>(~new_index[~node.arg[a]]);
    out.nodes[n++] = node;
  }
  out.n_nodes = n;
  return out;
}

bool vectors_aligned(const LoopPlan& p, std::span<const uintptr_t> base,
                     std::span<const int> element_bytes, int vec, const LoopPlan* outer) {
  if (p.rank == 0 || vec <= 1) return false;
  for (int o = 0; o < p.operands; ++o) {
    if (inner_stride(p, o) != 1) continue;  // read element by element anyway
    const int64_t es = element_bytes[o];
    const int64_t offset = p.offset[o] + (outer ? outer->offset[o] : 0);
    const int64_t first = static_cast<int64_t>(base[o]) + offset * es;
    if (((first % (vec * es)) + vec * es) % (vec * es) != 0) return false;
    for (int d = 0; d + 1 < p.rank; ++d)
      if (p.stride[o][d] % vec != 0) return false;
    if (outer)
      for (int d = 0; d < outer->rank; ++d)
        if (outer->stride[o][d] % vec != 0) return false;
  }
  return true;
}

ElementwisePlan plan_elementwise(const DevExpr& e, const Operand& dst,
                                 std::span<const ConstOperand> in, std::span<const int64_t> shape,
                                 const CastOptions& cast, int multiprocessors) {
  ElementwisePlan r;
  r.pass.e = e;
  r.typed = single_typed_node(e, in) && dtype_of(e.nodes[0].result) == dst.desc.dtype;
  const std::vector<const ConstOperand*> args = bind_all(r.pass.e, in, r.typed);
  std::vector<const TensorDesc*> descs{&dst.desc};
  std::vector<uintptr_t> base{address(dst.data)};
  std::vector<int> bytes{element_bytes(dst.desc.dtype)};
  for (const ConstOperand* a : args) {
    descs.push_back(&a->desc);
    base.push_back(address(a->data));
    bytes.push_back(element_bytes(a->desc.dtype));
  }
  r.pass.plan = make_loop_plan(descs, shape);
  r.pass.dst = dst.data;
  r.pass.dst_dtype = dst.desc.dtype;
  r.pass.cast = cast;
  const int vec = r.typed ? typed_vec_of(e.nodes[0].compute) : kScalarTileVec;
  r.pass.tiles = make_tiles(r.pass.plan, vec);
  r.pass.vector = r.typed && vectors_aligned(r.pass.plan, base, bytes, vec);
  r.grid = items_grid(r.pass.tiles.count, multiprocessors);
  return r;
}

ReduceSplit split_reduction(const LoopPlan& p) {
  ReduceSplit s;
  s.out.operands = s.red.operands = p.operands;
  for (int o = 0; o < p.operands; ++o) s.out.offset[o] = p.offset[o];
  for (int d = 0; d < p.rank; ++d) {
    LoopPlan& t = p.stride[0][d] == 0 ? s.red : s.out;
    const int k = t.rank++;
    t.length[k] = p.length[d];
    for (int o = 0; o < p.operands; ++o) t.stride[o][k] = p.stride[o][d];
  }
  coalesce(s.out);
  coalesce(s.red);
  return s;
}

bool has_typed_reduce(OpId op, int ci) {
  const bool op_ok = op == OpId::Identity || op == OpId::Square || op == OpId::Abs ||
                     op == OpId::SquaredDifference;
  return op_ok && (ci == kCiFloat || ci == kCiDouble);
}

ReductionPlan plan_reduction(const DevExpr& e, Reduce reduce, const Operand& dst,
                             std::span<const ConstOperand> in, std::span<const int64_t> shape,
                             const CastOptions& cast, int multiprocessors) {
  ReductionPlan r;
  ReducePass& p = r.pass;
  p.e = e;
  r.typed = single_typed_node(e, in) && has_typed_reduce(e.nodes[0].op, e.nodes[0].compute);
  const std::vector<const ConstOperand*> args = bind_all(p.e, in, r.typed);
  r.rule = combine_rule(reduce);
  r.acc = accumulator_dtype(dtype_of(e.result()));
  p.dst = dst.data;
  p.dst_dtype = dst.desc.dtype;
  p.cast = cast;
  p.mean = reduce == Reduce::kMean;
  p.n_out = element_count(dst.desc);
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    // Nothing to fold: every output is the identity (a mean of nothing is NaN, or 0).
    const TensorDesc* only[] = {&dst.desc};
    p.out = make_loop_plan(only, dst.desc.shape);
    r.finish = items_grid(p.n_out, multiprocessors);
    return r;
  }
  std::vector<const TensorDesc*> descs{&dst.desc};
  std::vector<uintptr_t> base{address(dst.data)};
  std::vector<int> bytes{element_bytes(dst.desc.dtype)};
  for (const ConstOperand* a : args) {
    descs.push_back(&a->desc);
    base.push_back(address(a->data));
    bytes.push_back(element_bytes(a->desc.dtype));
  }
  const LoopPlan plan = make_loop_plan(descs, shape);
  const ReduceSplit split = split_reduction(plan);
  p.out = split.out;
  p.red = split.red;
  p.n_red = loop_elements(p.red);
  const int vec = r.typed ? typed_vec_of(e.nodes[0].compute) : kScalarTileVec;
  p.red_tiles = make_tiles(p.red, vec);
  // The destination's reduced strides are 0, so only the inputs take part in the check.
  p.vector = r.typed && vectors_aligned(p.red, base, bytes, vec, &p.out);

  // A block per segment when the reduced dims are the dense ones and long enough to give
  // every thread a tile; otherwise a thread per segment, neighbouring threads taking
  // neighbouring outputs.
  const bool inner_reduced = plan.rank > 0 && plan.stride[0][plan.rank - 1] == 0;
  const int64_t tiles = p.red_tiles.count;
  r.shape = inner_reduced && tiles >= kBlockThreads ? ReduceShape::kBlockPerSegment
                                                    : ReduceShape::kThreadPerSegment;
  const int64_t sm = multiprocessors;
  if (r.shape == ReduceShape::kBlockPerSegment) {
    const int64_t want = (8 * sm + p.n_out - 1) / p.n_out;
    p.segments = std::clamp<int64_t>(want, 1, std::max<int64_t>(1, tiles / (4 * kBlockThreads)));
    const int64_t pairs = p.n_out * p.segments;
    r.first.blocks = static_cast<unsigned>(std::min<int64_t>(pairs, int64_t{1} << 30));
  } else {
    const int64_t want = (8 * sm * kBlockThreads + p.n_out - 1) / p.n_out;
    p.segments = std::clamp<int64_t>(want, 1, std::max<int64_t>(1, tiles / 16));
    r.first = items_grid(p.n_out * p.segments, multiprocessors);
  }
  r.finish_by_block = p.segments >= 64;
  if (r.finish_by_block)
    r.finish.blocks = static_cast<unsigned>(std::min<int64_t>(p.n_out, 8 * sm));
  else
    r.finish = items_grid(p.n_out, multiprocessors);
  return r;
}

CastPlan plan_cast(const Operand& dst, const ConstOperand& src, const CastOptions& cast,
                   int multiprocessors) {
  CastPlan r;
  CastPass& p = r.pass;
  const TensorDesc* descs[] = {&dst.desc, &src.desc};
  p.plan = make_loop_plan(descs, dst.desc.shape);
  p.dst = dst.data;
  p.dst_dtype = dst.desc.dtype;
  p.src_dtype = src.desc.dtype;
  p.cast = cast;
  if (src.data != nullptr) {
    p.src = src.data;
  } else {
    DevExpr tmp;  // the same rule as for expression inputs
    bind_input(tmp, 0, src);
    p.src_inline = true;
    std::memcpy(p.inline_src, tmp.inline_value[0], sizeof p.inline_src);
  }
  // Equal dtypes copy raw bits, except packed ones (sub-byte neighbours) and the 8-bit floats,
  // whose CPU assign re-encodes (e5m2's inf becomes its max under saturation).
  const DType t = dst.desc.dtype;
  const bool float8 = is_floating(t) && dtype_bits(t) == 8;
  if (t == src.desc.dtype && !is_packed(t) && !float8) r.copy_bytes = dtype_bits(t) / 8;
  int vec = kScalarTileVec;
  switch (r.copy_bytes) {
    case 1:
      vec = copy_vec<1>();
      break;
    case 2:
      vec = copy_vec<2>();
      break;
    case 4:
      vec = copy_vec<4>();
      break;
    case 8:
      vec = copy_vec<8>();
      break;
    case 16:
      vec = copy_vec<16>();
      break;
    default:
      break;
  }
  p.tiles = make_tiles(p.plan, vec);
  const uintptr_t base[] = {address(p.dst), p.src_inline ? 0 : address(p.src)};
  const int bytes[] = {r.copy_bytes, r.copy_bytes};
  p.vector = r.copy_bytes > 0 && vectors_aligned(p.plan, base, bytes, vec);
  r.grid = items_grid(p.tiles.count, multiprocessors);
  return r;
}

}  // namespace geon::cuda
