#include "axes/architecture.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "axes/layout.hpp"
#include "axes/naming.hpp"
#include "support/error.hpp"

namespace loam::axes {

namespace {

// Each table's layout is written as an options file's `layout` is, and read by the same reader, so
// a rule here obeys every rule a user's does. Parameter rules name the checkpoint's orientation
// (a Linear weight is [out, in]); `*` before a name lets one rule reach it under any prefix.
struct TableText {
  const char* name;
  const char* layout_json;
  std::vector<const char*> forms;  // each form's own rules, ahead of the common ones
  std::vector<std::string> prefixes;
  std::vector<std::pair<std::string, std::string>> ties;
};

// BERT as transformers' BertModel is exported (optimum, torch.onnx.export): a hidden axis, heads
// that split it, the feed-forward's inner axis. A query, key or value projection writes
// (Heads HeadDim), so the Reshape that splits heads off names them from their parts.
const char* const kBert = R"json({"layout": [
  {"pattern": "input_ids", "axes": ["Batch", "Seq"]},
  {"pattern": "attention_mask", "axes": ["Batch", "Seq"]},
  {"pattern": "token_type_ids", "axes": ["Batch", "Seq"]},
  {"pattern": "position_ids", "axes": ["Batch", "Seq"]},
  {"pattern": "*embeddings.word_embeddings.weight", "axes": ["Vocab", "Hidden"]},
  {"pattern": "*embeddings.position_embeddings.weight", "axes": ["Positions", "Hidden"]},
  {"pattern": "*embeddings.token_type_embeddings.weight", "axes": ["TokenTypes", "Hidden"]},
  {"pattern": "*embeddings.position_ids", "axes": ["One", "Positions"]},
  {"pattern": "*embeddings.token_type_ids", "axes": ["One", "Positions"]},
  {"pattern": "*LayerNorm.*", "axes": ["Hidden"]},
  {"pattern": "*.attention.self.*.weight", "axes": ["(Heads HeadDim)", "Hidden"]},
  {"pattern": "*.attention.self.*.bias", "axes": ["(Heads HeadDim)"]},
  {"pattern": "*.attention.output.dense.weight", "axes": ["Hidden", "(Heads HeadDim)"]},
  {"pattern": "*.attention.output.dense.bias", "axes": ["Hidden"]},
  {"pattern": "*.intermediate.dense.weight", "axes": ["Inner", "Hidden"]},
  {"pattern": "*.intermediate.dense.bias", "axes": ["Inner"]},
  {"pattern": "*.output.dense.weight", "axes": ["Hidden", "Inner"]},
  {"pattern": "*.output.dense.bias", "axes": ["Hidden"]},
  {"pattern": "*pooler.dense.weight", "axes": ["Pooled", "Hidden"]},
  {"pattern": "*pooler.dense.bias", "axes": ["Pooled"]}
]})json";

// GPT-2 as transformers' GPT2LMHeadModel is exported. Its Conv1D stores [in, out], as the graph
// reads it; c_attn writes the query, key and value side by side (QKV), which a Split takes apart
// and Reshapes split into heads: the heads are named where the attention's output meets c_proj.
const char* const kGpt2 = R"json({"layout": [
  {"pattern": "input_ids", "axes": ["Batch", "Seq"]},
  {"pattern": "attention_mask", "axes": ["Batch", "Seq"]},
  {"pattern": "position_ids", "axes": ["Batch", "Seq"]},
  {"pattern": "*wte.weight", "axes": ["Vocab", "Hidden"]},
  {"pattern": "*wpe.weight", "axes": ["Positions", "Hidden"]},
  {"pattern": "*ln_*.weight", "axes": ["Hidden"]},
  {"pattern": "*ln_*.bias", "axes": ["Hidden"]},
  {"pattern": "*.attn.c_attn.weight", "axes": ["Hidden", "QKV"]},
  {"pattern": "*.attn.c_attn.bias", "axes": ["QKV"]},
  {"pattern": "*.attn.c_proj.weight", "axes": ["(Heads HeadDim)", "Hidden"]},
  {"pattern": "*.attn.c_proj.bias", "axes": ["Hidden"]},
  {"pattern": "*.mlp.c_fc.weight", "axes": ["Hidden", "Inner"]},
  {"pattern": "*.mlp.c_fc.bias", "axes": ["Inner"]},
  {"pattern": "*.mlp.c_proj.weight", "axes": ["Inner", "Hidden"]},
  {"pattern": "*.mlp.c_proj.bias", "axes": ["Hidden"]},
  {"pattern": "lm_head.weight", "axes": ["Vocab", "Hidden"]}
]})json";

