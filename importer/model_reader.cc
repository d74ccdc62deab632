// ModelProto in, ImportedModel out: parse, check the opset imports, collect model-local
// functions, build the main graph.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>

#include "core/base/error.h"
#include "importer/graph_builder.h"
#include "importer/model_payloads.h"
#include "importer/nesting.h"

namespace geon {

namespace {

void read_metadata(const onnx::ModelProto& m, ModelMetadata& md) {
  md.producer_name = m.producer_name();
  md.producer_version = m.producer_version();
  md.domain = m.domain();
  md.doc_string = m.doc_string();
  md.model_version = m.model_version();
  md.has_model_version = m.has_model_version();
  md.ir_version = m.ir_version();
  md.graph_name = m.graph().name();
  md.graph_doc_string = m.graph().doc_string();
  for (const auto& os : m.opset_import()) md.opset_imports[os.domain()] = os.version();
  // A repeated key keeps its last value, as onnxruntime's custom_metadata_map does.
  for (const auto& p : m.metadata_props()) md.metadata_props[p.key()] = p.value();
}

// `cut`: the main graph's initializer payloads cut before parsing, read through `payloads`.
ImportedModel import_proto(const onnx::ModelProto& m, const ImportOptions& opt,
                           const std::string& source,
                           const std::vector<std::optional<importer::Payload>>* cut = nullptr,
                           const importer::PayloadReader* payloads = nullptr) {
  ImportedModel out;
  out.source = source;
  read_metadata(m, out.metadata);
  if (!m.has_graph()) fail(ErrorCode::kInvalidArgument, source + ": the model has no graph");
  // Before building: a model nested deeper than geon runs is refused by its depth, not by
  // whichever recursion would otherwise give out first.
  if (const int nesting = importer::subgraph_nesting(m.graph());
      nesting > importer::kMaxSubgraphNesting)
    fail(ErrorCode::kInvalidArgument, source + ": " + importer::nesting_refusal(nesting));
  importer::BuildState st;
  st.opt = &opt;
  if (cut) {
    st.cut_graph = &m.graph();
    st.cut = cut;
    st.payloads = payloads;
  }
  auto check_version = [&](const onnx::OperatorSetIdProto& os, const std::string& in) {
    const std::string d = importer::normal_domain(os.domain());
    if (os.version() < 1 || os.version() > INT32_MAX)
      fail(ErrorCode::kInvalidArgument, source + ": opset_import" + in + " for domain '" + d +
                                            "' has version " + std::to_string(os.version()));
    if (d.empty() && os.version() > kMaxDefaultOpset)
      fail(ErrorCode::kNotSupported,
           source + ": default-domain opset " + std::to_string(os.version()) + in +
               " is newer than the newest geon knows (" + std::to_string(kMaxDefaultOpset) + ")");
    return d;
  };
  for (const auto& os : m.opset_import())
    st.opsets[check_version(os, "")] = static_cast<int>(os.version());
  // IR version 3+ models name their opsets; older ones are implicitly default-domain opset 1.
  if (m.opset_import_size() == 0) st.opsets[""] = 1;
  for (const auto& f : m.functions()) {
    const std::string d = importer::normal_domain(f.domain());
    if (f.name().empty())
      fail(ErrorCode::kInvalidArgument, source + ": a model-local function has no name");
    if (!st.functions.emplace(std::make_pair(d, f.name()), &f).second)
      fail(ErrorCode::kInvalidArgument, source + ": function '" + f.name() + "' is defined twice");
    // A function's own opset imports extend the model's for domains it alone uses.
    for (const auto& os : f.opset_import())
      st.opsets.emplace(check_version(os, " of function '" + f.name() + "'"),
                        static_cast<int>(os.version()));
    st.opsets.emplace(d, 1);
  }
  out.opsets = st.opsets;
  try {
    out.graph = importer::build_graph(m.graph(), nullptr, st, nullptr);
  } catch (const Error& e) {
    fail(e.code(), source + ": " + e.what());
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::kResourceExhausted, source + ": out of memory while importing the graph");
  } catch (const std::exception& e) {
    // Only geon::Error is expected here; anything else is a bug, reported as such.
    fail(ErrorCode::kInternal, source + ": internal error while importing: " + e.what());
  }
  return out;
}

// `size` is bytes.size(), or the size of a file too large to read.
// The message lives on `arena`: protobuf's parser leaks what it has half built when an
// allocation fails, and an arena frees it all at once whatever happened.
const onnx::ModelProto& parse(std::span<const std::byte> bytes, const std::string& source,
                              uintmax_t size, google::protobuf::Arena& arena) {
  onnx::ModelProto& m = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  if (size > static_cast<uintmax_t>(INT32_MAX))
    fail(ErrorCode::kInvalidArgument,
         source + ": the model is " + std::to_string(size) +
             " bytes, over protobuf's 2 GiB limit; store large tensors as external data");
  bool parsed = !bytes.empty();
  if (parsed) {
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    in.SetRecursionLimit(importer::kParseRecursionLimit);
    parsed = out_of_memory_context([&] { return "parsing the model " + source; },
                                   [&] { return m.ParseFromCodedStream(&in); }) &&
             in.ConsumedEntireMessage();
  }
  if (!parsed) {
    // Protobuf says only "failed"; when the bytes nest deeper than the parser was allowed to
    // go, that is the reason to give (measured without recursion, whatever the depth).
    const importer::WireNesting nesting = importer::wire_nesting(bytes);
    if (nesting.messages > importer::kParseRecursionLimit) {
      fail(ErrorCode::kInvalidArgument,
           source + ": " +
               (nesting.subgraphs > importer::kMaxSubgraphNesting
                    ? importer::nesting_refusal(nesting.subgraphs)
                    : "protobuf messages nested " + std::to_string(nesting.messages) +
                          " levels deep, deeper than the parser's limit of " +
                          std::to_string(importer::kParseRecursionLimit)));
    }
    fail(ErrorCode::kInvalidArgument,
         source + ": not an ONNX model (the bytes do not parse as a ModelProto; truncated?)");
  }
  return m;
}

// Parses the model with its main graph's initializer payloads cut out first (model_payloads.h),
// so protobuf copies only the small rest and each payload goes straight from `payloads` into
// its tensor; the whole bytes are parsed as they are when the cut does not apply.
ImportedModel import_cut(std::span<const std::byte> bytes, const importer::PayloadReader& payloads,
                         const ImportOptions& opt, const std::string& source) {
  google::protobuf::Arena arena;
  if (bytes.size() <= static_cast<size_t>(INT32_MAX)) {
    std::optional<importer::SplitModel> split =
        out_of_memory_context([&] { return "reading the model " + source; },
                              [&] { return importer::split_initializer_payloads(bytes); });
    if (split && !split->initializers.empty()) {
      const auto lean = std::as_bytes(std::span(split->lean));
      google::protobuf::Arena lean_arena;
      onnx::ModelProto& m = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&lean_arena);
      google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(lean.data()),
                                                static_cast<int>(lean.size()));
      in.SetRecursionLimit(importer::kParseRecursionLimit);
      const bool parsed = out_of_memory_context([&] { return "parsing the model " + source; },
                                                [&] { return m.ParseFromCodedStream(&in); }) &&
                          in.ConsumedEntireMessage();
      // Otherwise the whole bytes are parsed below, and say what is wrong with them.
      if (parsed && static_cast<size_t>(m.graph().initializer_size()) == split->initializers.size())
        return import_proto(m, opt, source, &split->initializers, &payloads);
    }
  }
  return import_proto(parse(bytes, source, bytes.size(), arena), opt, source);
}

