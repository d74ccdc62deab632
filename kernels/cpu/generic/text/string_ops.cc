// StringConcat (broadcasting), StringSplit (Python's str.split: a delimiter, or runs of
// whitespace when none is given, and maxsplit) and StringNormalizer (stopwords removed,
// case sensitive or not, then the case changed under a C++ locale).
#include <algorithm>
#include <cwctype>
#include <locale>
#include <set>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

Reason string_io(const Graph& g, const Node& n, int inputs) {
  for (int i = 0; i < inputs; ++i)
    if (Reason r = require_string(input_dtype(g, n, i), "input " + std::to_string(i))) return r;
  return std::nullopt;
}

// ---- StringSplit ----

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Python's s.split(sep, maxsplit); maxsplit < 0: no limit. sep empty: runs of whitespace, and
// leading / trailing whitespace gives no empty pieces.
std::vector<std::string_view> split(std::string_view s, std::string_view sep, int64_t maxsplit) {
  std::vector<std::string_view> out;
  if (sep.empty()) {
    size_t i = 0;
    while (true) {
      while (i < s.size() && is_space(s[i])) ++i;
      if (i == s.size()) break;
      if (maxsplit >= 0 && static_cast<int64_t>(out.size()) == maxsplit) {
        out.push_back(s.substr(i));  // the rest, trailing whitespace kept, as Python does
        break;
      }
      size_t j = i;
      while (j < s.size() && !is_space(s[j])) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    }
    return out;
  }
  size_t start = 0;
  while (maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) {
    const size_t k = s.find(sep, start);
    if (k == std::string_view::npos) break;
    out.push_back(s.substr(start, k - start));
    start = k + sep.size();
  }
  out.push_back(s.substr(start));
  return out;
}

// ---- StringNormalizer ----

// UTF-8 to code points and back; an invalid byte is taken as the code point of its value, so
// no input can make decoding fail or read past the end.
std::u32string decode(std::string_view s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    bool ok = len > 0 && i + static_cast<size_t>(len) <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      ok = (c >> 6) == 2;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (!ok) {
      out.push_back(b);
      ++i;
      continue;
    }
    out.push_back(cp);
    i += static_cast<size_t>(len);
  }
  return out;
}

std::string encode(std::u32string_view s) {
  std::string out;
  for (char32_t c : s) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

enum class Case { kNone, kLower, kUpper };

// The locale the attribute names ("en_US" tried as "en_US.UTF-8" too); C.UTF-8 when the system
// lacks it (Debian generates only C.UTF-8 unless the locales package is configured), whose
// case tables cover all of Unicode.
std::locale locale_for(const std::string& name) {
  for (const std::string& n : {name + ".UTF-8", name + ".utf8", name, std::string("C.UTF-8")}) {
    if (n.empty() || n == ".UTF-8" || n == ".utf8") continue;
    try {
      return std::locale(n);
    } catch (const std::runtime_error&) {
    }
  }
  return std::locale::classic();
}

std::string change_case(std::string_view s, Case c, const std::locale& loc) {
  if (c == Case::kNone) return std::string(s);
  const auto& ct = std::use_facet<std::ctype<wchar_t>>(loc);
  std::u32string cps = decode(s);
  for (char32_t& cp : cps) {
    const auto w = static_cast<wchar_t>(cp);
    cp = static_cast<char32_t>(c == Case::kUpper ? ct.toupper(w) : ct.tolower(w));
  }
  return encode(cps);
}

struct Normalizer {
  Case action = Case::kNone;
  bool case_sensitive = false;
  std::set<std::string> stops;  // lower-cased when not case sensitive
  std::locale loc;
};

}  // namespace

