#include "onnx/onnx_checker.hpp"

#include <onnx/checker.h>

#include <unordered_map>

#include "onnx/schema_check.hpp"
#include "support/error.hpp"

namespace loam {

namespace {

// The checker writes over several lines ("...\n\n==> Context: Bad node spec for node. Name: a
// OpType: Relu"); a loam::Error is one line.
std::string one_line(const std::string& message) {
  std::string out;
  bool space = false;
  for (char c : message) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  const std::string context = " ==> Context: ";
  if (auto at = out.find(context); at != std::string::npos) out.replace(at, context.size(), " (in ") += ")";
  return out;
}

// The message without the checker's own context line, which names a node only by a name that is
// often empty; Loam names the place itself.
std::string without_context(const std::string& message) {
  const std::string line = one_line(message);
  const auto at = line.find(" (in Bad node spec for node.");
  return at == std::string::npos ? line : line.substr(0, at);
}

std::string value_label(const char* what, int index, const onnx::ValueInfoProto& v) {
  return std::string(what) + (v.name().empty() ? " " + std::to_string(index) + " (unnamed)" : " '" + v.name() + "'");
}

// Where in the main graph the checker's refusal lies, found by checking each part alone as
// check_model does (each value info, then each node with the names defined before it): "graph
// input 'x'", "node Relu -> 'y'" (the label of the node `read` holds at that place), or empty when
// the fault is in no single one of them.
std::string locate(const onnx::ModelProto& model, const Model& read) {
  onnx::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(model.ir_version()));
  std::unordered_map<std::string, int> opsets;
  for (const auto& o : model.opset_import()) opsets[o.domain()] = static_cast<int>(o.version());
  ctx.set_opset_imports(opsets);
  const auto& g = model.graph();
  const auto fails = [&](const auto& check) {
    try {
      check();
    } catch (const std::exception&) {
      return true;
    }
    return false;
  };
  const auto value_infos = [&](const char* what, const auto& list) -> std::string {
    for (int i = 0; i < list.size(); ++i)
      if (fails([&] { onnx::checker::check_value_info(list[i], ctx); })) return value_label(what, i, list[i]);
    return "";
  };
  for (const auto& [what, list] : {std::pair{"graph input", &g.input()}, {"graph output", &g.output()}, {"value info", &g.value_info()}})
    if (auto where = value_infos(what, *list); !where.empty()) return where;
  onnx::checker::LexicalScopeContext defined;
  for (const auto& v : g.input()) defined.add(v.name());
  for (const auto& t : g.initializer()) defined.add(t.name());
  for (const auto& t : g.sparse_initializer()) defined.add(t.values().name());
  for (int i = 0; i < g.node_size(); ++i) {
    if (fails([&] { onnx::checker::check_node(g.node(i), ctx, defined); })) return read.graph.nodes[static_cast<std::size_t>(i)].label();
    for (const auto& o : g.node(i).output()) defined.add(o);
  }
  return "";
}

// The domain a node of an operator redefined past the library's opsets is moved to for the
// checker, which checks a node of a domain without schemas for its form only.
constexpr const char* kRedefinedDomain = "loam.redefined";

void restate_nodes_past_library(onnx::GraphProto& g, int64_t opset) {
  for (auto& n : *g.mutable_node()) {
    if ((n.domain().empty() || n.domain() == "ai.onnx") && redefined_past_library(n.op_type(), opset)) n.set_domain(kRedefinedDomain);
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) restate_nodes_past_library(*a.mutable_g(), opset);
      for (auto& sub : *a.mutable_graphs()) restate_nodes_past_library(sub, opset);
    }
  }
}

// A model of a default-domain opset past the library's, as the library's checker can read it.
void restate_past_library(onnx::ModelProto& model, int64_t opset, int library) {
  for (auto& o : *model.mutable_opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") o.set_version(library);
  auto* own = model.add_opset_import();
  own->set_domain(kRedefinedDomain);
  own->set_version(1);
  restate_nodes_past_library(*model.mutable_graph(), opset);
}

}  // namespace

void check_with_onnx_checker(const onnx::ModelProto& model, const Model& read, const std::string& origin) {
  // A default-domain opset past the library's schemas (opset 18's ReduceMean takes axes as an
  // input, 17's does not) is checked as the newest the library knows, each node of an operator ONNX
  // redefined since moved to a domain of its own, which the checker passes over (the schema check
  // has read it against its own version). The rest of the checker's rules (names, value infos,
  // attributes' well-formedness, subgraphs) hold for every node.
  const int library = library_opset();
  int64_t opset = 0;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  // An IR version past the library's changes no rule the checker states (later versions add
  // element types and fields, which Loam's reader refuses or reads itself): check it as the newest
  // the library knows. An initializer with no data is a weight the checkpoint supplies (Loam's
  // split form), which the checker would refuse as a tensor without values: it is checked as the
  // graph input it stands for.
  // The weights a checkpoint supplies are those the conversion read without data.
  const auto valueless = [&](const onnx::TensorProto& t) {
    const TensorData* w = read.graph.initializer(t.name());
    return w && !w->has_data;
  };
  bool weights_elsewhere = false;
  for (const auto& t : read.graph.initializers) weights_elsewhere = weights_elsewhere || !t.has_data;
  const onnx::ModelProto* checked = &model;
  onnx::ModelProto restated;
  if (model.ir_version() > onnx::Version::IR_VERSION || weights_elsewhere || opset > library) {
    restated = model;
    if (restated.ir_version() > onnx::Version::IR_VERSION) restated.set_ir_version(onnx::Version::IR_VERSION);
    if (opset > library) restate_past_library(restated, opset, library);
    auto* g = restated.mutable_graph();
    google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
    for (auto& t : *g->mutable_initializer()) {
      if (!valueless(t)) {
        *kept.Add() = std::move(t);
        continue;
      }
      bool listed = false;
      for (const auto& in : g->input()) listed = listed || in.name() == t.name();
      if (listed) continue;
      onnx::ValueInfoProto* in = g->add_input();
      in->set_name(t.name());
      auto* type = in->mutable_type()->mutable_tensor_type();
      type->set_elem_type(t.data_type());
      auto* shape = type->mutable_shape();
      for (const auto d : t.dims()) shape->add_dim()->set_dim_value(d);
    }
    g->mutable_initializer()->Swap(&kept);
    checked = &restated;
  }
  try {
    onnx::checker::check_model(*checked);
  } catch (const std::exception& e) {
    const std::string where = locate(*checked, read);
    if (where.empty()) fail(origin + ": ONNX's checker refuses the model: " + one_line(e.what()));
    fail(origin + ": " + where + ": ONNX's checker refuses it: " + without_context(e.what()));
  }
}

}  // namespace loam
