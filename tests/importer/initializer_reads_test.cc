// The main graph's initializer payloads, cut or in external files, read ahead on threads
// (importer/initializer_reads.h): taken only when threads were asked for and the payloads weigh
// enough, every initializer's dtype, shape and bytes as written by the test whichever way it was
// read (file or bytes, one thread or four), and a failure raised at its initializer's turn with
// the in-order message.
#include <gtest/gtest.h>

#include <cstring>

#include "core/engine/thread_pool.h"
#include "importer/initializer_reads.h"
#include "importer/model_payloads.h"
#include "tests/importer/proto_helpers.h"

namespace geon {
namespace {

using namespace testing_protos;

// The bytes initializer k holds: a pattern of its own, so that a tensor read into another's
// storage, or from another's offset, shows.
std::string pattern(int k, size_t bytes) {
  std::string s(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) s[i] = static_cast<char>((k * 131 + i * 7 + i / 251) & 0xff);
  return s;
}

struct Spec {
  onnx::TensorProto::DataType type;
  int elem_bytes;
};
constexpr Spec kSpecs[] = {{onnx::TensorProto::FLOAT, 4},
                           {onnx::TensorProto::INT64, 8},
                           {onnx::TensorProto::UINT8, 1},
                           {onnx::TensorProto::FLOAT16, 2},
                           {onnx::TensorProto::BOOL, 1}};

// Initializer k: dtype kSpecs[k % 5], k * 97 % 1500 elements (some empty), raw_data; every
// seventh is written as int32_data instead, which stays in the message and is not cut.
onnx::ModelProto many_initializers(int count) {
  auto m = model();
  auto& g = *m.mutable_graph();
  for (int k = 0; k < count; ++k) {
    auto* t = g.add_initializer();
    t->set_name("w" + std::to_string(k));
    if (k % 7 == 3) {
      t->set_data_type(onnx::TensorProto::INT32);
      t->add_dims(3);
      for (int i = 0; i < 3; ++i) t->add_int32_data(k * 10 + i);
      continue;
    }
    const Spec s = kSpecs[k % 5];
    const int64_t n = k * 97 % 1500;
    t->set_data_type(s.type);
    t->add_dims(n);
    t->set_raw_data(pattern(k, static_cast<size_t>(n * s.elem_bytes)));
    add_output(g, t->name());
  }
  return m;
}

// What initializer k of many_initializers holds once imported: its pattern (a bool as 0 or 1).
void expect_many(const ImportedModel& im, int count) {
  const Graph& g = *im.graph;
  for (int k = 0; k < count; ++k) {
    const std::string name = "w" + std::to_string(k);
    const TensorData& d = *g.value(g.find(name)).data;
    if (k % 7 == 3) {
      ASSERT_EQ(d.desc.dtype, DType::kInt32) << name;
      int32_t v[3];
      std::memcpy(v, d.bytes(), sizeof v);
      EXPECT_EQ(v[2], k * 10 + 2) << name;
      continue;
    }
    const Spec s = kSpecs[k % 5];
    const int64_t n = k * 97 % 1500;
    ASSERT_EQ(d.elements(), n) << name;
    std::string want = pattern(k, static_cast<size_t>(n * s.elem_bytes));
    if (s.type == onnx::TensorProto::BOOL)
      for (char& c : want) c = c != 0;
    const std::string got(reinterpret_cast<const char*>(d.bytes()), want.size());
    EXPECT_TRUE(got == want) << name << " does not hold its bytes";
  }
}

// Options that read ahead on `pool` whatever the payloads weigh.
ImportOptions read_ahead(ThreadPool& pool) {
  ImportOptions o;
  o.pool = &pool;
  o.read_ahead_bytes = 0;
  return o;
}

// decode_initializers_ahead on the model `bytes`, split as the importer splits them.
std::vector<importer::DecodedInitializer> ahead_of(const std::string& bytes,
                                                   const ImportOptions& o) {
  const auto split = importer::split_initializer_payloads(as_bytes(bytes));
  EXPECT_TRUE(split);
  onnx::ModelProto lean;
  EXPECT_TRUE(split && lean.ParseFromString(split->lean));
  if (!split) return {};
  const importer::PayloadReader reader = importer::PayloadReader::of_bytes(as_bytes(bytes));
  importer::BuildState st;
  st.opt = &o;
  st.cut_graph = &lean.graph();
  st.cut = &split->initializers;
  st.payloads = &reader;
  return importer::decode_initializers_ahead(lean.graph(), st, "graph 'g'");
}

TEST(InitializerReads, ReadAheadOnlyWithThreadsAndEnoughBytes) {
  const std::string bytes = serialize(many_initializers(12));
  const auto split = importer::split_initializer_payloads(as_bytes(bytes));
  ASSERT_TRUE(split);
  int64_t total = 0;
  for (const auto& p : split->initializers) total += p ? p->size : 0;

  ThreadPool one(1), three(3);
  EXPECT_TRUE(ahead_of(bytes, read_ahead(one)).empty()) << "one thread reads in order";
  ImportOptions heavy = read_ahead(three);
  heavy.read_ahead_bytes = total + 1;
  EXPECT_TRUE(ahead_of(bytes, heavy).empty())
      << "payloads lighter than read_ahead_bytes are read in order";
  heavy.read_ahead_bytes = total;
  const auto got = ahead_of(bytes, heavy);
  ASSERT_EQ(got.size(), 12u);
  for (int k = 0; k < 12; ++k) {
    EXPECT_FALSE(got[k].error) << k;
    // The int32_data initializer was not cut: the in-order loop decodes it.
    EXPECT_EQ(got[k].data == nullptr, k % 7 == 3) << k;
  }
}

TEST(InitializerReads, EveryInitializerHoldsItsBytesWhicheverThreadsReadIt) {
  constexpr int kCount = 61;
  onnx::ModelProto m = many_initializers(kCount);
  const std::string bytes = serialize(m);
  TempDir dir;
  const std::string path = dir.write("m.onnx", bytes).string();
  for (int threads : {1, 2, 4}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    ThreadPool pool(threads);
    expect_many(import_model_bytes(as_bytes(bytes), read_ahead(pool)), kCount);
    expect_many(import_model_file(path, read_ahead(pool)), kCount);
  }
}

// The message of importing m with these options.
std::string import_error(const onnx::ModelProto& m, const ImportOptions& o) {
  try {
    import_proto(m, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(InitializerReads, AFailureIsRaisedAtItsInitializersTurn) {
  onnx::ModelProto m = many_initializers(20);
  auto& g = *m.mutable_graph();
  // Two payloads of the wrong size: w16, the largest, is read first and fails first; w6 comes
  // first in the graph and is the one named, as when reading in order.
  g.mutable_initializer(6)->mutable_raw_data()->pop_back();
  g.mutable_initializer(16)->mutable_raw_data()->append("xx");
  ThreadPool one(1);
  const std::string in_order = import_error(m, read_ahead(one));
  EXPECT_NE(in_order.find("initializer 'w6'"), std::string::npos) << in_order;
  for (int threads : {2, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(import_error(m, read_ahead(pool)), in_order);
  }

  // An unnamed initializer before both is still what is reported.
  g.mutable_initializer(2)->clear_name();
  const std::string unnamed = import_error(m, read_ahead(one));
  EXPECT_NE(unnamed.find("an initializer has no name"), std::string::npos) << unnamed;
  ThreadPool three(3);
  EXPECT_EQ(import_error(m, read_ahead(three)), unnamed);
}

// A model of `count` float initializers, initializer k holding pattern(k) over k * 53 % 900 + 1
// elements: every fifth as raw_data in the model, the others in one of three files beside it,
// one after another (every fourth with its length written, the others read to what the shape
// needs). files[f] is what file "d<f>.bin" holds.
struct ExternalModel {
  onnx::ModelProto model;
  std::string files[3];
};

int64_t external_elements(int k) { return k * 53 % 900 + 1; }

ExternalModel external_initializers(int count) {
  ExternalModel out{model(), {}};
  auto& g = *out.model.mutable_graph();
  for (int k = 0; k < count; ++k) {
    auto* t = g.add_initializer();
    t->set_name("w" + std::to_string(k));
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(external_elements(k));
    const std::string data = pattern(k, static_cast<size_t>(external_elements(k) * 4));
    add_output(g, t->name());
    if (k % 5 == 0) {
      t->set_raw_data(data);
      continue;
    }
    std::string& file = out.files[k % 3];
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    const auto key = [&](const std::string& name, const std::string& value) {
      auto* e = t->add_external_data();
      e->set_key(name);
      e->set_value(value);
    };
    key("location", "d" + std::to_string(k % 3) + ".bin");
    key("offset", std::to_string(file.size()));
    if (k % 4 == 0) key("length", std::to_string(data.size()));
    file += data;
  }
  return out;
}

// The model and its files written to dir; the model's path.
std::string write_external(const TempDir& dir, const ExternalModel& em) {
  for (int f = 0; f < 3; ++f) dir.write("d" + std::to_string(f) + ".bin", em.files[f]);
  return dir.write("m.onnx", serialize(em.model)).string();
}

TEST(InitializerReads, ExternalDataIsReadAheadAndEachInitializerHoldsItsBytes) {
  constexpr int kCount = 40;
  const ExternalModel em = external_initializers(kCount);
  TempDir dir;
  const std::string path = write_external(dir, em);

  // External data counts towards read_ahead_bytes by what its dtype and dims say it weighs.
  int64_t total = 0;
  for (int k = 0; k < kCount; ++k) total += external_elements(k) * 4;
  ThreadPool three(3);
  ImportOptions o = read_ahead(three);
  o.base_dir = dir.path().string();
  o.read_ahead_bytes = total + 1;
  const std::string bytes = serialize(em.model);
  EXPECT_TRUE(ahead_of(bytes, o).empty());
  o.read_ahead_bytes = total;
  const auto got = ahead_of(bytes, o);
  ASSERT_EQ(got.size(), static_cast<size_t>(kCount));
  for (int k = 0; k < kCount; ++k) {
    EXPECT_FALSE(got[k].error) << k;
    EXPECT_TRUE(got[k].data) << k << " was left to the in-order loop";
  }

  for (int threads : {1, 2, 4}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    ThreadPool pool(threads);
    const ImportedModel im = import_model_file(path, read_ahead(pool));
    for (int k = 0; k < kCount; ++k) {
      const std::string name = "w" + std::to_string(k);
      const TensorData& d = *im.graph->value(im.graph->find(name)).data;
      ASSERT_EQ(d.elements(), external_elements(k)) << name;
      const std::string want = pattern(k, static_cast<size_t>(external_elements(k) * 4));
      EXPECT_TRUE(std::string(reinterpret_cast<const char*>(d.bytes()), want.size()) == want)
          << name << " does not hold its bytes";
    }
  }
}

TEST(InitializerReads, AnExternalDataFailureIsRaisedAtItsInitializersTurn) {
  ExternalModel em = external_initializers(30);
  auto& g = *em.model.mutable_graph();
  // w7 names a file that is not there; w16, the largest and read first, a length the shape
  // does not take. w7 comes first in the graph and is the one named, as when reading in order.
  g.mutable_initializer(7)->mutable_external_data(0)->set_value("missing.bin");
  ASSERT_EQ(g.initializer(16).external_data(2).key(), "length");
  g.mutable_initializer(16)->mutable_external_data(2)->set_value("4");
  TempDir dir;
  write_external(dir, em);
  const auto error_with = [&](int threads) {
    ThreadPool pool(threads);
    ImportOptions o = read_ahead(pool);
    o.base_dir = dir.path().string();
    return import_error(em.model, o);
  };
  const std::string in_order = error_with(1);
  EXPECT_NE(in_order.find("initializer 'w7'"), std::string::npos) << in_order;
  EXPECT_NE(in_order.find("missing.bin"), std::string::npos) << in_order;
  for (int threads : {2, 4}) EXPECT_EQ(error_with(threads), in_order);
}

}  // namespace
}  // namespace geon