Reason supports_string_concat(const Graph& g, const Node& n) {
  if (Reason r = string_io(g, n, 2)) return r;
  return require_string(output_dtype(g, n, 0), "the output");
}
std::unique_ptr<Kernel> create_string_concat(const Graph&, const Node& n) {
  return make_node_kernel(n, [](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const TensorRef& y = ctx.input(1);
    const Dims shape = broadcast_shapes(x.desc.shape, y.desc.shape);
    const TensorRef& dst = ctx.output(0, shape);
    const std::vector<std::string_view> a = read_strings_as(x, shape),
                                        b = read_strings_as(y, shape);
    // Broadcasting can multiply a long string: the text is measured before it is made.
    int64_t total = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      total += static_cast<int64_t>(a[i].size() + b[i].size());
      if (total > kMaxStringOutputBytes)
        fail(ErrorCode::kResourceExhausted, "the concatenated strings need more than " +
                                                std::to_string(kMaxStringOutputBytes) + " bytes");
    }
    std::vector<std::string> out(a.size());
    for (size_t i = 0; i < a.size(); ++i) (out[i] = a[i]) += b[i];
    write_strings(dst, out);
  });
}

Reason supports_string_split(const Graph& g, const Node& n) {
  if (Reason r = string_io(g, n, 1)) return r;
  if (attr_int(n, "maxsplit", 0) < 0) return "attribute 'maxsplit' is negative";
  return std::nullopt;
}
std::unique_ptr<Kernel> create_string_split(const Graph&, const Node& n) {
  const std::string sep = attr_string(n, "delimiter", "");
  const Attribute* m = n.attr("maxsplit");
  const int64_t maxsplit = m ? m->i : -1;
  return make_node_kernel(n, [sep, maxsplit](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const std::vector<std::string_view> in = read_strings(x);
    std::vector<std::vector<std::string_view>> parts(in.size());
    int64_t most = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      parts[i] = split(in[i], sep, maxsplit);
      most = std::max<int64_t>(most, static_cast<int64_t>(parts[i].size()));
    }
    Dims shape = x.desc.shape;
    shape.push_back(most);
    check_output_size(DType::kString, shape, "the substrings (output 0)");
    const TensorRef& y = ctx.output(0, shape);
    std::vector<std::string_view> flat(static_cast<size_t>(element_count(shape)));
    std::vector<int64_t> counts(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      std::copy(parts[i].begin(), parts[i].end(), flat.begin() + static_cast<int64_t>(i) * most);
      counts[i] = static_cast<int64_t>(parts[i].size());
    }
    write_strings(y, flat);
    if (ctx.num_outputs() > 1) {
      const TensorRef& z = ctx.output(1, x.desc.shape);
      if (z.data || !counts.empty())
        assign(dst_of(z), ConstOperand(row_major(DType::kInt64, x.desc.shape), counts.data()));
    }
  });
}

Reason supports_string_normalizer(const Graph& g, const Node& n) {
  if (Reason r = string_io(g, n, 1)) return r;
  const std::string a = attr_string(n, "case_change_action", "NONE");
  if (a != "NONE" && a != "LOWER" && a != "UPPER")
    return "attribute 'case_change_action' is '" + a + "'";
  return std::nullopt;
}
std::unique_ptr<Kernel> create_string_normalizer(const Graph&, const Node& n) {
  auto p = std::make_shared<Normalizer>();
  const std::string a = attr_string(n, "case_change_action", "NONE");
  p->action = a == "LOWER" ? Case::kLower : a == "UPPER" ? Case::kUpper : Case::kNone;
  p->case_sensitive = attr_int(n, "is_case_sensitive", 0) != 0;
  p->loc = locale_for(attr_string(n, "locale", "en_US"));
  if (const Attribute* s = n.attr("stopwords"))
    for (const std::string& w : s->strings)
      p->stops.insert(p->case_sensitive ? w : change_case(w, Case::kLower, p->loc));
  return make_node_kernel(n, [p](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const int rank = x.desc.rank();
    if (rank != 1 && !(rank == 2 && x.desc.shape[0] == 1))
      fail(ErrorCode::kInvalidArgument, "input 0 must be [C] or [1, C], got " + to_string(x.desc));
    std::vector<std::string> kept;
    for (std::string_view s : read_strings(x)) {
      const std::string key =
          p->case_sensitive ? std::string(s) : change_case(s, Case::kLower, p->loc);
      if (p->stops.count(key)) continue;
      kept.push_back(change_case(s, p->action, p->loc));
    }
    if (kept.empty()) kept.emplace_back();  // all removed: one empty string
    Dims shape = x.desc.shape;
    shape.back() = static_cast<int64_t>(kept.size());
    write_strings(ctx.output(0, shape), kept);
  });
}

}  // namespace geon::cpu
