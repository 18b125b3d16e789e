#include "emit/module_writer.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <sstream>

#include "emit/bytes_literal.hpp"
#include "emit/fixed_text.hpp"
#include "emit/names.hpp"
#include "emit/runtime_text.hpp"
#include "loom/emit_cpp.hpp"
#include "support/error.hpp"

namespace loam::emit {
namespace {

using lower::Arg;
using lower::cpp_compute_type;
using lower::cpp_element_type;
using lower::AxisName;
using lower::TensorInfo;
using stage0::Extent;

std::string quote(const std::string& s) {
  std::string out = "\"";
  static const char hex[] = "0123456789abcdef";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f || c == '?') {  // '?' too: no trigraph-like surprises
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      out += "\"\"";  // end the escape so a following hex digit is not read into it
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A comment line may not carry a newline or a backslash at its end.
std::string comment_safe(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += (c < 0x20 || c == '\\' || c >= 0x7f) ? '?' : static_cast<char>(c);
  return out;
}

std::string number(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v)) return v > 0 ? "std::numeric_limits<double>::infinity()" : "-std::numeric_limits<double>::infinity()";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

class Writer {
 public:
  Writer(const lower::LoweredModule& m, const ModuleOptions& o) : m_(m), o_(o) {}
  WrittenModule run();

 private:
  const lower::LoweredModule& m_;
  const ModuleOptions& o_;
  NameMinter names_;
  std::ostringstream out_;
  ModuleInterface iface_;
  std::vector<std::byte> payload_;  // the embedded weights, when they go to the payload file

  std::map<std::string, std::string> device_;  // graph tensor -> local in forward
  std::map<std::string, std::string> symbol_var_;  // symbol id -> local
  std::map<std::string, TensorInfo> weight_info_;
  std::string body_;  // forward's statements, in order

  std::string axis_cpp(const AxisName& a) {
    if (a.parts.size() == 1) return a.parts[0];
    std::string s = "Merged<";
    for (std::size_t i = 0; i < a.parts.size(); ++i) s += (i ? ", " : "") + a.parts[i];
    return s + ">";
  }
  std::string axes_cpp(const std::vector<AxisName>& axes) {
    std::string s = "Axes<";
    for (std::size_t i = 0; i < axes.size(); ++i) s += (i ? ", " : "") + axis_cpp(axes[i]);
    return s + ">";
  }
  std::string host_type(const TensorInfo& t) {
    std::string e = cpp_element_type(t.elem);
    if (e.empty())
      fail(o_.source_name + ": tensor '" + t.name + "': element type " + element_type_name(t.elem) +
           " cannot cross the module's boundary (float, double, float16, bfloat16, bool and the integers of 8 to 64 bits but uint64 can)");
    return "Tensor<" + e + ", " + axes_cpp(t.axes) + ">";
  }
  std::string device_type(const TensorInfo& t) {
    std::string e = cpp_compute_type(t.elem);
    if (e.empty())
      fail(o_.source_name + ": tensor '" + t.name + "': element type " + element_type_name(t.elem) +
           " is not one the kernels compute in");
    return "typename LoamBackend::template Tensor<" + e + ", " + axes_cpp(t.axes) + ">";
  }

  // The C++ expression of an extent, defining derived symbols' locals ahead of the statement.
  std::string extent_code(const Extent& e);
  std::string symbol_code(stage0::SymbolId s);
  std::string arg_code(const Arg& a);

