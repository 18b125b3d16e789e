// libFuzzer target with a structure-aware mutator: each input is a serialized ModelProto, and the
// mutator decodes it, changes it through protobuf's own reflection (reorders, drops or repeats an
// element of any list, so node order and attribute lists; sets any scalar to an edge value; swaps a
// string for another name the model uses or an operator name ONNX knows; flips an enum, such as an
// attribute's kind or a tensor's element type) and encodes it again, so most inputs stay models
// and reach the passes after the reader. Each input that reads goes through the whole build: the
// checks, opset normalisation, specialisation, stage 0, the proposed layout, naming, lowering and
// the module's text. A loam::Error is a refusal; an "internal" message, anything else escaping, a
// crash or a sanitizer report is a bug.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "driver/pipeline.hpp"
#include "onnx/normalize.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// A place the mutator can change: a field of a message, one element of a repeated field, or
// (index -1 on a repeated field) the list itself.
struct Site {
  Message* message;
  const FieldDescriptor* field;
  int index;
};

void collect(Message& m, std::vector<Site>& sites, std::set<std::string>& strings) {
  const Descriptor* d = m.GetDescriptor();
  const Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const bool is_message = f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    if (f->is_repeated()) {
      sites.push_back({&m, f, -1});
      const int n = r->FieldSize(m, f);
      for (int k = 0; k < n; ++k) {
        if (is_message) {
          collect(*r->MutableRepeatedMessage(&m, f, k), sites, strings);
        } else {
          sites.push_back({&m, f, k});
          if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING && f->type() != FieldDescriptor::TYPE_BYTES)
            strings.insert(r->GetRepeatedString(m, f, k));
        }
      }
      continue;
    }
    sites.push_back({&m, f, -1});
    if (is_message && r->HasField(m, f)) collect(*r->MutableMessage(&m, f), sites, strings);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING && f->type() != FieldDescriptor::TYPE_BYTES && r->HasField(m, f))
      strings.insert(r->GetString(m, f));
  }
}

const std::vector<std::string>& operator_names() {
  static const std::vector<std::string> names = [] {
    std::set<std::string> all;
    for (const auto& s : onnx::OpSchemaRegistry::get_all_schemas())
      if (s.domain().empty()) all.insert(s.Name());
    return std::vector<std::string>(all.begin(), all.end());
  }();
  return names;
}

class Mutator {
 public:
  explicit Mutator(unsigned seed) : rng_(seed) {}

