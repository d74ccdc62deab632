// RegexFullMatch: whether each string matches the pattern as a whole, in RE2 syntax (the one
// the ONNX spec names), through Debian's RE2. The pattern is compiled once, at create().
#include "core/base/error.h"
#include "kernels/cpu/generic/text/ops.h"

#ifdef GEON_HAVE_RE2
#include <re2/re2.h>
#endif

namespace geon::cpu {

#ifdef GEON_HAVE_RE2
namespace {
std::shared_ptr<const re2::RE2> compile(const std::string& pattern) {
  re2::RE2::Options opt;
  opt.set_log_errors(false);
  return std::make_shared<const re2::RE2>(pattern, opt);
}
}  // namespace
#endif

Reason supports_regex_full_match(const Graph& g, const Node& n) {
  if (Reason r = require_string(input_dtype(g, n, 0), "input 0")) return r;
#ifdef GEON_HAVE_RE2
  const Attribute* p = n.attr("pattern");
  if (!p) return "attribute 'pattern' is missing";
  if (auto re = compile(p->s); !re->ok())
    return "attribute 'pattern' is not a valid RE2 pattern: " + re->error();
  return std::nullopt;
#else
  return "geon was built without RE2 (Debian libre2-dev), which RegexFullMatch needs";
#endif
}

std::unique_ptr<Kernel> create_regex_full_match(const Graph&, const Node& n) {
#ifdef GEON_HAVE_RE2
  const Attribute* p = n.attr("pattern");
  require(p != nullptr, "RegexFullMatch: attribute 'pattern' is missing");
  std::shared_ptr<const re2::RE2> re = compile(p->s);
  if (!re->ok())
    fail(ErrorCode::kInvalidArgument,
         "RegexFullMatch: attribute 'pattern' is not a valid RE2 "
         "pattern: " +
             re->error());
  return make_node_kernel(n, [re](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const std::vector<std::string_view> in = read_strings(x);
    const TensorRef& y = ctx.output(0, x.desc.shape);
    std::vector<uint8_t> out(in.size());
    for (size_t i = 0; i < in.size(); ++i)
      out[i] = re2::RE2::FullMatch(re2::StringPiece(in[i].data(), in[i].size()), *re) ? 1 : 0;
    if (!out.empty())
      assign(dst_of(y), ConstOperand(row_major(DType::kBool, x.desc.shape), out.data()));
  });
#else
  fail(ErrorCode::kNotSupported, "RegexFullMatch needs RE2 (Debian libre2-dev)");
  (void)n;
#endif
}

}  // namespace geon::cpu
