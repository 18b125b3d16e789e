// The lowered module as text, for `loam build --emit=lowered`: its boundary, the weights prepared at
// load, the tensors the build folded, and forward's kernel calls in order, one a line.
#include "lower/module.hpp"

namespace loam::lower {

namespace {

std::string axes_text(const std::vector<AxisName>& axes) {
  std::string s = "[";
  for (std::size_t i = 0; i < axes.size(); ++i) s += (i ? ", " : "") + axes[i].text();
  return s + "]";
}

std::string tensor_text(const TensorInfo& t) {
  std::string s = t.name + ": " + element_type_name(t.elem) + " " + axes_text(t.axes);
  if (!t.dims.empty()) {
    s += " (";
    for (std::size_t i = 0; i < t.dims.size(); ++i) s += (i ? ", " : "") + t.dims[i].to_string();
    s += ")";
  }
  return s;
}

std::string arg_text(const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::Tensor: return a.tensor;
    case Arg::Kind::Code: return a.code;
    case Arg::Kind::Scalar: return a.extents.empty() ? "?" : a.extents[0].to_string();
    case Arg::Kind::Extents: {
      std::string s = "{";
      for (std::size_t i = 0; i < a.extents.size(); ++i) s += (i ? ", " : "") + a.extents[i].to_string();
      return s + "}";
    }
  }
  return "?";
}

void print_calls(std::string& out, const std::vector<KernelCall>& calls, int depth);

void print_call(std::string& out, const KernelCall& c, int depth) {
  const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
  std::string line = pad;
  for (std::size_t i = 0; i < c.results.size(); ++i)
    line += (i ? ", " : "") + (i < c.result_types.size() ? tensor_text(c.result_types[i]) : c.results[i]);
  line += " = " + c.kernel;
  if (!c.template_args.empty()) {
    line += "<";
    for (std::size_t i = 0; i < c.template_args.size(); ++i)
      line += (i ? ", " : "") + (c.template_args[i].axes ? axes_text(*c.template_args[i].axes) : c.template_args[i].code);
    line += ">";
  }
  line += "(";
  for (std::size_t i = 0; i < c.args.size(); ++i) line += (i ? ", " : "") + arg_text(c.args[i]);
  if (c.epilogue) {
    // The kernel run on the product's rows, reading the product first.
    const KernelCall& k = c.epilogue->kernel;
    line += ", then " + k.args.at(0).code + "(" + c.epilogue->product.name;
    for (std::size_t i = 4; i < k.args.size(); ++i) line += ", " + arg_text(k.args[i]);
    line += ")";
  }
  line += ")  // " + c.node;
  if (c.op.find(" + ") != std::string::npos) line += " (" + c.op + ")";
  out += line + "\n";
  if (c.branch) {
    out += pad + "  if " + c.branch->condition + " then:\n";
    print_calls(out, c.branch->then_block.calls, depth + 2);
    out += pad + "  else:\n";
    print_calls(out, c.branch->else_block.calls, depth + 2);
  }
}

void print_calls(std::string& out, const std::vector<KernelCall>& calls, int depth) {
  for (const auto& c : calls) print_call(out, c, depth);
}

}  // namespace

std::string print_lowered(const LoweredModule& m) {
  std::string out;
  for (const auto& t : m.inputs) out += "input " + tensor_text(t) + "\n";
  for (const auto& w : m.weights) out += "weight " + tensor_text(w.info) + "\n";
  for (const auto& p : m.prepared) out += "prepared " + p.name + " from " + p.source + ": " + axes_text(p.info.axes) + "\n";
  for (const auto& f : m.folded) out += "folded " + tensor_text(f.info) + "\n";
  for (const auto& o : m.owed) out += "owed " + o.to_string() + "\n";
  out += "forward:\n";
  print_calls(out, m.calls, 1);
  for (const auto& t : m.outputs) out += "output " + t.name + "\n";
  return out;
}

}  // namespace loam::lower