// Llama as transformers' LlamaForCausalLM is exported: rotary attention, a gated feed-forward. Two
// forms of attention: grouped-query (Llama 3's, Mistral's: KvHeads heads of keys and values, each
// repeated for Groups query heads), and as many key and value heads as query heads (Llama 2 7B's).
const char* const kLlamaGrouped = R"json({"layout": [
  {"pattern": "*.self_attn.q_proj.weight", "axes": ["(KvHeads Groups HeadDim)", "Hidden"]},
  {"pattern": "*.self_attn.k_proj.weight", "axes": ["(KvHeads HeadDim)", "Hidden"]},
  {"pattern": "*.self_attn.v_proj.weight", "axes": ["(KvHeads HeadDim)", "Hidden"]},
  {"pattern": "*.self_attn.o_proj.weight", "axes": ["Hidden", "(KvHeads Groups HeadDim)"]}
]})json";
const char* const kLlamaPerHead = R"json({"layout": [
  {"pattern": "*.self_attn.q_proj.weight", "axes": ["(Heads HeadDim)", "Hidden"]},
  {"pattern": "*.self_attn.k_proj.weight", "axes": ["(Heads HeadDim)", "Hidden"]},
  {"pattern": "*.self_attn.v_proj.weight", "axes": ["(Heads HeadDim)", "Hidden"]},
  {"pattern": "*.self_attn.o_proj.weight", "axes": ["Hidden", "(Heads HeadDim)"]}
]})json";
const char* const kLlama = R"json({"layout": [
  {"pattern": "input_ids", "axes": ["Batch", "Seq"]},
  {"pattern": "attention_mask", "axes": ["Batch", "Seq"]},
  {"pattern": "position_ids", "axes": ["Batch", "Seq"]},
  {"pattern": "*embed_tokens.weight", "axes": ["Vocab", "Hidden"]},
  {"pattern": "*norm.weight", "axes": ["Hidden"]},
  {"pattern": "*.mlp.gate_proj.weight", "axes": ["Inner", "Hidden"]},
  {"pattern": "*.mlp.up_proj.weight", "axes": ["Inner", "Hidden"]},
  {"pattern": "*.mlp.down_proj.weight", "axes": ["Hidden", "Inner"]},
  {"pattern": "lm_head.weight", "axes": ["Vocab", "Hidden"]}
]})json";

const std::vector<TableText>& tables() {
  static const std::vector<TableText> t = {
      {"bert", kBert, {}, {"bert."}, {{"cls.predictions.decoder.weight", "embeddings.word_embeddings.weight"}}},
      {"gpt2", kGpt2, {}, {"transformer."}, {{"lm_head.weight", "wte.weight"}}},
      {"llama", kLlama, {kLlamaGrouped, kLlamaPerHead}, {}, {{"lm_head.weight", "model.embed_tokens.weight"}}},
  };
  return t;
}

// `/encoder/layer.0/attention/self/query/MatMul` -> `encoder.layer.0.attention.self.query`; empty
// where the node's name carries no module path.
std::string module_path(const std::string& node_name) {
  if (node_name.size() < 2 || node_name[0] != '/') return {};
  auto last = node_name.rfind('/');
  if (last == 0) return {};
  std::string path = node_name.substr(1, last - 1);
  std::replace(path.begin(), path.end(), '/', '.');
  return path;
}

}  // namespace