  void write_axes();
  // The Loom kernels the module runs, emitted by Loom's C++ emitter, and one adapter each that
  // the Backend's `loom` kernel calls.
  void write_loom_kernels();
  std::map<std::string, std::string> adapter_;  // kernel symbol -> adapter struct
  void write_weights();
  std::string prepared_type(const lower::PreparedWeight& p);
  void write_prepared_init();
  void write_forward();
  // Forward's statements: owed checks, kernel calls, and an If as one `if` with a block per branch.
  void write_owed(const stage0::OwedCondition& c);
  void write_calls(const std::vector<lower::KernelCall>& calls);
  // The memory plan's tables and forward's hold on the arena; each placed call then names its value.
  void write_memory_plan();
  std::map<const lower::KernelCall*, std::size_t> placed_;  // a top-level call -> its value in the plan
  std::string arena_var_;
  void write_if(const lower::KernelCall& c);
  void write_block(const lower::Block& b, const std::vector<std::string>& slots);
  void write_deferred_owed();
  std::vector<const stage0::OwedCondition*> deferred_owed_;  // over an If's lengths: checked after it
  int block_depth_ = 0;  // inside an If's block, locals are fresh: two branches may name tensors alike
  std::string folded_literal(const lower::FoldedTensor& f);
  std::vector<int64_t> static_extents(const TensorInfo& t) {
    std::vector<int64_t> out;
    for (const auto& d : t.dims) {
      auto c = d.constant();
      out.push_back(c ? *c : -1);
    }
    return out;
  }
};

std::string Writer::symbol_code(stage0::SymbolId s) {
  std::string key = std::to_string(s);
  if (auto it = symbol_var_.find(key); it != symbol_var_.end()) return it->second;
  const stage0::SymbolInfo& info = stage0::symbol_info(s);
  if (info.kind == stage0::SymbolKind::Input)
    fail(o_.source_name + ": symbol '" + info.name + "' is used before any input binds it");
  std::vector<std::string> ops;
  for (const auto& op : info.operands) ops.push_back(extent_code(op));
  std::string expr;
  using K = stage0::SymbolKind;
  switch (info.kind) {
    case K::Min: expr = "std::min<std::int64_t>(" + ops.at(0) + ", " + ops.at(1) + ")"; break;
    case K::Max: expr = "std::max<std::int64_t>(" + ops.at(0) + ", " + ops.at(1) + ")"; break;
    case K::CountMax0: expr = "std::max<std::int64_t>(0, " + ops.at(0) + ")"; break;
    case K::FromEnd: expr = "(" + ops.at(0) + " < 0 ? " + ops.at(0) + " + " + ops.at(1) + " : " + ops.at(0) + ")"; break;
    case K::FloorDiv: expr = "loam_floor_div(" + ops.at(0) + ", " + ops.at(1) + ")"; break;
    case K::CeilDiv: expr = "loam_ceil_div(" + ops.at(0) + ", " + ops.at(1) + ")"; break;
    case K::WrapI32:
      expr = "static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(" + ops.at(0) + "))))";
      break;
    case K::RoundF32: expr = "static_cast<std::int64_t>(static_cast<float>(" + ops.at(0) + "))"; break;
    case K::RoundF16: expr = "static_cast<std::int64_t>(static_cast<float>(Half(static_cast<float>(" + ops.at(0) + "))))"; break;
    case K::Branch:
      fail(o_.source_name + ": the length " + info.display + " of " + info.name + " is read before its If runs");
    default: fail(o_.source_name + ": derived symbol '" + info.display + "' has no spelling in C++");
  }
  std::string var = names_.fresh("loam_derived");
  body_ += "  [[maybe_unused]] const std::int64_t " + var + " = " + expr + ";  // " + comment_safe(info.display) + "\n";
  symbol_var_[key] = var;
  return var;
}

std::string Writer::extent_code(const Extent& e) {
  if (auto c = e.constant()) return "std::int64_t{" + std::to_string(*c) + "}";
  std::string s;
  for (const auto& t : e.terms()) {
    std::string term = "std::int64_t{" + std::to_string(t.coeff) + "}";
    for (const auto& [sym, pow] : t.mono)
      for (uint32_t k = 0; k < pow; ++k) term += " * " + symbol_code(sym);
    s += (s.empty() ? "" : " + ") + term;
  }
  if (e.constant_term() != 0) s += " + std::int64_t{" + std::to_string(e.constant_term()) + "}";
  return "(" + s + ")";
}

std::string Writer::arg_code(const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::Tensor: {
      auto it = device_.find(a.tensor);
      if (it == device_.end()) fail(o_.source_name + ": tensor '" + a.tensor + "' is read before forward holds it");
      return it->second;
    }
    case Arg::Kind::Code: return a.code;
    case Arg::Kind::Scalar: return extent_code(a.extents.at(0));
    case Arg::Kind::Extents: {
      std::string s = "std::array<std::int64_t, " + std::to_string(a.extents.size()) + ">{";
      for (std::size_t i = 0; i < a.extents.size(); ++i) s += (i ? ", " : "") + extent_code(a.extents[i]);
      return s + "}";
    }
  }
  return "";
}

void Writer::write_loom_kernels() {
  if (m_.loom_kernels.empty()) return;
  loom::CppOptions o;
  o.ns = "loom_kernels";
  o.standalone = false;
  o.written_elsewhere = {"prepare", "forward"};  // this writer spells them (Weights::load, forward)
  // A check that fails in a kernel (an integer division by zero) refuses the run as a kernel
  // refusal does, instead of stopping the program.
  out_ << "// ---- kernels: Loom's C++ for the module's generated kernels\n"
       << "#define LOOM_ON_FAIL(what) throw KernelRefusal(InputError{\"\", \"\", \"\", what})\n";
  if (m_.narrow_kernels) {
    // Both widths are written and the target picks one, so the header stays the same on every
    // machine that generates it; LOAM_NARROW_VECTORS picks the narrow one anywhere.
    out_ << "#if defined(__AVX512F__) && !defined(LOAM_NARROW_VECTORS)\n// 16 lanes: a 512-bit register of f32.\n"
         << loom::emit_cpp(*m_.kernels, o) << "#else\n// 8 lanes: 256 bits of f32, for a target without 512-bit vectors.\n"
         << loom::emit_cpp(*m_.narrow_kernels, o) << "#endif\n";
  } else {
    out_ << loom::emit_cpp(*m_.kernels, o);
  }
  out_ << "#undef LOOM_ON_FAIL\n\n";
  for (const auto& k : m_.loom_kernels) {
    const std::string name = names_.fresh("loam_kernel_" + k.symbol);
    adapter_[k.symbol] = name;
    std::string params = "const std::array<std::int64_t, " + std::to_string(k.extents) + ">& e, std::byte* out, std::uint64_t out_bytes";
    std::string call;
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t i = 0; i < k.extents; ++i) call += "e[" + std::to_string(i) + "], ";
    call += "out, out_bytes";
    for (std::size_t i = 0; i < k.operands; ++i) {
      params += ", const KernelBytes& in" + std::to_string(i);
      call += ", const_cast<std::byte*>(in" + std::to_string(i) + ".data), in" + std::to_string(i) + ".bytes";
    }
    out_ << "struct " << name << " {\n  static void run(" << params << ") { loom_kernels::" << k.symbol << "(" << call
         << "); }\n};\n";
  }
  out_ << "\n";
}

void Writer::write_axes() {
  out_ << "// ---- axes: one marker type per axis; EXTENT where every value fixes its length\n";
  for (const auto& a : m_.axes) {
    names_.claim_axis(a, o_.source_name + ": layout");
    auto it = m_.fixed_extent.find(a);
    if (it != m_.fixed_extent.end())
      out_ << "struct " << a << " { static constexpr std::int64_t EXTENT = " << it->second << "; };\n";
    else
      out_ << "struct " << a << " {};\n";
  }
  out_ << "\n";
}