// A read-only mapping of a model file, for the wire-level cut: only the pages holding the
// fields around the payloads are touched (the payloads themselves are read with pread).
class MappedFile {
 public:
  MappedFile(int fd, size_t size) : size_(size) {
    if (size == 0) return;
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) data_ = p;
  }
  ~MappedFile() {
    if (data_) ::munmap(data_, size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  bool mapped() const { return data_ != nullptr || size_ == 0; }
  std::span<const std::byte> bytes() const {
    return data_ ? std::span(static_cast<const std::byte*>(data_), size_)
                 : std::span<const std::byte>();
  }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

ImportedModel import_model_bytes(std::span<const std::byte> bytes, const ImportOptions& opt) {
  return import_cut(bytes, importer::PayloadReader::of_bytes(bytes), opt, "<bytes>");
}

ImportedModel import_model_file(const std::string& path, const ImportOptions& opt_in) {
  FileDescriptor file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (file.fd < 0 || ::fstat(file.fd, &st) != 0)
    fail(ErrorCode::kInvalidArgument, path + ": cannot open the model file");
  // Refuse what protobuf cannot parse before reading it into memory.
  const auto size = static_cast<uintmax_t>(st.st_size);
  google::protobuf::Arena arena;
  if (size > static_cast<uintmax_t>(INT32_MAX)) parse({}, path, size, arena);
  ImportOptions opt = opt_in;
  if (opt.base_dir.empty()) {
    opt.base_dir = std::filesystem::path(path).parent_path().string();
    if (opt.base_dir.empty()) opt.base_dir = ".";
  }
  const MappedFile map(file.fd, static_cast<size_t>(size));
  if (map.mapped())
    return import_cut(map.bytes(), importer::PayloadReader::of_file(file.fd), opt, path);
  // Not mappable (a pipe, a special file): read as a stream.
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorCode::kInvalidArgument, path + ": cannot open the model file");
  const std::vector<char> buf =
      out_of_memory_context([&] { return "reading the model file " + path; },
                            [&] {
                              return std::vector<char>((std::istreambuf_iterator<char>(in)),
                                                       std::istreambuf_iterator<char>());
                            });
  const auto bytes = std::as_bytes(std::span(buf));
  return import_cut(bytes, importer::PayloadReader::of_bytes(bytes), opt, path);
}

}  // namespace geon