const Architecture& find_architecture(std::string_view name, const std::string& origin) {
  static const std::vector<Architecture> built = [] {
    std::vector<Architecture> out;
    for (const auto& t : tables()) {
      Architecture a;
      a.name = t.name;
      const std::string origin = std::string("architecture table '") + t.name + "'";
      const auto common = parse_options(t.layout_json, origin).layout;
      for (const char* form : t.forms) {
        auto rules = parse_options(form, origin).layout;
        rules.insert(rules.end(), common.begin(), common.end());
        a.forms.push_back(std::move(rules));
      }
      if (a.forms.empty()) a.forms.push_back(common);
      a.prefixes = t.prefixes;
      a.ties = t.ties;
      out.push_back(std::move(a));
    }
    return out;
  }();
  std::string known;
  for (const auto& a : built) {
    if (a.name == name) return a;
    known += (known.empty() ? "" : ", ") + a.name;
  }
  fail(origin + ": architecture '" + std::string(name) + "': Loam has no table of that name (it has " + known + ")");
}

std::map<std::string, ParameterName> parameter_names(const Graph& graph) {
  std::map<std::string, ParameterName> out;
  std::map<std::string, std::set<std::pair<std::string, bool>>> read_as;
  std::set<std::string> made;
  for (const auto& t : graph.initializers)
    if (t.name.rfind("onnx::", 0) == 0) made.insert(t.name);
  for (const auto& n : graph.nodes) {
    if (!n.domain.empty()) continue;
    const std::string path = module_path(n.name);
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      if (!made.count(n.inputs[i])) continue;
      std::optional<std::pair<std::string, bool>> as;
      if (!path.empty() && n.op_type == "MatMul" && i == 1) as = {{path + ".weight", true}};
      if (!path.empty() && n.op_type == "Gemm" && i == 1) {
        const Attribute* tb = n.attr("transB");
        as = {{path + ".weight", !(tb && tb->kind == Attribute::Kind::Int && tb->i == 1)}};
      }
      if (!path.empty() && n.op_type == "Gemm" && i == 2) as = {{path + ".bias", false}};
      // A reader that says nothing of what it reads leaves the name its own.
      read_as[n.inputs[i]].insert(as ? *as : std::pair<std::string, bool>{n.inputs[i], false});
    }
  }
  for (const auto& t : graph.initializers) {
    auto it = read_as.find(t.name);
    if (it != read_as.end() && it->second.size() == 1) {
      const auto& [name, transposed] = *it->second.begin();
      out[t.name] = {name, transposed && t.dims.size() == 2};
    } else {
      out[t.name] = {t.name, false};
    }
  }
  return out;
}

std::vector<LayoutRule> architecture_layout(const Model& model, const std::vector<LayoutRule>& table) {
  std::vector<LayoutRule> out;
  for (const auto& [stored, parameter] : parameter_names(model.graph)) {
    if (parameter.name == stored) continue;
    const LayoutRule* rule = match_layout(table, parameter.name, model.graph.name);
    if (!rule) continue;
    LayoutRule exact;
    exact.pattern = exact_pattern(stored);
    exact.axes = rule->axes;
    if (parameter.transposed) std::reverse(exact.axes.begin(), exact.axes.end());
    out.push_back(std::move(exact));
  }
  out.insert(out.end(), table.begin(), table.end());
  return out;
}

std::vector<LayoutRule> effective_layout(const Model& model, const stage0::Stage0Result& analysed, const Options& options,
                                         const std::string& origin) {
  if (!options.architecture) return options.layout;
  const Architecture& architecture = find_architecture(*options.architecture, origin);
  auto completed = [&](const std::vector<LayoutRule>& form) {
    std::vector<LayoutRule> out = options.layout;
    auto table = architecture_layout(model, form);
    out.insert(out.end(), table.begin(), table.end());
    return complete_layout(model, analysed, out, origin);
  };
  if (architecture.forms.size() == 1) return completed(architecture.forms[0]);
  // The first form that names the graph without two names meeting; else the first form's refusal.
  std::optional<Error> first;
  for (const auto& form : architecture.forms) {
    try {
      auto layout = completed(form);
      name_axes(model, analysed, layout, origin);
      return layout;
    } catch (const Error& e) {
      if (!first) first = e;
    }
  }
  throw *first;
}

}  // namespace loam::axes