void Writer::write_weights() {
  // Which weights the module can supply itself: the graph's data, or a payload inline_weights reads.
  bool all_embedded = true;
  std::vector<std::byte> blob;
  std::vector<std::pair<std::size_t, std::size_t>> where(m_.weights.size(), {0, 0});
  std::vector<bool> embedded(m_.weights.size(), false);
  for (std::size_t i = 0; i < m_.weights.size(); ++i) {
    const auto& w = m_.weights[i];
    const std::vector<std::byte>* bytes = nullptr;
    if (w.data) bytes = &w.data->data;
    else if (auto it = o_.inline_payloads.find(w.info.name); it != o_.inline_payloads.end()) bytes = &it->second;
    if (!bytes) {
      all_embedded = false;
      continue;
    }
    // Align each payload to 64 bytes inside the one literal.
    while (blob.size() % 64) blob.push_back(std::byte{0});
    where[i] = {blob.size(), bytes->size()};
    blob.insert(blob.end(), bytes->begin(), bytes->end());
    embedded[i] = true;
  }
  iface_.has_embedded = all_embedded;

  out_ << "// ---- weights\n";
  out_ << "struct Weights {\n";
  std::vector<std::string> members;
  for (const auto& w : m_.weights) {
    std::string id = names_.mint(w.info.name);
    members.push_back(id);
    weight_info_[w.info.name] = w.info;
    out_ << "  " << host_type(w.info) << " " << id << ";  // " << comment_safe(w.info.name) << "\n";
  }
  if (!m_.prepared.empty())
    out_ << "  // Weights in the form a kernel reads them, built from the members above once, when the weights\n"
            "  // load: forward never packs or regroups a constant. Built eagerly rather than on first use so\n"
            "  // a const Weights can be shared by threads calling forward with no synchronisation.\n";
  for (const auto& p : m_.prepared) {
    std::string id = names_.mint(p.name);
    out_ << "  " << prepared_type(p) << " " << id << ";  // " << comment_safe(p.source) << ", "
         << (p.packed() ? "packed" : "regrouped") << "\n";
  }
  out_ << "\n  // Checks the safetensors header it is given and every payload it reads; a LoadError names the\n"
          "  // tensor and the axis that disagree.\n"
          "  static LoadResult<Weights> load(std::span<const std::byte> checkpoint);\n"
          "  // The same from a checkpoint in shards, each checked as a whole one is, and optionally its\n"
          "  // index (model.safetensors.index.json), which names the shard a missing tensor belongs to.\n"
          "  static LoadResult<Weights> load(std::span<const CheckpointShard> shards, std::string_view index = {});\n"
          "  // Both, from a parsed checkpoint (SafetensorsView or ShardedSafetensors).\n"
          "  template <class Checkpoint>\n"
          "  static LoadResult<Weights> load_from(const Checkpoint& header);\n";
  if (all_embedded)
    out_ << "  // The weights the graph carries, embedded in this header.\n"
            "  static Weights embedded();\n";
  out_ << "};\n\n";

  // The embedded bytes: one string literal (no literal per element), read by memcpy; or, when they
  // are large, the payload file the assembler reads in whole (`.incbin`), so no compiler parses
  // them. Its symbol is in a COMDAT group, so every translation unit including the header shares
  // one copy, and embedded() checks its length before reading it.
  bool any_embedded = !blob.empty();
  if (any_embedded && !o_.payload_file.empty() && blob.size() >= kLargePayload) {
    if (o_.payload_file.find_first_of("\"\\\n") != std::string::npos || o_.payload_file.front() != '/')
      fail(o_.source_name + ": the weights' file '" + o_.payload_file + "' must be an absolute path without quotes or backslashes");
    const std::string sym = "loam_embedded_" + o_.name;
    out_ << "// " << blob.size() << " bytes of weights, assembled from the file beside this header.\n"
         << "#if !defined(__ELF__) || !(defined(__GNUC__) || defined(__clang__))\n"
         << "#error \"this module embeds its weights with the assembler's .incbin (GCC or Clang, an ELF target); build it with a checkpoint instead\"\n"
         << "#endif\n"
         << "__asm__(\".pushsection .rodata." << sym << ",\\\"aG\\\",@progbits," << sym << ",comdat\\n\"\n"
         << "        \".weak " << sym << "\\n.weak " << sym << "_end\\n.balign 64\\n" << sym << ":\\n\"\n"
         << "        \".incbin \\\"" << o_.payload_file << "\\\"\\n" << sym << "_end:\\n.popsection\");\n"
         << "extern \"C\" const char " << sym << "[];\n"
         << "extern \"C\" const char " << sym << "_end[];\n"
         << "inline const std::byte* loam_embedded_bytes() {\n"
         << "  if (" << sym << "_end - " << sym << " != " << blob.size() << ")\n"
         << "    throw KernelMisuse(\"Weights::embedded: the weights' file holds \" + std::to_string(" << sym << "_end - " << sym
         << ") + \" bytes, not the " << blob.size() << " this module was built with\");\n"
         << "  return reinterpret_cast<const std::byte*>(" << sym << ");\n}\n\n";
    payload_ = std::move(blob);
  } else if (any_embedded) {
    out_ << "inline const std::byte* loam_embedded_bytes() {\n"
            "  alignas(64) static const char bytes[] =\n";
    write_bytes_literal(out_, blob, "      ");
    out_ << ";\n  return reinterpret_cast<const std::byte*>(bytes);\n}\n\n";
  }
  auto extents_text = [&](const TensorInfo& t) {
    std::string s = "{";
    auto ext = static_extents(t);
    for (std::size_t k = 0; k < ext.size(); ++k) {
      if (ext[k] < 0) fail(o_.source_name + ": weight '" + t.name + "', axis " + std::to_string(k) + ": a weight's length must be a number");
      s += (k ? ", " : "") + std::to_string(ext[k]);
    }
    return s + "}";
  };
  auto embedded_init = [&](std::ostream& os, std::size_t i, const char* target) {
    const auto& w = m_.weights[i];
    os << "  " << target << "." << members[i] << " = loam_tensor_from_bytes<" << cpp_element_type(w.info.elem) << ", "
       << axes_cpp(w.info.axes) << ">(" << extents_text(w.info) << ", loam_embedded_bytes() + " << where[i].first << ");\n";
  };
  // The prepared members, built once for both ways the weights arrive (a template's every
  // instantiation would compile its packing again).
  out_ << "inline void loam_prepare_weights([[maybe_unused]] Weights& w) {\n";
  write_prepared_init();
  out_ << "}\n\n";
  if (all_embedded) {
    out_ << "inline Weights Weights::embedded() {\n  Weights w;\n";
    for (std::size_t i = 0; i < m_.weights.size(); ++i) embedded_init(out_, i, "w");
    out_ << "  loam_prepare_weights(w);\n  return w;\n}\n\n";
  }
  out_ << "inline LoadResult<Weights> Weights::load([[maybe_unused]] std::span<const std::byte> checkpoint) {\n";
  if (!all_embedded)
    out_ << "  auto header = SafetensorsView::parse(checkpoint);\n"
            "  if (!header) return std::unexpected(header.error());\n"
            "  return load_from(*header);\n}\n\n";
  else
    out_ << "  return load_from(0);\n}\n\n";
  out_ << "inline LoadResult<Weights> Weights::load([[maybe_unused]] std::span<const CheckpointShard> shards,\n"
          "                                          [[maybe_unused]] std::string_view index) {\n";
  if (!all_embedded)
    out_ << "  auto header = ShardedSafetensors::parse(shards, index);\n"
            "  if (!header) return std::unexpected(header.error());\n"
            "  return load_from(*header);\n}\n\n";
  else
    out_ << "  return load_from(0);\n}\n\n";
  out_ << "template <class Checkpoint>\n"
          "inline LoadResult<Weights> Weights::load_from([[maybe_unused]] const Checkpoint& header) {\n";
  if (all_embedded) {
    out_ << "  return embedded();\n}\n\n";
    return;
  }
  out_ << "  Weights w;\n";
  for (std::size_t i = 0; i < m_.weights.size(); ++i) {
    const auto& w = m_.weights[i];
    if (embedded[i]) {
      embedded_init(out_, i, "w");
      continue;
    }
    out_ << "  {\n    auto t = header.template tensor<" << cpp_element_type(w.info.elem) << ", " << axes_cpp(w.info.axes) << ">("
         << quote(w.info.name) << ", " << extents_text(w.info) << ", {";
    for (std::size_t k = 0; k < w.info.axes.size(); ++k) out_ << (k ? ", " : "") << quote(w.info.axes[k].text());
    out_ << "});\n    if (!t) return std::unexpected(t.error());\n    w." << members[i] << " = std::move(*t);\n  }\n";
  }
  out_ << "  loam_prepare_weights(w);\n  return w;\n}\n\n";
}

