#include "importer/nesting.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace geon::importer {

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// A varint at p (below end); false when it runs past end or over 10 bytes.
bool read_varint(const uint8_t*& p, const uint8_t* end, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 70 && p < end; shift += 7) {
    const uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

}  // namespace

WireNesting wire_nesting(std::span<const std::byte> bytes) {
  struct Frame {
    const uint8_t* end;
    const Descriptor* type;  // null: a group or a message of unknown type
    bool graph;
  };
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  std::vector<Frame> stack{{p + bytes.size(), onnx::ModelProto::descriptor(), false}};
  const Descriptor* graph_type = onnx::GraphProto::descriptor();
  WireNesting out;
  int graphs = 0;  // GraphProtos on the stack, the main graph included
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (p == top.end) {
      graphs -= top.graph ? 1 : 0;
      stack.pop_back();
      continue;
    }
    uint64_t tag = 0;
    if (!read_varint(p, top.end, tag)) break;
    const uint64_t wire = tag & 7;
    if (wire == 0) {
      uint64_t ignored = 0;
      if (!read_varint(p, top.end, ignored)) break;
    } else if (wire == 1 || wire == 5) {
      const size_t n = wire == 1 ? 8 : 4;
      if (static_cast<size_t>(top.end - p) < n) break;
      p += n;
    } else if (wire == 2) {
      uint64_t len = 0;
      if (!read_varint(p, top.end, len) || len > static_cast<uint64_t>(top.end - p)) break;
      const FieldDescriptor* f =
          top.type ? top.type->FindFieldByNumber(static_cast<int>(tag >> 3)) : nullptr;
      if (f && f->type() == FieldDescriptor::TYPE_MESSAGE) {
        const bool graph = f->message_type() == graph_type;
        graphs += graph ? 1 : 0;
        stack.push_back({p + len, f->message_type(), graph});
        out.messages = std::max(out.messages, static_cast<int>(stack.size()) - 1);
        out.subgraphs = std::max(out.subgraphs, graphs - 1);
      } else {
        p += len;
      }
    } else if (wire == 3) {
      // A group (none in ONNX, but protobuf parses unknown ones, nesting included): it ends at
      // its end-group tag, within its parent.
      stack.push_back({top.end, nullptr, false});
      out.messages = std::max(out.messages, static_cast<int>(stack.size()) - 1);
    } else if (wire == 4 && !top.type && stack.size() > 1) {
      stack.pop_back();
    } else {
      break;
    }
  }
  return out;
}

int subgraph_nesting(const onnx::GraphProto& g) {
  std::vector<std::pair<const onnx::GraphProto*, int>> todo{{&g, 0}};
  int deepest = 0;
  while (!todo.empty()) {
    const auto [graph, level] = todo.back();
    todo.pop_back();
    deepest = std::max(deepest, level);
    for (const auto& n : graph->node()) {
      for (const auto& a : n.attribute()) {
        if (a.has_g()) todo.emplace_back(&a.g(), level + 1);
        for (const auto& sub : a.graphs()) todo.emplace_back(&sub, level + 1);
      }
    }
  }
  return deepest;
}

std::string nesting_refusal(int found) {
  return "subgraphs (If / Loop / Scan bodies) nested " + std::to_string(found) +
         " levels deep, deeper than geon's limit of " + std::to_string(kMaxSubgraphNesting) +
         " levels below the main graph";
}

}  // namespace geon::importer