  void mutate(onnx::ModelProto& model) {
    std::vector<Site> sites;
    std::set<std::string> strings;
    collect(model, sites, strings);
    names_.assign(strings.begin(), strings.end());
    const Site& s = sites[pick(sites.size())];
    if (s.field->is_repeated() && s.index < 0)
      mutate_list(s);
    else if (s.field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
      mutate_message(s);
    else
      mutate_scalar(s);
  }

 private:
  std::size_t pick(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

  // Swap two elements (node order, input order), drop one, or repeat one.
  void mutate_list(const Site& s) {
    const Reflection* r = s.message->GetReflection();
    const int n = r->FieldSize(*s.message, s.field);
    switch (pick(3)) {
      case 0:
        if (n >= 2) r->SwapElements(s.message, s.field, static_cast<int>(pick(n)), static_cast<int>(pick(n)));
        break;
      case 1:
        if (n >= 1) {
          r->SwapElements(s.message, s.field, static_cast<int>(pick(n)), n - 1);
          r->RemoveLast(s.message, s.field);
        }
        break;
      default:
        if (n >= 1) repeat(s, static_cast<int>(pick(n)));
        else if (s.field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) r->AddMessage(s.message, s.field);
        break;
    }
  }

  void repeat(const Site& s, int k) {
    const Reflection* r = s.message->GetReflection();
    Message& m = *s.message;
    const FieldDescriptor* f = s.field;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE: {
        std::unique_ptr<Message> copy(r->GetRepeatedMessage(m, f, k).New());
        copy->CopyFrom(r->GetRepeatedMessage(m, f, k));
        r->AddMessage(&m, f)->CopyFrom(*copy);
        break;
      }
      case FieldDescriptor::CPPTYPE_INT32: r->AddInt32(&m, f, r->GetRepeatedInt32(m, f, k)); break;
      case FieldDescriptor::CPPTYPE_INT64: r->AddInt64(&m, f, r->GetRepeatedInt64(m, f, k)); break;
      case FieldDescriptor::CPPTYPE_UINT32: r->AddUInt32(&m, f, r->GetRepeatedUInt32(m, f, k)); break;
      case FieldDescriptor::CPPTYPE_UINT64: r->AddUInt64(&m, f, r->GetRepeatedUInt64(m, f, k)); break;
      case FieldDescriptor::CPPTYPE_FLOAT: r->AddFloat(&m, f, r->GetRepeatedFloat(m, f, k)); break;
      case FieldDescriptor::CPPTYPE_DOUBLE: r->AddDouble(&m, f, r->GetRepeatedDouble(m, f, k)); break;
      case FieldDescriptor::CPPTYPE_BOOL: r->AddBool(&m, f, r->GetRepeatedBool(m, f, k)); break;
      case FieldDescriptor::CPPTYPE_ENUM: r->AddEnum(&m, f, r->GetRepeatedEnum(m, f, k)); break;
      case FieldDescriptor::CPPTYPE_STRING: r->AddString(&m, f, r->GetRepeatedString(m, f, k)); break;
    }
  }

  // A message field: clear it, or give it (empty) where it was absent.
  void mutate_message(const Site& s) {
    const Reflection* r = s.message->GetReflection();
    if (r->HasField(*s.message, s.field))
      r->ClearField(s.message, s.field);
    else
      r->MutableMessage(s.message, s.field);
  }

  std::int64_t edge_integer(std::int64_t was) {
    static constexpr std::int64_t edges[] = {0, 1, -1, 2, 3, 7, 64, 65536, std::numeric_limits<std::int32_t>::max(),
                                             std::numeric_limits<std::int32_t>::min(), std::int64_t{1} << 32,
                                             std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()};
    // Wrapping on purpose: the neighbours of an extreme are the other extreme.
    const auto u = static_cast<std::uint64_t>(was);
    switch (pick(4)) {
      case 0: return static_cast<std::int64_t>(u + 1);
      case 1: return static_cast<std::int64_t>(u - 1);
      case 2: return static_cast<std::int64_t>(0 - u);
      default: return edges[pick(std::size(edges))];
    }
  }

  double edge_real(double was) {
    static constexpr double edges[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-45, 3.4e38, std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
    return pick(3) == 0 ? was * 2 : edges[pick(std::size(edges))];
  }

  std::string other_string(const std::string& was, bool bytes) {
    if (bytes) {
      std::string b = was;
      if (b.empty() || pick(4) == 0) return std::string(pick(64), static_cast<char>(pick(256)));
      if (pick(2) == 0) b.resize(pick(b.size()));
      else b[pick(b.size())] = static_cast<char>(pick(256));
      return b;
    }
    switch (pick(4)) {
      case 0: return names_.empty() ? std::string() : names_[pick(names_.size())];
      case 1: return operator_names()[pick(operator_names().size())];
      case 2: return std::string();
      default: return was + "_";
    }
  }

  void mutate_scalar(const Site& s) {
    const Reflection* r = s.message->GetReflection();
    Message& m = *s.message;
    const FieldDescriptor* f = s.field;
    const int k = s.index;
    const bool rep = k >= 0;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: {
        const auto v = static_cast<std::int32_t>(edge_integer(rep ? r->GetRepeatedInt32(m, f, k) : r->GetInt32(m, f)));
        rep ? r->SetRepeatedInt32(&m, f, k, v) : r->SetInt32(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_INT64: {
        const auto v = edge_integer(rep ? r->GetRepeatedInt64(m, f, k) : r->GetInt64(m, f));
        rep ? r->SetRepeatedInt64(&m, f, k, v) : r->SetInt64(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_UINT32: {
        const auto v = static_cast<std::uint32_t>(edge_integer(rep ? r->GetRepeatedUInt32(m, f, k) : r->GetUInt32(m, f)));
        rep ? r->SetRepeatedUInt32(&m, f, k, v) : r->SetUInt32(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_UINT64: {
        const auto was = static_cast<std::int64_t>(rep ? r->GetRepeatedUInt64(m, f, k) : r->GetUInt64(m, f));
        const auto v = static_cast<std::uint64_t>(edge_integer(was));
        rep ? r->SetRepeatedUInt64(&m, f, k, v) : r->SetUInt64(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_FLOAT: {
        const auto v = static_cast<float>(edge_real(rep ? r->GetRepeatedFloat(m, f, k) : r->GetFloat(m, f)));
        rep ? r->SetRepeatedFloat(&m, f, k, v) : r->SetFloat(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_DOUBLE: {
        const double v = edge_real(rep ? r->GetRepeatedDouble(m, f, k) : r->GetDouble(m, f));
        rep ? r->SetRepeatedDouble(&m, f, k, v) : r->SetDouble(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_BOOL: {
        const bool v = !(rep ? r->GetRepeatedBool(m, f, k) : r->GetBool(m, f));
        rep ? r->SetRepeatedBool(&m, f, k, v) : r->SetBool(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_ENUM: {
        const auto* e = f->enum_type();
        const auto* v = e->value(static_cast<int>(pick(static_cast<std::size_t>(e->value_count()))));
        rep ? r->SetRepeatedEnum(&m, f, k, v) : r->SetEnum(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        const bool bytes = f->type() == FieldDescriptor::TYPE_BYTES;
        const std::string v = other_string(rep ? r->GetRepeatedString(m, f, k) : r->GetString(m, f), bytes);
        rep ? r->SetRepeatedString(&m, f, k, v) : r->SetString(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE: break;
    }
  }

  std::mt19937 rng_;
  std::vector<std::string> names_;
};

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  onnx::ModelProto model;
  // Bytes that are no model are mutated as bytes, until one parses.
  if (!model.ParseFromArray(data, static_cast<int>(size))) return LLVMFuzzerMutate(data, size, max_size);
  Mutator mutator(seed);
  const int rounds = 1 + static_cast<int>(seed % 3);
  for (int i = 0; i < rounds; ++i) mutator.mutate(model);
  const std::string out = model.SerializeAsString();
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    loam::Model m = loam::read_model_bytes(bytes, loam::ModelForm::Proto, "fuzz.onnx");
    loam::normalize_opsets(m);
    loam::Options options;
    options.layout = loam::driver::propose_layout(m, options, "fuzz.onnx");
    (void)loam::driver::build_module(m, options, {}, "fuzz.onnx", "fuzz");
  } catch (const loam::Error& e) {
    // A refusal must say what is wrong, never that Loam is.
    if (std::strstr(e.what(), "internal:") != nullptr) std::abort();
  }
  return 0;
}