std::string Writer::prepared_type(const lower::PreparedWeight& p) {
  using F = lower::PreparedWeight::Form;
  const auto& ax = p.info.axes;
  switch (p.form) {
    case F::PackedConv: return "PackedConv<" + axes_cpp(ax) + ">";
    case F::PackedMatrix: return "PackedMatrix<" + axis_cpp(ax.at(0)) + ", " + axis_cpp(ax.at(1)) + ">";
    case F::PackedMatrixTransposed: return "PackedMatrix<" + axis_cpp(ax.at(1)) + ", " + axis_cpp(ax.at(0)) + ">";
    case F::Regrouped:
    case F::FoldedBias: return host_type(p.info);
  }
  return "";
}

// Each prepared weight from the loaded member `w.<source>` (regrouped first where the form reads
// other axes or extents; a regrouping shares the elements).
void Writer::write_prepared_init() {
  using F = lower::PreparedWeight::Form;
  for (const auto& p : m_.prepared) {
    const TensorInfo& src = weight_info_.at(p.source);
    std::string from = "w." + names_.mint(p.source);
    if (src.axes != p.info.axes || src.dims != p.info.dims) {
      std::string ext = "{";
      auto e = static_extents(p.info);
      for (std::size_t k = 0; k < e.size(); ++k) ext += (k ? ", " : "") + std::to_string(e[k]);
      from += ".regrouped<" + axes_cpp(p.info.axes) + ">(" + ext + "})";
    }
    std::string type = prepared_type(p);
    std::string value;
    std::string eps;
    if (p.norm) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "static_cast<float>(%.9g)", static_cast<double>(p.norm->epsilon));
      eps = buf;
    }
    const auto member = [&](const std::string& t) { return "w." + names_.mint(t); };
    switch (p.form) {
      case F::PackedConv:
        if (p.norm) from = "batch_norm_folded_weight(" + from + ", " + member(p.norm->scale) + ", " + member(p.norm->var) + ", " + eps + ")";
        value = type + "(" + from + ", " + std::to_string(p.group) + ")";
        break;
      case F::FoldedBias:
        value = "batch_norm_folded_bias(" + member(p.norm->scale) + ", " + member(p.norm->shift) + ", " + member(p.norm->mean) + ", " +
                member(p.norm->var) + ", " + eps + (p.norm->conv_bias.empty() ? "" : ", &" + member(p.norm->conv_bias)) + ")";
        break;
      case F::PackedMatrix: value = type + "(" + from + ")"; break;
      case F::PackedMatrixTransposed: value = type + "::from_transposed(" + from + ")"; break;
      case F::Regrouped: value = from; break;
    }
    out_ << "  w." << names_.mint(p.name) << " = " << value << ";\n";
  }
}

std::string Writer::folded_literal(const lower::FoldedTensor& f) {
  std::string e = cpp_element_type(f.held);
  std::size_t es = element_size(f.held);
  std::size_t n = es ? f.bytes.size() / es : 0;
  std::string var = names_.fresh("loam_folded");
  std::string init;
  for (std::size_t i = 0; i < n; ++i) {
    const std::byte* p = f.bytes.data() + i * es;
    if (i) init += ", ";
    if (f.held == ElementType::F32) {
      float x;
      std::memcpy(&x, p, 4);
      init += "static_cast<float>(" + number(x) + ")";
    } else if (f.held == ElementType::I64) {
      int64_t x;
      std::memcpy(&x, p, 8);
      init += x == INT64_MIN ? "INT64_MIN" : "std::int64_t{" + std::to_string(x) + "}";
    } else if (f.held == ElementType::Bool) {
      init += std::to_integer<int>(*p) ? "true" : "false";
    } else {
      fail(o_.source_name + ": folded tensor '" + f.info.name + "' has an element type the module cannot spell");
    }
  }
  std::string ext = "{";
  for (std::size_t k = 0; k < f.info.dims.size(); ++k) {
    auto c = f.info.dims[k].constant();
    if (!c) fail(o_.source_name + ": folded tensor '" + f.info.name + "' has a length only the run knows");
    ext += (k ? ", " : "") + std::to_string(*c);
  }
  ext += "}";
  std::string host = "Tensor<" + e + ", " + axes_cpp(f.info.axes) + ">";
  if (n == 0) return host + "(" + host + "::Extents" + ext + ")";
  body_ += "  static const " + e + " " + var + "[] = {" + init + "};  // " + comment_safe(f.info.name) + "\n";
  return host + "::borrowed(" + host + "::Extents" + ext + ", " + var + ")";
}

