// Einsum (12): every equation form, as views, sums and batched matrix products. Each operand
// is first a view: a label repeated within a term becomes one dim whose stride is the sum of
// its strides (the diagonal), and a length-1 dim stretches to its label's length (stride 0).
// Labels no later operand and not the output need are summed out (the engine's reduce); two
// operands then contract as one batched product [batch, M, K] x [batch, K, N], operands taken
// left to right. The result is permuted to the output's label order and assigned into it.
// Values accumulate in double (floating types) or in 64-bit integers that wrap like numpy's.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/engine/op_functors.h"
#include "kernels/cpu/generic/layout/ops.h"

namespace geon::cpu {
namespace {

constexpr int kEllipsis = -1;        // marks where a term's ellipsis stands
constexpr int kEllipsisBase = 1000;  // ellipsis dim j (right-aligned) is label 1000 + j

struct Equation {
  std::vector<std::vector<int>> terms;  // letters as their char code, kEllipsis for "..."
  std::vector<int> out;
  bool explicit_out = false;
};

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::vector<int> parse_term(const std::string& eq, const std::string& s) {
  std::vector<int> t;
  bool ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (is_letter(s[i])) {
      t.push_back(s[i]);
    } else if (s.compare(i, 3, "...") == 0 && !ellipsis) {
      t.push_back(kEllipsis);
      ellipsis = true;
      i += 2;
    } else {
      fail(ErrorCode::kInvalidArgument,
           "equation '" + eq + "': unexpected '" + std::string(1, s[i]) + "' in term '" + s + "'");
    }
  }
  return t;
}

Equation parse(const std::string& raw) {
  std::string eq;
  for (char c : raw)
    if (c != ' ') eq.push_back(c);
  Equation e;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    e.terms.push_back(parse_term(
        eq, lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (arrow != std::string::npos) {
    e.explicit_out = true;
    const std::string rhs = eq.substr(arrow + 2);
    e.out = parse_term(eq, rhs);
    for (size_t i = 0; i < e.out.size(); ++i) {
      if (e.out[i] == kEllipsis) continue;
      require(std::count(e.out.begin(), e.out.end(), e.out[i]) == 1, [&] {
        return "equation '" + eq + "': output label '" + std::string(1, char(e.out[i])) +
               "' appears twice";
      });
      bool used = false;
      for (const auto& t : e.terms) used = used || std::count(t.begin(), t.end(), e.out[i]) > 0;
      require(used, [&] {
        return "equation '" + eq + "': output label '" + std::string(1, char(e.out[i])) +
               "' is in no input term";
      });
    }
  }
  return e;
}

// A tensor with one label per dim (no label twice), over its own storage or an input's.
struct Part {
  TensorDesc desc;
  const void* data = nullptr;
  std::vector<int> labels;
  std::shared_ptr<std::vector<std::byte>> own;
};

bool has(const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

// The labels of p not in `keep` summed out, into a dense `acc` array.
Part sum_out(const Part& p, const std::set<int>& keep, DType acc) {
  Part r;
  Dims kept, ones;
  for (size_t i = 0; i < p.labels.size(); ++i) {
    const bool k = keep.count(p.labels[i]) != 0;
    if (k) {
      r.labels.push_back(p.labels[i]);
      kept.push_back(p.desc.shape[i]);
    }
    ones.push_back(k ? p.desc.shape[i] : 1);
  }
  if (r.labels.size() == p.labels.size()) return p;
  check_output_size(acc, kept, "a partial sum");
  r.own = std::make_shared<std::vector<std::byte>>(
      static_cast<size_t>(dtype_bytes_for(acc, std::max<int64_t>(element_count(kept), 1))));
  r.desc = row_major(acc, kept);
  r.data = r.own->data();
  if (element_count(kept) == 0) return r;
  if (element_count(p.desc) == 0)
    assign(Operand{r.desc, r.own->data()}, ConstOperand::scalar(0, acc));
  else
    reduce(Reduce::kSum, Operand{row_major(acc, ones), r.own->data()},
           ConstOperand(p.desc, p.data));
  return r;
}

// p's dims in the order of `labels`, staged dense in `acc`.
template <class T>
std::vector<T> staged(const Part& p, const std::vector<int>& labels, DType acc) {
  std::vector<int64_t> perm;
  for (int l : labels)
    perm.push_back(std::find(p.labels.begin(), p.labels.end(), l) - p.labels.begin());
  const TensorDesc v = permute(p.desc, perm);
  // A stretched length-1 dim (stride 0) makes the staged copy larger than the input.
  check_output_size(acc, v.shape, "a staged operand");
  std::vector<T> out(static_cast<size_t>(std::max<int64_t>(element_count(v), 1)));
  if (element_count(v) > 0) assign(Operand{row_major(acc, v.shape), out.data()}, {v, p.data});
  return out;
}

template <class T>
Part contract_typed(const Part& a, const Part& b, const std::set<int>& keep, DType acc) {
  std::vector<int> batch, con, a_only, b_only;
  for (int l : a.labels) (has(b.labels, l) ? (keep.count(l) ? batch : con) : a_only).push_back(l);
  for (int l : b.labels)
    if (!has(a.labels, l)) b_only.push_back(l);
  auto length = [&](int l) {
    const auto i = std::find(a.labels.begin(), a.labels.end(), l);
    return i != a.labels.end()
               ? a.desc.shape[i - a.labels.begin()]
               : b.desc.shape[std::find(b.labels.begin(), b.labels.end(), l) - b.labels.begin()];
  };
  auto product = [&](const std::vector<int>& ls) {
    int64_t p = 1;
    for (int l : ls) p *= length(l);
    return p;
  };
  const int64_t nb = product(batch), M = product(a_only), K = product(con), N = product(b_only);
  std::vector<int> la = batch, lb = batch, lr = batch;
  la.insert(la.end(), a_only.begin(), a_only.end());
  la.insert(la.end(), con.begin(), con.end());
  lb.insert(lb.end(), con.begin(), con.end());
  lb.insert(lb.end(), b_only.begin(), b_only.end());
  lr.insert(lr.end(), a_only.begin(), a_only.end());
  lr.insert(lr.end(), b_only.begin(), b_only.end());
  Dims shape;
  for (int l : lr) shape.push_back(length(l));
  check_output_size(acc, shape, "an intermediate product");
  const std::vector<T> av = staged<T>(a, la, acc), bv = staged<T>(b, lb, acc);
  Part r;
  r.labels = lr;
  r.desc = row_major(acc, shape);
  r.own = std::make_shared<std::vector<std::byte>>(
      static_cast<size_t>(dtype_bytes_for(acc, std::max<int64_t>(element_count(shape), 1))));
  r.data = r.own->data();
  T* c = reinterpret_cast<T*>(r.own->data());
  parallel_rows(nb * M, K * N, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t bi = row / M;
      const T* ar = av.data() + row * K;
      T* cr = c + row * N;
      std::fill(cr, cr + N, T(0));
      for (int64_t k = 0; k < K; ++k) {
        const T x = ar[k];
        const T* br = bv.data() + (bi * K + k) * N;
        for (int64_t j = 0; j < N; ++j) cr[j] = ops::wrap_add(cr[j], ops::wrap_mul(x, br[j]));
      }
    }
  });
  return r;
}

Part contract(const Part& a, const Part& b, const std::set<int>& keep, DType acc) {
  std::set<int> ka = keep, kb = keep;
  ka.insert(b.labels.begin(), b.labels.end());
  kb.insert(a.labels.begin(), a.labels.end());
  const Part sa = sum_out(a, ka, acc), sb = sum_out(b, kb, acc);
  if (acc == DType::kDouble) return contract_typed<double>(sa, sb, keep, acc);
  if (acc == DType::kInt64) return contract_typed<int64_t>(sa, sb, keep, acc);
  return contract_typed<uint64_t>(sa, sb, keep, acc);
}

std::string label_text(int l) {
  return l >= kEllipsisBase ? "ellipsis dim " + std::to_string(l - kEllipsisBase)
                            : "label '" + std::string(1, char(l)) + "'";
}

void einsum(KernelContext& ctx, const Equation& eq) {
  const int n = static_cast<int>(eq.terms.size());
  require(ctx.num_inputs() == n, [&] {
    return "the equation has " + std::to_string(n) + " input terms but the node has " +
           std::to_string(ctx.num_inputs()) + " inputs";
  });
  // The ellipsis dims of each input, right-aligned against the longest.
  std::vector<int> ell(n, 0);
  int max_ell = 0;
  for (int i = 0; i < n; ++i) {
    const auto& t = eq.terms[i];
    const int named = static_cast<int>(t.size()) - (has(t, kEllipsis) ? 1 : 0);
    const int r = ctx.input(i).desc.rank();
    if (has(t, kEllipsis)) {
      require(r >= named, [&] {
        return "input " + std::to_string(i) + " has rank " + std::to_string(r) +
               " but its term names " + std::to_string(named) + " dims";
      });
      ell[i] = r - named;
    } else {
      require(r == named, [&] {
        return "input " + std::to_string(i) + " has rank " + std::to_string(r) +
               " but its term names " + std::to_string(named) + " dims";
      });
    }
    max_ell = std::max(max_ell, ell[i]);
  }
  // Each input's labels dim by dim, and each label's length (a length-1 dim stretches).
  std::vector<std::vector<int>> labels(n);
  std::map<int, int64_t> len;
  std::map<int, int> uses;
  for (int i = 0; i < n; ++i) {
    for (int l : eq.terms[i]) {
      if (l != kEllipsis) {
        labels[i].push_back(l);
        continue;
      }
      for (int j = 0; j < ell[i]; ++j) labels[i].push_back(kEllipsisBase + max_ell - ell[i] + j);
    }
    const Dims& s = ctx.input(i).desc.shape;
    for (size_t d = 0; d < s.size(); ++d) {
      const int l = labels[i][d];
      ++uses[l];
      auto it = len.find(l);
      if (it == len.end() || it->second == 1) {
        len[l] = s[d];
      } else {
        require(s[d] == it->second || s[d] == 1, [&] {
          return label_text(l) + " marks dims of lengths " + std::to_string(it->second) + " and " +
                 std::to_string(s[d]) + " (input " + std::to_string(i) + ")";
        });
      }
    }
  }
  // The output's labels.
  std::vector<int> out;
  if (eq.explicit_out) {
    for (int l : eq.out) {
      if (l != kEllipsis) {
        out.push_back(l);
        continue;
      }
      for (int j = 0; j < max_ell; ++j) out.push_back(kEllipsisBase + j);
    }
  } else {
    for (int j = 0; j < max_ell; ++j) out.push_back(kEllipsisBase + j);
    for (const auto& [l, count] : uses)  // std::map: in ASCII order, as numpy sorts them
      if (l < kEllipsisBase && count == 1) out.push_back(l);
  }
  Dims out_shape;
  for (int l : out) out_shape.push_back(len.at(l));
  const DType t = ctx.input(0).desc.dtype;
  for (int i = 1; i < n; ++i)
    require(ctx.input(i).desc.dtype == t, [&] {
      return "input " + std::to_string(i) + " is " +
             std::string(dtype_name(ctx.input(i).desc.dtype)) + " but input 0 is " +
             std::string(dtype_name(t));
    });
  const DType acc =
      is_integer(t) ? (is_signed(t) ? DType::kInt64 : DType::kUInt64) : DType::kDouble;
  // Each input as a view with distinct labels, its length-1 dims stretched.
  std::vector<Part> parts(n);
  for (int i = 0; i < n; ++i) {
    const TensorDesc& d = ctx.input(i).desc;
    Part& p = parts[i];
    p.data = ctx.input(i).data;
    p.desc = d;
    p.desc.shape.clear();
    p.desc.strides.clear();
    for (int dim = 0; dim < d.rank(); ++dim) {
      const int l = labels[i][dim];
      const auto at = std::find(p.labels.begin(), p.labels.end(), l);
      if (at != p.labels.end()) {
        const size_t k = at - p.labels.begin();
        require(p.desc.shape[k] == d.shape[dim], [&] {
          return label_text(l) + " is repeated in input " + std::to_string(i) +
                 " over dims of lengths " + std::to_string(p.desc.shape[k]) + " and " +
                 std::to_string(d.shape[dim]);
        });
        p.desc.strides[k] += d.strides[dim];
        continue;
      }
      p.labels.push_back(l);
      const bool stretch = d.shape[dim] == 1 && len[l] != 1;
      p.desc.shape.push_back(stretch ? len[l] : d.shape[dim]);
      p.desc.strides.push_back(stretch ? 0 : d.strides[dim]);
    }
  }
  const std::set<int> out_set(out.begin(), out.end());
  Part cur = parts[0];
  for (int i = 1; i < n; ++i) {
    std::set<int> keep = out_set;
    for (int j = i + 1; j < n; ++j) keep.insert(parts[j].labels.begin(), parts[j].labels.end());
    cur = contract(cur, parts[i], keep, acc);
  }
  cur = sum_out(cur, out_set, acc);
  const TensorRef& dst = ctx.output(0, out_shape);
  if (element_count(out_shape) == 0) return;
  std::vector<int64_t> perm;
  for (int l : out)
    perm.push_back(std::find(cur.labels.begin(), cur.labels.end(), l) - cur.labels.begin());
  assign(dst_of(dst), ConstOperand(permute(cur.desc, perm), cur.data));
}

}  // namespace

Reason supports_einsum(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (t == DType::kString)
    return "Einsum multiplies and sums its inputs; strings cannot be multiplied or summed";
  const bool ok = t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 ||
                  t == DType::kBFloat16 || (is_integer(t) && !is_packed(t));
  if (!ok) return "Einsum of " + std::string(dtype_name(t)) + " is not implemented";
  try {
    const Equation e = parse(attr_string(n, "equation", ""));
    if (e.terms.size() != n.inputs.size())
      return "the equation has " + std::to_string(e.terms.size()) + " input terms but the node " +
             "has " + std::to_string(n.inputs.size()) + " inputs";
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_einsum(const Graph&, const Node& n) {
  const Equation eq = parse(attr_string(n, "equation", ""));
  return make_node_kernel(n, [eq](KernelContext& ctx) { einsum(ctx, eq); });
}

}  // namespace geon::cpu
