// Robustness of the import rules themselves: every rule of the table gets nodes with odd
// inputs (scalars, unknown ranks, empty and symbolic dims, omitted inputs, constants holding
// extreme values, too few or too many inputs) and odd attributes (extreme numbers, empty
// lists, unknown strings, wrong types), seeded per rule. Each import either succeeds or
// throws geon::Error that is not an internal error. Attribute names and input counts come
// from the op's ONNX schema (Debian's libonnx 1.12) where it has one. GEON_RULE_FUZZ_PER_RULE
// sets the cases per rule (default 64); GEON_ROBUSTNESS_ONLY=<Op-since case k> runs one case
// and prints its model.
#include <gtest/gtest.h>
#include <onnx/defs/schema.h>

#include <cmath>
#include <limits>

#include "importer/rule.h"
#include "tests/importer/proto_helpers.h"
#include "tests/importer/robustness_support.h"

namespace geon {
namespace {

using namespace testing_protos;

class NodeFuzzer {
 public:
  explicit NodeFuzzer(uint64_t seed) : rng_(seed) {}

  onnx::ModelProto make(const importer::RuleEntry& rule) {
    const std::string domain(rule.domain);
    auto m = model(domain.empty() ? rule.since : 17);
    if (!domain.empty()) {
      auto* os = m.add_opset_import();
      os->set_domain(domain);
      os->set_version(rule.since);
    }
    auto& g = *m.mutable_graph();
    const auto* schema = onnx::OpSchemaRegistry::Schema(std::string(rule.op), rule.since, domain);
    int lo = 0, hi = 4, outs = 1;
    if (schema) {
      lo = schema->min_input();
      hi = std::min(schema->max_input(), lo + 3);
      outs = std::clamp(schema->max_output(), 1, 3);
    }
    int n_in = pick(lo, std::max(lo, hi));
    if (pick(0, 9) == 0) n_in = std::max(0, n_in + pick(-1, 1));  // one too few or too many
    auto* n = g.add_node();
    n->set_op_type(std::string(rule.op));
    n->set_domain(domain);
    n->set_name("fuzzed");
    for (int i = 0; i < n_in; ++i) n->add_input(add_operand(g, i));
    for (int o = 0; o < outs; ++o) {
      n->add_output("y" + std::to_string(o));
      add_output(g, "y" + std::to_string(o));
    }
    if (schema)
      for (const auto& [name, a] : schema->attributes())
        if (a.required || pick(0, 1)) add_attribute(*n, name, a.type);
    return m;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  int64_t number() {
    static const int64_t kValues[] = {0,
                                      1,
                                      -1,
                                      2,
                                      -2,
                                      3,
                                      4,
                                      1 << 20,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min()};
    return kValues[pick(0, static_cast<int>(std::size(kValues)) - 1)];
  }
  float real() {
    static const float kValues[] = {0.f, 1.f, -1.f, 0.5f, 2.f, 1e30f, NAN, INFINITY};
    return kValues[pick(0, static_cast<int>(std::size(kValues)) - 1)];
  }

  // A node input: a graph input of some dtype and rank, a constant, or omitted.
  std::string add_operand(onnx::GraphProto& g, int i) {
    const std::string name = "x" + std::to_string(i);
    static const int kTypes[] = {onnx::TensorProto::FLOAT, onnx::TensorProto::FLOAT,
                                 onnx::TensorProto::INT64, onnx::TensorProto::INT32,
                                 onnx::TensorProto::BOOL,  onnx::TensorProto::UINT8,
                                 onnx::TensorProto::STRING};
    switch (pick(0, 9)) {
      case 0:
        return "";
      case 1:
      case 2: {  // a small int64 constant: shapes, axes, pads, indices...
        auto* t = g.add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto::INT64);
        const int len = pick(0, 4);
        if (pick(0, 3)) t->add_dims(len);
        for (int k = 0; k < (t->dims_size() ? len : 1); ++k) t->add_int64_data(number());
        return name;
      }
      case 3: {  // a float constant
        auto* t = g.add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto::FLOAT);
        const int len = pick(1, 3);
        t->add_dims(len);
        for (int k = 0; k < len; ++k) t->add_float_data(real());
        return name;
      }
      default: {
        auto* vi = g.add_input();
        vi->set_name(name);
        auto* tt = vi->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(kTypes[pick(0, static_cast<int>(std::size(kTypes)) - 1)]);
        if (pick(0, 5) == 0) return name;  // rank unknown
        const int rank = pick(0, 5);
        auto* shape = tt->mutable_shape();
        for (int d = 0; d < rank; ++d) {
          auto* dim = shape->add_dim();
          switch (pick(0, 5)) {
            case 0:
              dim->set_dim_param("N");
              break;
            case 1:
              break;  // unknown
            default:
              dim->set_dim_value(pick(0, 4));
          }
        }
        return name;
      }
    }
  }