void Writer::write_owed(const stage0::OwedCondition& c) {
  std::string input, axis;
  auto syms = stage0::input_symbols_of(c.slack);
  for (const auto& b : m_.bindings) {
    if (!syms.empty() && stage0::input_symbol(b.symbol) == syms[0]) {
      input = b.input;
      for (const auto& in : m_.inputs)
        if (in.name == b.input) axis = in.axes.at(b.axis).text();
      break;
    }
  }
  const std::string refusal = "    return std::unexpected(InputError{" + quote(input) + ", " + quote(axis) + ", " + quote(c.node) + ", " +
                              quote(c.message) + "});\n";
  if (!c.checked) {
    body_ += "  if (" + extent_code(c.slack) + " < 0)  // " + comment_safe(c.to_string()) + "\n" + refusal;
    return;
  }
  // Some lengths would carry the computation past 2^63: term by term with overflow checks, an
  // overflow refusing the inputs as the condition failing does.
  std::string check;
  for (const auto& t : c.slack.terms()) {
    std::string factors;
    for (const auto& [sym, pow] : t.mono)
      for (uint32_t k = 0; k < pow; ++k) factors += (factors.empty() ? "" : ", ") + symbol_code(sym);
    check += "!loam_checked_add_term(loam_value, " + std::to_string(t.coeff) + ", {" + factors + "}) || ";
  }
  check += "!loam_checked_add_term(loam_value, " + std::to_string(c.slack.constant_term()) + ", {})";
  if (c.kind != stage0::OwedKind::FitsI64) check += " || loam_value < 0";
  body_ += "  {  // " + comment_safe(c.to_string()) + "\n    std::int64_t loam_value = 0;\n    if (" + check + ")\n  " + refusal + "  }\n";
}

void Writer::write_deferred_owed() {
  std::vector<const stage0::OwedCondition*> still;
  for (const auto* c : deferred_owed_) {
    bool ready = true;
    for (stage0::SymbolId s : c->slack.symbols())
      if (stage0::symbol_info(s).kind == stage0::SymbolKind::Branch && !symbol_var_.count(std::to_string(s))) ready = false;
    if (ready) write_owed(*c);
    else still.push_back(c);
  }
  deferred_owed_ = std::move(still);
}

void Writer::write_calls(const std::vector<lower::KernelCall>& calls) {
  for (const auto& c : calls) {
    if (c.branch) {
      write_if(c);
      continue;
    }
    body_ += "  // " + comment_safe(c.node) + " (" + comment_safe(c.op) + ")\n";
    std::string args;
    for (std::size_t i = 0; i < c.args.size(); ++i) {
      // A generated kernel's call names it by its adapter.
      const bool adapter = c.kernel == "loom" && i == 0;
      std::string code = adapter ? adapter_.at(c.args[0].code) + "{}" : arg_code(c.args[i]);
      if (c.args[i].built_once) {
        const std::string once = names_.fresh(identifier_spelling(c.results.empty() ? c.node : c.results[0]) + "_settings");
        body_ += "  static const auto " + once + " = " + code + ";\n";
        code = once;
      }
      args += (i ? ", " : "") + code;
    }
    // Last before the call, so nothing else takes the placement.
    if (auto it = placed_.find(&c); block_depth_ == 0 && it != placed_.end())
      body_ += "  " + arena_var_ + ".place(" + std::to_string(it->second) + ");\n";
    if (c.epilogue) {
      // epilogue<Out, O>(Kernel{}, extents, other extents, the operands after the product).
      const lower::KernelCall& k = c.epilogue->kernel;
      args += ", epilogue<" + axes_cpp(*k.template_args.at(0).axes) + ", " + k.template_args.at(1).code + ">(" +
              adapter_.at(k.args.at(0).code) + "{}, " + arg_code(k.args.at(1)) + ", " + arg_code(k.args.at(2));
      for (std::size_t i = 4; i < k.args.size(); ++i) args += ", " + arg_code(k.args[i]);
      args += ")";
    }
    std::string targs;
    if (!c.template_args.empty()) {
      targs = ".template " + c.kernel + "<";
      for (std::size_t i = 0; i < c.template_args.size(); ++i)
        targs += (i ? ", " : "") + (c.template_args[i].axes ? axes_cpp(*c.template_args[i].axes) : c.template_args[i].code);
      targs += ">";
    } else {
      targs = "." + c.kernel;
    }
    // Inside a block a local is fresh: two branches may name their tensors alike.
    auto local = [&](const std::string& tensor) {
      std::string var = block_depth_ ? names_.fresh(identifier_spelling(tensor)) : names_.mint(tensor);
      device_[tensor] = var;
      return var;
    };
    if (c.results.size() == 1) {
      const std::string type = device_type(c.result_types.at(0));
      body_ += "  const " + type + " " + local(c.results[0]) + " = backend" + targs + "(" + args + ");\n";
      continue;
    }
    // Several results: a tuple of the types the lowering gave them, then a name for each (a result
    // the graph does not read is still bound).
    std::string types, vars;
    for (std::size_t i = 0; i < c.results.size(); ++i) {
      types += (i ? ", " : "") + device_type(c.result_types.at(i));
      vars += (i ? ", " : "") + local(c.results[i]);
    }
    const std::string tuple = names_.fresh("loam_results");
    body_ += "  const std::tuple<" + types + "> " + tuple + " = backend" + targs + "(" + args + ");\n";
    body_ += "  [[maybe_unused]] const auto& [" + vars + "] = " + tuple + ";\n";
  }
}

