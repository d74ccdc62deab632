// Hostile run inputs; see hostile_inputs.h.
#include "hostile_inputs.h"

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>

#include "fuzz_session.h"

namespace geon::fuzz {

namespace {

// True one time in n; never once the fuzz bytes run out (they then read as zeros), so that a
// short input gets the plain choice everywhere.
bool one_in(FuzzedDataProvider& fdp, int n) {
  return fdp.ConsumeIntegralInRange<int>(0, n - 1) == n - 1;
}

int64_t hostile_int(FuzzedDataProvider& fdp) {
  static const int64_t kValues[] = {0,
                                    -1,
                                    1,
                                    2,
                                    -2,
                                    3,
                                    -3,
                                    127,
                                    -128,
                                    255,
                                    32767,
                                    65535,
                                    int64_t{1} << 31,
                                    (int64_t{1} << 31) - 1,
                                    -(int64_t{1} << 31),
                                    int64_t{1} << 32,
                                    int64_t{1} << 40,
                                    int64_t{1} << 62,
                                    std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::min(),
                                    std::numeric_limits<int64_t>::max() - 1,
                                    std::numeric_limits<int64_t>::min() + 1};
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return fdp.ConsumeIntegralInRange<int64_t>(-8, 8);
    case 1:
      return fdp.ConsumeIntegral<int64_t>();
    default:
      return fdp.PickValueInArray(kValues);
  }
}

double hostile_float(FuzzedDataProvider& fdp) {
  static const double kValues[] = {0.0,
                                   -0.0,
                                   1.0,
                                   -1.0,
                                   0.5,
                                   NAN,
                                   -NAN,
                                   INFINITY,
                                   -INFINITY,
                                   1e-45,
                                   1.17549435e-38,
                                   -1e-40,
                                   3.4028235e38,
                                   -3.4028235e38,
                                   1e300,
                                   4.9e-324,
                                   65504.0,
                                   1e9,
                                   -1e9};
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return fdp.ConsumeIntegralInRange<int>(-4, 4);
    case 1:
      return fdp.ConsumeFloatingPoint<double>();
    default:
      return fdp.PickValueInArray(kValues);
  }
}

// Writes one element of dtype at byte offset `at` (sub-byte types get their raw bits).
void write_element(int32_t dtype, unsigned char* p, int64_t index, FuzzedDataProvider& fdp,
                   bool small) {
  const int64_t iv = small ? fdp.ConsumeIntegralInRange<int64_t>(0, 16) : hostile_int(fdp);
  auto put = [&](auto v, int64_t width) { std::memcpy(p + index * width, &v, sizeof(v)); };
  switch (dtype) {
    case 1:
      put(static_cast<float>(hostile_float(fdp)), 4);
      break;
    case 11:
      put(hostile_float(fdp), 8);
      break;
    case 14: {  // complex64
      const float re = static_cast<float>(hostile_float(fdp));
      const float im = static_cast<float>(hostile_float(fdp));
      std::memcpy(p + index * 8, &re, 4);
      std::memcpy(p + index * 8 + 4, &im, 4);
      break;
    }
    case 15: {
      const double re = hostile_float(fdp), im = hostile_float(fdp);
      std::memcpy(p + index * 16, &re, 8);
      std::memcpy(p + index * 16 + 8, &im, 8);
      break;
    }
    case 10:
    case 16: {  // float16 / bfloat16: special bit patterns or raw
      static const uint16_t kBits[] = {0x7C00, 0xFC00, 0x7E00, 0x0001, 0x8000, 0x7BFF,
                                       0x7F80, 0xFF80, 0x7FC0, 0x3C00, 0x0000};
      put(fdp.ConsumeBool() ? fdp.PickValueInArray(kBits) : fdp.ConsumeIntegral<uint16_t>(), 2);
      break;
    }
    case 7:
    case 13:
      put(iv, 8);
      break;
    case 6:
    case 12:
      put(static_cast<int32_t>(iv), 4);
      break;
    case 4:
    case 5:
      put(static_cast<int16_t>(iv), 2);
      break;
    case 9:  // bools stay 0 or 1: any other byte is not a bool, as in every runtime
      p[index] = static_cast<unsigned char>(iv & 1);
      break;
    case 2:
    case 3:
    case 17:
    case 18:
    case 19:
    case 20:
    case 24:
      p[index] = static_cast<unsigned char>(iv);
      break;
    default:  // packed 4- and 2-bit types: whole bytes
      break;
  }
}

}  // namespace