  void add_attribute(onnx::NodeProto& n, const std::string& name,
                     onnx::AttributeProto::AttributeType type) {
    static const char* kStrings[] = {"",           "constant", "reflect", "edge",    "NOTSET",
                                     "SAME_UPPER", "VALID",    "linear",  "nearest", "cubic",
                                     "DCR",        "CRD",      "bogus"};
    auto* a = n.add_attribute();
    a->set_name(name);
    if (pick(0, 9) == 0) type = static_cast<onnx::AttributeProto::AttributeType>(pick(1, 12));
    a->set_type(type);
    switch (type) {
      case onnx::AttributeProto::INT:
        a->set_i(number());
        break;
      case onnx::AttributeProto::FLOAT:
        a->set_f(real());
        break;
      case onnx::AttributeProto::STRING:
        a->set_s(kStrings[pick(0, static_cast<int>(std::size(kStrings)) - 1)]);
        break;
      case onnx::AttributeProto::INTS:
        for (int k = pick(0, 5); k > 0; --k) a->add_ints(pick(0, 2) ? pick(-2, 3) : number());
        break;
      case onnx::AttributeProto::FLOATS:
        for (int k = pick(0, 4); k > 0; --k) a->add_floats(real());
        break;
      case onnx::AttributeProto::STRINGS:
        for (int k = pick(0, 3); k > 0; --k)
          a->add_strings(kStrings[pick(0, static_cast<int>(std::size(kStrings)) - 1)]);
        break;
      case onnx::AttributeProto::TENSOR: {
        auto* t = a->mutable_t();
        t->set_data_type(pick(0, 1) ? onnx::TensorProto::FLOAT : onnx::TensorProto::INT64);
        const int len = pick(0, 3);
        if (pick(0, 1)) t->add_dims(len);
        for (int k = 0; k < (t->dims_size() ? len : 1); ++k) {
          if (t->data_type() == onnx::TensorProto::FLOAT)
            t->add_float_data(real());
          else
            t->add_int64_data(number());
        }
        break;
      }
      case onnx::AttributeProto::GRAPH: {  // a body that passes its inputs (or x0) through
        auto* sub = a->mutable_g();
        sub->set_name("body");
        const int ins = pick(0, 3);
        for (int k = 0; k < ins; ++k)
          add_input(*sub, "b" + std::to_string(k), onnx::TensorProto::FLOAT, {});
        const int outs = pick(1, 3);
        for (int k = 0; k < outs; ++k) {
          const std::string src = ins ? "b" + std::to_string(k % ins) : "x0";
          const std::string out = "bo" + std::to_string(k);
          add_node(*sub, "Identity", {src}, {out});
          add_output(*sub, out);
        }
        break;
      }
      default:
        break;
    }
  }

  std::mt19937_64 rng_;
};

TEST(ImporterRobustness, EveryRuleSurvivesOddInputsAndAttributes) {
  using namespace testing_robustness;
  const int per_rule = env_int("GEON_RULE_FUZZ_PER_RULE", 64);
  const char* only = std::getenv("GEON_ROBUSTNESS_ONLY");
  name_cases_on_crash();
  Watchdog watchdog(env_int("GEON_ROBUSTNESS_TIMEOUT", 60));
  int cases = 0, imported = 0;
  for (const importer::RuleEntry& rule : importer::all_rules()) {
    NodeFuzzer fuzz(stable_hash(std::string(rule.domain) + "." + std::string(rule.op) + "-" +
                                std::to_string(rule.since)));
    for (int k = 0; k < per_rule; ++k) {
      const onnx::ModelProto m = fuzz.make(rule);
      const std::string what =
          std::string(rule.op) + "-" + std::to_string(rule.since) + " case " + std::to_string(k);
      if (only && what.find(only) != 0) continue;
      if (only) std::fprintf(stderr, "%s\n", m.DebugString().c_str());
      ++cases;
      set_current_case("rule fuzz " + what);
      watchdog.start(what);
      try {
        import_proto(m);
        ++imported;
      } catch (const Error& e) {
        EXPECT_NE(e.code(), ErrorCode::kInternal) << what << ": " << e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": threw a non-geon exception: " << e.what();
      }
      watchdog.stop();
    }
  }
  std::printf("rule fuzz: %zu rules, %d cases, %d imported\n", importer::all_rules().size(), cases,
              imported);
}

}  // namespace
}  // namespace geon