void Writer::write_memory_plan() {
  const lower::MemoryPlan& plan = m_.memory;
  if (plan.values.empty()) return;
  const std::size_t n = plan.values.size();
  body_ += "\n  // The memory plan: " + std::to_string(n) + " intermediates share one arena, ";
  if (plan.arena_bytes)
    body_ += "of " + std::to_string(*plan.arena_bytes) + " bytes (one block each they would take " + std::to_string(plan.separate_bytes) + ")";
  else
    body_ += "laid out for the extents of the call (again only when they change)";
  body_ += ";\n  // place(k) has the next kernel write its result into value k's block.\n";
  const std::string lifetimes = names_.fresh("loam_lifetimes"), sizes = names_.fresh("loam_value_bytes"),
                    plan_var = names_.fresh("loam_memory_plan");
  arena_var_ = names_.fresh("loam_arena");
  std::string life, bytes;
  for (std::size_t i = 0; i < n; ++i) {
    const lower::PlannedValue& v = plan.values[i];
    life += (i ? ", " : "") + std::string("{") + std::to_string(v.call) + ", " + std::to_string(v.last) + "}";
    bytes += "      " +
             (v.bytes ? "std::size_t{" + std::to_string(*v.bytes) + "}"
                      : "arena_value_bytes(" + extent_code(v.elements) + ", " + std::to_string(v.element_bytes) + ")") +
             (i + 1 < n ? "," : "") + "  // " + comment_safe(v.tensor) + "\n";
  }
  const std::string count = std::to_string(n);
  body_ += "  static constexpr std::array<ArenaInterval, " + count + "> " + lifetimes + "{{" + life + "}};\n";
  body_ += "  const std::array<std::size_t, " + count + "> " + sizes + "{\n" + bytes + "  };\n";
  body_ += "  static thread_local ArenaPlan<" + count + "> " + plan_var + ";\n";
  body_ += "  const ArenaScope " + arena_var_ + " = " + plan_var + ".enter(" + lifetimes + ", " + sizes + ");\n";
  for (std::size_t i = 0; i < n; ++i) placed_[&m_.calls.at(plan.values[i].call)] = i;
}

// `if (condition) { then block } else { else block }`: the results are declared ahead of the `if`
// (std::optional, since a backend tensor need not be default-constructible) and assigned in each
// block; the condition's one element is read through the backend (a download on a GPU).
void Writer::write_if(const lower::KernelCall& c) {
  const lower::BranchCall& bc = *c.branch;
  body_ += "  // " + comment_safe(c.node) + " (If)\n";
  std::vector<std::string> slots;
  for (std::size_t i = 0; i < c.results.size(); ++i) {
    std::string slot = names_.fresh(identifier_spelling(c.results[i]) + "_slot");
    body_ += "  std::optional<" + device_type(c.result_types[i]) + "> " + slot + ";\n";
    slots.push_back(slot);
  }
  auto cond_it = device_.find(bc.condition);
  if (cond_it == device_.end()) fail(o_.source_name + ": condition '" + bc.condition + "' is read before forward holds it");
  std::string cond = names_.fresh("loam_condition");
  body_ += "  const bool " + cond + " = backend.read_condition(" + cond_it->second + ");\n";
  body_ += "  if (" + cond + ") {\n";
  write_block(bc.then_block, slots);
  body_ += "  } else {\n";
  write_block(bc.else_block, slots);
  body_ += "  }\n";
  for (std::size_t i = 0; i < c.results.size(); ++i) {
    std::string var = block_depth_ ? names_.fresh(identifier_spelling(c.results[i])) : names_.mint(c.results[i]);
    body_ += "  const " + device_type(c.result_types[i]) + "& " + var + " = *" + slots[i] + ";\n";
    device_[c.results[i]] = var;
  }
  // A length the two branches give differently: the one the run took.
  for (const auto& r : c.result_types)
    for (const auto& d : r.dims)
      for (stage0::SymbolId s : d.symbols()) {
        const stage0::SymbolInfo& info = stage0::symbol_info(s);
        std::string key = std::to_string(s);
        if (info.kind != stage0::SymbolKind::Branch || symbol_var_.count(key)) continue;
        std::string then_len = extent_code(info.operands.at(0));
        std::string else_len = extent_code(info.operands.at(1));
        std::string var = names_.fresh("loam_branch_length");
        body_ += "  [[maybe_unused]] const std::int64_t " + var + " = " + cond + " ? " + then_len + " : " + else_len +
                 ";  // " + comment_safe(info.name) + "\n";
        symbol_var_[key] = var;
      }
  write_deferred_owed();
}

void Writer::write_block(const lower::Block& b, const std::vector<std::string>& slots) {
  std::string outer = std::move(body_);
  body_.clear();
  auto saved_device = device_;
  auto saved_symbols = symbol_var_;
  auto saved_deferred = deferred_owed_;
  ++block_depth_;
  if (!b.owed.empty()) body_ += "  // What this branch owes, checked before its kernels run.\n";
  for (const auto& c : b.owed) write_owed(c);
  for (const auto& f : b.folded) {
    std::string var = names_.fresh(identifier_spelling(f.info.name) + "_dev");
    std::string lit = folded_literal(f);
    body_ += "  const " + device_type(f.info) + " " + var + " = backend.upload(" + lit + ");\n";
    device_[f.info.name] = var;
  }
  write_calls(b.calls);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    auto it = device_.find(b.outputs.at(i));
    if (it == device_.end()) fail(o_.source_name + ": branch output '" + b.outputs[i] + "' is never computed");
    body_ += "  " + slots[i] + ".emplace(" + it->second + ");\n";
  }
  --block_depth_;
  std::string inner = std::move(body_);
  body_ = std::move(outer);
  std::size_t pos = 0;
  while (pos < inner.size()) {
    std::size_t end = inner.find('\n', pos);
    if (end == std::string::npos) end = inner.size();
    body_ += "  " + inner.substr(pos, end - pos) + "\n";
    pos = end + 1;
  }
  device_ = std::move(saved_device);
  symbol_var_ = std::move(saved_symbols);
  deferred_owed_ = std::move(saved_deferred);
}