bool build_hostile_inputs(FuzzedDataProvider& fdp, GeonSession* s,
                          const std::set<std::string>& trip_counts, HostileInputs& out) {
  const GeonApi& a = api();
  const size_t n = a.session_input_count(s);
  for (size_t i = 0; i < n; ++i) {
    GeonValueInfo info{};
    if (failed(a.session_input_info(s, i, &info))) return false;
    // Inputs with a default are overridden now and then.
    if (a.session_input_has_default(s, i) && !one_in(fdp, 4)) continue;
    int32_t dtype = info.dtype;
    if (one_in(fdp, 32)) dtype = fdp.ConsumeIntegralInRange<int32_t>(0, 27);
    static const int64_t kFree[] = {1, 2, 3, 0, 1, 4, 7, 2, 16};
    std::vector<int64_t> shape;
    const int rank = info.rank >= 0 ? info.rank : fdp.ConsumeIntegralInRange<int>(0, 4);
    for (int d = 0; d < rank; ++d)
      shape.push_back(info.rank >= 0 && info.dims[d] >= 0 ? info.dims[d]
                                                          : fdp.PickValueInArray(kFree));
    const bool is_trip = trip_counts.count(info.name) > 0;
    // One input in four gets a hostile shape.
    if (!is_trip && one_in(fdp, 4)) {
      static const int64_t kHuge[] = {int64_t{1} << 31,
                                      int64_t{1} << 40,
                                      int64_t{1} << 62,
                                      std::numeric_limits<int64_t>::max(),
                                      65536,
                                      -1};
      switch (fdp.ConsumeIntegralInRange<int>(0, 4)) {
        case 0:
          if (!shape.empty()) shape[fdp.ConsumeIntegralInRange<size_t>(0, shape.size() - 1)] = 0;
          break;
        case 1:
          shape.push_back(fdp.PickValueInArray(kFree));
          break;
        case 2:
          if (!shape.empty()) shape.pop_back();
          break;
        case 3:  // huge lengths beside a zero: no elements, but products that overflow
          shape.push_back(0);
          for (int k = fdp.ConsumeIntegralInRange<int>(1, 3); k > 0; --k)
            shape.push_back(fdp.PickValueInArray(kHuge));
          break;
        default:
          if (!shape.empty())
            shape[fdp.ConsumeIntegralInRange<size_t>(0, shape.size() - 1)] =
                fdp.ConsumeIntegralInRange<int64_t>(0, 64);
      }
    }
    int64_t count = 1;
    bool zero = false;
    for (int64_t d : shape) zero = zero || d == 0;
    for (int64_t d : shape) {
      if (zero || d < 0) {
        count = 0;
        break;
      }
      if (count > kMaxInputElements / d) return false;
      count *= d;
    }
    int64_t bytes = dtype_bytes(dtype, count);
    if (bytes < 0) bytes = 0;  // unknown types: refused by the library
    if (dtype == 8) bytes = count * static_cast<int64_t>(sizeof(GeonString));
    std::vector<unsigned char> data(static_cast<size_t>(bytes));
    if (dtype == 8) {
      // Strings: random bytes (invalid UTF-8, NULs, long runs), one handle per element.
      std::vector<std::string> text;
      for (int64_t e = 0; e < count; ++e)
        text.push_back(fdp.ConsumeRandomLengthString(one_in(fdp, 16) ? 4096 : 16));
      for (int64_t e = 0; e < count; ++e) {
        const GeonString g{text[e].data(), text[e].size()};
        std::memcpy(data.data() + e * sizeof g, &g, sizeof g);
      }
      out.texts.push_back(std::move(text));
    } else if (!data.empty()) {
      if (!is_trip && one_in(fdp, 8)) {
        // Raw bytes, when the fuzzer has them.
        const auto raw = fdp.ConsumeBytes<unsigned char>(data.size());
        if (!raw.empty()) std::memcpy(data.data(), raw.data(), raw.size());
        if (dtype == 9)
          for (auto& b : data) b &= 1;
      } else {
        for (int64_t e = 0; e < count && fdp.remaining_bytes() > 0; ++e)
          write_element(dtype, data.data(), e, fdp, is_trip);
      }
    }
    // Now and then fewer bytes than the shape needs (the library must refuse it).
    uint64_t declared = data.size();
    if (declared > 0 && one_in(fdp, 64)) declared -= 1;
    out.shapes.push_back(std::move(shape));
    out.buffers.push_back(std::move(data));
    out.names.push_back(info.name);
    out.tensors.push_back(GeonTensor{dtype, 0, nullptr, nullptr, declared});
  }
  for (size_t k = 0; k < out.tensors.size(); ++k) {
    out.tensors[k].rank = static_cast<int32_t>(out.shapes[k].size());
    out.tensors[k].shape = out.shapes[k].data();
    out.tensors[k].data = out.buffers[k].empty() ? nullptr : out.buffers[k].data();
  }
  return true;
}

}  // namespace geon::fuzz