void Writer::write_forward() {
  // Parameters.
  std::vector<std::string> params;
  for (const auto& in : m_.inputs) {
    std::string id = names_.mint(in.name);
    params.push_back(id);
    iface_.inputs.push_back({in.name, id, host_type(in), in.elem, in.axes.size()});
  }
  // Return type.
  std::string ret;
  iface_.outputs_struct = m_.outputs.size() != 1;
  std::vector<std::string> fields;
  if (iface_.outputs_struct) {
    out_ << "// ---- outputs, in the order the graph declares them\nstruct Outputs {\n";
    for (const auto& o : m_.outputs) {
      std::string id = names_.mint(o.name);
      fields.push_back(id);
      out_ << "  " << host_type(o) << " " << id << ";  // " << comment_safe(o.name) << "\n";
      iface_.outputs.push_back({o.name, id, host_type(o), o.elem, o.axes.size()});
    }
    out_ << "};\n\n";
    ret = "Outputs";
  } else {
    ret = host_type(m_.outputs[0]);
    iface_.outputs.push_back({m_.outputs[0].name, "", ret, m_.outputs[0].elem, m_.outputs[0].axes.size()});
  }

  // 1. Bind every input symbol, from the first input axis carrying it.
  body_ += "  // Bind every symbol, then check every input extent and owed condition, before any kernel runs.\n";
  std::map<std::string, const TensorInfo*> input_by_name;
  std::map<std::string, std::string> param_of;
  for (std::size_t i = 0; i < m_.inputs.size(); ++i) {
    input_by_name[m_.inputs[i].name] = &m_.inputs[i];
    param_of[m_.inputs[i].name] = params[i];
  }
  std::set<std::pair<std::string, std::size_t>> binding_axes;
  for (const auto& b : m_.bindings) {
    const TensorInfo* in = input_by_name.at(b.input);
    std::string axis_name = in->axes.at(b.axis).text();
    std::string len = param_of[b.input] + ".extent(" + std::to_string(b.axis) + ")";
    stage0::SymbolId sym = stage0::input_symbol(b.symbol);
    std::string var = names_.fresh(identifier_spelling(b.symbol));
    if (b.alone) {
      body_ += "  [[maybe_unused]] const std::int64_t " + var + " = " + len + ";  // " + comment_safe(b.symbol) + "\n";
      binding_axes.insert({b.input, b.axis});
    } else {
      // The spelling is linear in the symbol: a * sym + rest, with rest over symbols bound already.
      int64_t a = 0;
      Extent rest = b.spelling;
      for (const auto& t : b.spelling.terms())
        if (t.mono.size() == 1 && t.mono[0].first == sym && t.mono[0].second == 1) a = t.coeff;
      if (a == 0) fail(o_.source_name + ": symbol '" + b.symbol + "' cannot be read back from input '" + b.input + "'");
      rest = rest - Extent(a) * Extent::symbol(sym);
      std::string r = extent_code(rest);
      body_ += "  if ((" + len + " - " + r + ") % " + std::to_string(a) + " != 0 || (" + len + " - " + r + ") / " +
               std::to_string(a) + " < 0)\n    return std::unexpected(InputError{" + quote(b.input) + ", " + quote(axis_name) +
               ", \"\", \"its length \" + std::to_string(" + len + ") + \" does not read back a length for " +
               comment_safe(b.symbol) + "\"});\n";
      body_ += "  [[maybe_unused]] const std::int64_t " + var + " = (" + len + " - " + r + ") / " + std::to_string(a) + ";  // " +
               comment_safe(b.symbol) + "\n";
    }
    symbol_var_[std::to_string(sym)] = var;
    // The build proved with the symbol in its range; a length outside it is refused.
    const stage0::Interval& range = stage0::symbol_info(sym).range;
    const std::int64_t lo = static_cast<std::int64_t>(range.lo), hi = static_cast<std::int64_t>(range.hi);
    body_ += "  if (" + var + " < " + std::to_string(lo) + " || " + var + " > " + std::to_string(hi) +
             ")\n    return std::unexpected(InputError{" + quote(b.input) + ", " + quote(axis_name) + ", \"\", \"its length gives " +
             comment_safe(b.symbol) + " = \" + std::to_string(" + var + ") + \", outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
             "], the lengths the build took it to have\"});\n";
  }
  // 2. Check every input extent.
  for (std::size_t i = 0; i < m_.inputs.size(); ++i) {
    const auto& in = m_.inputs[i];
    for (std::size_t k = 0; k < in.dims.size(); ++k) {
      if (binding_axes.count({in.name, k})) continue;
      std::string len = params[i] + ".extent(" + std::to_string(k) + ")";
      std::string want = extent_code(in.dims[k]);
      std::string needs = in.dims[k].constant() ? quote("; the graph fixes " + in.dims[k].to_string())
                                                : quote("; the graph needs " + in.dims[k].to_string() + " = ") +
                                                      " + std::to_string(" + want + ")";
      body_ += "  if (" + len + " != " + want + ")\n    return std::unexpected(InputError{" + quote(in.name) + ", " +
               quote(in.axes[k].text()) + ", \"\", \"is \" + std::to_string(" + len + ") + \" long\" + " + needs + "});\n";
    }
  }
  // 3. Check every owed condition, naming the input and axis of its first symbol and the node. One
  // over the length an If's branches give is checked once that If has run.
  // The lengths some inputs would carry past 2^63 first: the checks after them compute those.
  for (const bool fits : {true, false})
    for (const auto& c : m_.owed) {
      if ((c.kind == stage0::OwedKind::FitsI64) != fits) continue;
      if (stage0::reads_branch_length(c.slack)) deferred_owed_.push_back(&c);
      else write_owed(c);
    }
  // 4. Upload the inputs, widening a half to float.
  body_ += "\n  // Inputs and weights onto the backend.\n";
  for (std::size_t i = 0; i < m_.inputs.size(); ++i) {
    const auto& in = m_.inputs[i];
    std::string var = names_.fresh(params[i] + "_dev");
    std::string up = "backend.upload(" + params[i] + ")";
    if (cpp_compute_type(in.elem) != cpp_element_type(in.elem)) up = "backend.template cast<" + cpp_compute_type(in.elem) + ">(" + up + ")";
    body_ += "  const " + device_type(in) + " " + var + " = " + up + ";\n";
    device_[in.name] = var;
  }
  // A weight is uploaded as stored only where a kernel reads it so (or the graph returns it); a
  // packed weight is a host object every backend takes as it is.
  std::set<std::string> read_as_stored;
  std::function<void(const std::vector<lower::KernelCall>&)> reads = [&](const std::vector<lower::KernelCall>& calls) {
    for (const auto& c : calls) {
      for (const Arg* a : lower::passed_args(c))
        if (a->kind == Arg::Kind::Tensor) read_as_stored.insert(a->tensor);
      if (!c.branch) continue;
      read_as_stored.insert(c.branch->condition);
      for (const lower::Block* b : {&c.branch->then_block, &c.branch->else_block}) {
        reads(b->calls);
        read_as_stored.insert(b->outputs.begin(), b->outputs.end());
      }
    }
  };
  reads(m_.calls);
  for (const auto& o : m_.outputs) read_as_stored.insert(o.name);
  for (const auto& w : m_.weights) {
    if (!read_as_stored.count(w.info.name)) continue;
    std::string member = names_.mint(w.info.name);
    std::string var = names_.fresh(member + "_dev");
    std::string up = "backend.upload(weights." + member + ")";
    if (cpp_compute_type(w.info.elem) != cpp_element_type(w.info.elem)) up = "backend.template cast<" + cpp_compute_type(w.info.elem) + ">(" + up + ")";
    body_ += "  const " + device_type(w.info) + " " + var + " = " + up + ";\n";
    device_[w.info.name] = var;
  }
  for (const auto& p : m_.prepared) {
    std::string member = names_.mint(p.name);
    if (p.packed()) {
      device_[p.name] = "weights." + member;
      continue;
    }
    std::string var = names_.fresh(member + "_dev");
    body_ += "  const " + device_type(p.info) + " " + var + " = backend.upload(weights." + member + ");\n";
    device_[p.name] = var;
  }
  for (const auto& f : m_.folded) {
    std::string var = names_.fresh(identifier_spelling(f.info.name) + "_dev");
    std::string lit = folded_literal(f);
    body_ += "  const " + device_type(f.info) + " " + var + " = backend.upload(" + lit + ");\n";
    device_[f.info.name] = var;
  }
  // 5. The kernels, in graph order; each result is declared with the axes the build computed, so a
  // call whose kernel disagrees does not compile.
  write_memory_plan();
  body_ += "\n  // Kernels.\n";
  write_calls(m_.calls);
  // 6. Download the outputs, narrowing a half.
  body_ += "\n  // Outputs.\n";
  auto download = [&](const TensorInfo& o) {
    std::string v = device_.at(o.name);
    if (cpp_compute_type(o.elem) != cpp_element_type(o.elem))
      return "backend.download(backend.template cast<" + cpp_element_type(o.elem) + ">(" + v + "))";
    return "backend.download(" + v + ")";
  };
  if (iface_.outputs_struct) {
    body_ += "  Outputs loam_outputs;\n";
    for (std::size_t i = 0; i < m_.outputs.size(); ++i)
      body_ += "  loam_outputs." + fields[i] + " = " + download(m_.outputs[i]) + ";\n";
    body_ += "  return loam_outputs;\n";
  } else {
    body_ += "  return " + download(m_.outputs[0]) + ";\n";
  }

  out_ << "// ---- forward\n"
          "// Runs the graph on `backend`. Returns an InputError naming the input, the axis and the node\n"
          "// relying on it when an input's extents disagree with the graph or an owed condition fails;\n"
          "// no kernel runs before every check has passed.\n"
          "template <Backend LoamBackend>\n"
          "RunResult<" << ret << "> forward(LoamBackend& backend, [[maybe_unused]] const Weights& weights";
  for (std::size_t i = 0; i < m_.inputs.size(); ++i)
    out_ << ",\n                     const " << host_type(m_.inputs[i]) << "& " << params[i];
  out_ << ") {\n" << body_ << "}\n\n";
}

WrittenModule Writer::run() {
  if (!is_plain_identifier(o_.name) || ReservedSet::standard().contains(o_.name))
    fail("module name '" + o_.name + "' is not a free C++ identifier");
  iface_.name = o_.name;
  const RuntimeText& rt = runtime_text();
  std::string prelude;
  for (const std::string_view text : {rt.prelude, !m_.loom_kernels.empty() ? loom::loom_runtime_text().prelude : std::string_view()}) {
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("#pragma once", 0) != 0) prelude += line + "\n";
  }
  // Names the module's own statements use are minted now, so a graph name cannot take them.
  names_.fresh("loam_outputs");

  std::ostringstream head;
  head << "// Generated by loam 0.1.0 from " << comment_safe(o_.source_name) << ". Do not edit: regenerate.\n"
       << "// Module '" << o_.name << "': everything it declares lives in namespace " << o_.name << ",\n"
       << "// with its own copy of the Loam runtime; there is no library to link.\n"
       << "#pragma once\n\n"
       << "// ---- runtime prelude\n"
       << prelude << "\n"
       << "namespace " << o_.name << " {\n\n"
       << rt.body << "\n"
       << kModuleFixedText << "\n";
  write_loom_kernels();
  write_axes();
  write_weights();
  write_forward();
  out_ << "}  // namespace " << o_.name << "\n";
  WrittenModule w;
  w.text = head.str() + out_.str();
  w.interface = iface_;
  w.payload = std::move(payload_);
  return w;
}

}  // namespace

WrittenModule write_module(const lower::LoweredModule& module, const ModuleOptions& options) {
  Writer w(module, options);
  return w.run();
}

}  // namespace loam::emit
