// Vectors: register lane grids. They carry no storage and no layout; vector.load and
// vector.store move lanes to and from consecutive elements of a view's last dimension, masked
// forms touch only the lanes a mask sets (a loop's tail), and splat, extract, insert and
// create_mask build and take apart lane values.
#include "loom/ops_common.hpp"
#include "support/error.hpp"

namespace loam::loom {

namespace {

using namespace detail;
namespace c = constraint;

std::size_t lanes_of(const Type& t) { return t.dims().empty() ? 0 : static_cast<std::size_t>(t.dims()[0].size); }

// The lanes of a vector value the interpreter holds; a dynamic width was bound when it was made.
RtValue vector_of(std::vector<std::uint64_t> lanes) {
  RtValue v;
  v.kind = RtValue::Kind::Vector;
  v.lanes = std::move(lanes);
  return v;
}

std::size_t runtime_lanes(const Frame& fr, const Type& t) {
  const Extent& e = t.dims()[0];
  return static_cast<std::size_t>(e.dynamic() ? fr.index(e.value) : e.size);
}

void require_one_dimension(const Op& op, OpVerifier& v, const Value* x) {
  if (x->type.rank() != 1) v.fail(op, ref(x) + " is " + print_type(x->type) + "; vector memory operations move one dimension of lanes");
}

// A vector access reads lanes along a view's last dimension, which must then be contiguous.
void require_contiguous(const Op& op, OpVerifier& v, const Value* view, std::string_view verb = "reads") {
  const Type& t = view->type;
  if (t.rank() == 0) v.fail(op, ref(view) + " has no dimension to read lanes along");
  if (const auto& layout = t.attachment().layout) {
    const Extent& s = layout->strides.back();
    if (s.dynamic() || s.size != scalar_bytes(t.element()))
      v.fail(op, std::string(verb) + " lanes along the last dimension of " + ref(view) + ", whose layout does not keep its elements adjacent (stride " +
                     print_extent(s) + ", element " + std::to_string(scalar_bytes(t.element())) + " bytes)");
  }
}

void require_element(const Op& op, OpVerifier& v, const Value* vec, const Value* view) {
  if (vec->type.element() != view->type.element())
    v.fail(op, ref(vec) + " has " + std::string(scalar_name(vec->type.element())) + " lanes, but " + ref(view) + " holds " +
                   std::string(scalar_name(view->type.element())));
}

std::vector<std::uint64_t> read_lanes(Frame& fr, const Op& op, const RtValue& view, const std::vector<Value*>& idx, std::size_t n,
                                      Scalar element, const std::vector<std::uint64_t>* mask, const RtValue* passthru) {
  const std::uint64_t at = view_offset(fr, op, view, idx, static_cast<int>(n), mask);
  const std::uint64_t step = view.strides.back();
  std::vector<std::uint64_t> lanes(n);
  for (std::size_t l = 0; l < n; ++l) {
    if (mask && !(*mask)[l]) lanes[l] = passthru->lanes[l];
    else lanes[l] = read_scalar(*view.storage, at + l * step, element);
  }
  return lanes;
}

void add_splat(OpTable& t) {
  OpDef d;
  d.name = "vector.splat";
  d.summary = "a vector with every lane set to one scalar";
  d.operands = {{"input", c::scalar_value}};
  d.results = {{"result", c::vector}};
  d.format = "$input : type(result)";
  d.traits = kPure;
  d.verify = [](const Op& op, OpVerifier& v) {
    if (!op.operands[0]->type.is_scalar(op.result()->type.element()))
      v.fail(op, ref(op.operands[0]) + " is " + print_type(op.operands[0]->type) + ", but the lanes of " + print_type(op.result()->type) +
                     " are " + std::string(scalar_name(op.result()->type.element())));
  };
  d.eval = [](const Op& op, Frame& fr) {
    fr.set(op.result(), vector_of(std::vector<std::uint64_t>(runtime_lanes(fr, op.result()->type), fr.bits(op.operands[0]))));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    std::string x = e.use(op.operands[0]);
    if (op.operands[0]->type.is_scalar(Scalar::I1)) x = "std::int32_t(" + x + " ? -1 : 0)";
    e.define(op.result(), e.rt() + "splat_lanes<" + e.cpp_type(op.result()->type) + ">(" + x + ")");
  };
  t.add(std::move(d));
}

void add_load_store(OpTable& t) {
  OpDef load;
  load.name = "vector.load";
  load.summary = "reads consecutive elements along a view's last dimension into lanes";
  load.operands = {{"view", c::view}, {"indices", c::index, true}};
  load.results = {{"result", c::vector}};
  load.format = "$view[$indices] : type(view) -> type(result)";
  load.verify = [](const Op& op, OpVerifier& v) {
    require_contiguous(op, v, op.operands[0]);
    require_one_dimension(op, v, op.result());
    require_element(op, v, op.result(), op.operands[0]);
    check_indices(op, v, op.operands[0], op.operands.size() - 1);
  };
  load.eval = [](const Op& op, Frame& fr) {
    const std::size_t n = runtime_lanes(fr, op.result()->type);
    fr.set(op.result(), vector_of(read_lanes(fr, op, fr.get(op.operands[0]), op.operand_group("indices"), n,
                                             op.result()->type.element(), nullptr, nullptr)));
  };
  load.emit = [](const Op& op, CppEmitter& e) {
    const CppAddress a = view_address(e, op, op.operands[0], op.operand_group("indices"), static_cast<int>(lanes_of(op.result()->type)), false);
    e.define(op.result(), load_expr(e, op.result()->type, a.pointer()));
  };
  t.add(std::move(load));

  OpDef store;
  store.name = "vector.store";
  store.summary = "writes lanes to consecutive elements along a view's last dimension";
  store.operands = {{"value", c::vector}, {"view", c::view}, {"indices", c::index, true}};
  store.format = "$value, $view[$indices] : type(value), type(view)";
  store.verify = [](const Op& op, OpVerifier& v) {
    require_contiguous(op, v, op.operands[1], "writes");
    require_one_dimension(op, v, op.operands[0]);
    require_element(op, v, op.operands[0], op.operands[1]);
    check_indices(op, v, op.operands[1], op.operands.size() - 2);
  };
  store.eval = [](const Op& op, Frame& fr) {
    const RtValue& value = fr.get(op.operands[0]);
    const RtValue& view = fr.get(op.operands[1]);
    const std::uint64_t at = view_offset(fr, op, view, op.operand_group("indices"), static_cast<int>(value.lanes.size()));
    for (std::size_t l = 0; l < value.lanes.size(); ++l)
      write_scalar(*view.storage, at + l * view.strides.back(), op.operands[0]->type.element(), value.lanes[l]);
  };
  store.emit = [](const Op& op, CppEmitter& e) {
    const CppAddress a = view_address(e, op, op.operands[1], op.operand_group("indices"), static_cast<int>(lanes_of(op.operands[0]->type)), false);
    e.line(store_stmt(e, op.operands[0]->type, a.pointer(), e.use(op.operands[0])));
  };
  t.add(std::move(store));
}

void add_masked(OpTable& t) {
  OpDef load;
  load.name = "vector.load.masked";
  load.summary = "reads the lanes a mask sets; the others take the pass-through lanes and touch no memory";
  load.operands = {{"view", c::view}, {"indices", c::index, true}, {"mask", c::vector_mask}, {"passthru", c::vector}};
  load.results = {{"result", c::vector}};
  load.format = "$view[$indices], $mask, $passthru : type(view), type(mask), type(passthru, result)";
  load.verify = [](const Op& op, OpVerifier& v) {
    const Value* view = op.operands[0];
    const Value* mask = op.operand("mask");
    require_contiguous(op, v, view);
    require_one_dimension(op, v, op.result());
    require_element(op, v, op.result(), view);
    if (mask->type.dims() != op.result()->type.dims())
      v.fail(op, "the mask " + ref(mask) + " is " + print_type(mask->type) + ", but the result is " + print_type(op.result()->type));
    check_indices(op, v, view, op.operand_group("indices").size());
  };
  load.eval = [](const Op& op, Frame& fr) {
    const RtValue& mask = fr.get(op.operand("mask"));
    const RtValue& pass = fr.get(op.operand("passthru"));
    fr.set(op.result(), vector_of(read_lanes(fr, op, fr.get(op.operands[0]), op.operand_group("indices"), mask.lanes.size(),
                                             op.result()->type.element(), &mask.lanes, &pass)));
  };
  load.emit = [](const Op& op, CppEmitter& e) {
    const auto idx = op.operand_group("indices");
    const int n = static_cast<int>(lanes_of(op.result()->type));
    const CppAddress a = view_address(e, op, op.operands[0], idx, n, true);
    const CppMemory& m = e.memory(op, op.operands[0]);
    const std::string mask = e.use(op.operand("mask"));
    e.check(op, e.rt() + "masked_lanes_fit(" + e.use(idx.back()) + ", " + m.dims.back() + ", " + mask + ")",
            "a set lane of " + ref(op.operand("mask")) + " at " + ref(idx.back()) + " reaches outside " + ref(op.operands[0]));
    const Type& rt = op.result()->type;
    if (!narrow_round_function(rt.element()).empty() || rt.element() == Scalar::I1)
      e.refuse(op, "the C++ emitter does not yet load masked lanes of " + std::string(scalar_name(rt.element())));
    e.define(op.result(), e.rt() + "masked_load<" + e.cpp_type(rt) + ">(" + a.data + ", " + a.offset + ", " + mask + ", " +
                              e.use(op.operand("passthru")) + ")");
  };
  t.add(std::move(load));

  OpDef store;
  store.name = "vector.store.masked";
  store.summary = "writes the lanes a mask sets and touches no other memory";
  store.operands = {{"value", c::vector}, {"view", c::view}, {"indices", c::index, true}, {"mask", c::vector_mask}};
  store.format = "$value, $view[$indices], $mask : type(value), type(view), type(mask)";
  store.verify = [](const Op& op, OpVerifier& v) {
    const Value* view = op.operands[1];
    const Value* mask = op.operand("mask");
    require_contiguous(op, v, view, "writes");
    require_one_dimension(op, v, op.operands[0]);
    require_element(op, v, op.operands[0], view);
    if (mask->type.dims() != op.operands[0]->type.dims())
      v.fail(op, "the mask " + ref(mask) + " is " + print_type(mask->type) + ", but the value is " + print_type(op.operands[0]->type));
    check_indices(op, v, view, op.operand_group("indices").size());
  };
  store.eval = [](const Op& op, Frame& fr) {
    const RtValue& value = fr.get(op.operands[0]);
    const RtValue& view = fr.get(op.operands[1]);
    const RtValue& mask = fr.get(op.operand("mask"));
    const std::uint64_t at = view_offset(fr, op, view, op.operand_group("indices"), static_cast<int>(value.lanes.size()), &mask.lanes);
    for (std::size_t l = 0; l < value.lanes.size(); ++l)
      if (mask.lanes[l]) write_scalar(*view.storage, at + l * view.strides.back(), op.operands[0]->type.element(), value.lanes[l]);
  };
  store.emit = [](const Op& op, CppEmitter& e) {
    const auto idx = op.operand_group("indices");
    const int n = static_cast<int>(lanes_of(op.operands[0]->type));
    const CppAddress a = view_address(e, op, op.operands[1], idx, n, true);
    const CppMemory& m = e.memory(op, op.operands[1]);
    const std::string mask = e.use(op.operand("mask"));
    e.check(op, e.rt() + "masked_lanes_fit(" + e.use(idx.back()) + ", " + m.dims.back() + ", " + mask + ")",
            "a set lane of " + ref(op.operand("mask")) + " at " + ref(idx.back()) + " reaches outside " + ref(op.operands[1]));
    const Type& vt = op.operands[0]->type;
    if (!narrow_round_function(vt.element()).empty() || vt.element() == Scalar::I1)
      e.refuse(op, "the C++ emitter does not yet store masked lanes of " + std::string(scalar_name(vt.element())));
    e.line(e.rt() + "masked_store(" + a.data + ", " + a.offset + ", " + mask + ", " + e.use(op.operands[0]) + ");");
  };
  t.add(std::move(store));
}

void add_create_mask(OpTable& t) {
  OpDef d;
  d.name = "vector.create_mask";
  d.summary = "a mask whose lanes below count are set (count may be below 0 or above the width)";
  d.operands = {{"count", c::index}};
  d.results = {{"result", c::vector_mask}};
  d.format = "$count : type(result)";
  d.traits = kPure;
  d.eval = [](const Op& op, Frame& fr) {
    const std::int64_t n = fr.index(op.operands[0]);
    const std::size_t lanes = runtime_lanes(fr, op.result()->type);
    std::vector<std::uint64_t> m(lanes);
    for (std::size_t l = 0; l < lanes; ++l) m[l] = static_cast<std::int64_t>(l) < n ? 1 : 0;
    fr.set(op.result(), vector_of(std::move(m)));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    e.define(op.result(), e.rt() + "prefix_mask<" + e.cpp_type(op.result()->type) + ">(" + e.use(op.operands[0]) + ")");
  };
  t.add(std::move(d));
}

// A lane the verifier could not place (the width is dynamic) must lie inside the width the
// emitted vector has.
void require_lane_in(CppEmitter& e, const Op& op, const Value* v) {
  const Extent& w = v->type.dims()[0];
  const std::int64_t lane = op.attr("lane").i;
  std::optional<std::int64_t> width = w.dynamic() ? e.known_index(op, w.value) : std::optional<std::int64_t>(w.size);
  if (width && lane >= *width)
    e.refuse(op, "lane " + std::to_string(lane) + " is outside the " + std::to_string(*width) + " lanes " + ref(v) + " has");
}

void add_lane_access(OpTable& t) {
  OpDef extract;
  extract.name = "vector.extract";
  extract.summary = "one lane of a vector, by its position";
  extract.operands = {{"input", c::vector}};
  extract.results = {{"result", c::scalar_value}};
  extract.attrs = {{"lane", AttrKind::Integer, {}}};
  extract.format = "$input[$lane] : type(input)";
  extract.traits = kPure;
  extract.infer = [](Op& op) { op.result()->type = Type::scalar(op.operands[0]->type.element()); };
  extract.verify = [](const Op& op, OpVerifier& v) {
    const Extent& w = op.operands[0]->type.dims()[0];
    const std::int64_t lane = op.attr("lane").i;
    if (lane < 0 || (!w.dynamic() && lane >= w.size))
      v.fail(op, "lane " + std::to_string(lane) + " is outside " + ref(op.operands[0]) + " (" + print_type(op.operands[0]->type) + ")");
  };
  extract.eval = [](const Op& op, Frame& fr) {
    const auto& lanes = fr.get(op.operands[0]).lanes;
    const auto lane = static_cast<std::size_t>(op.attr("lane").i);
    if (lane >= lanes.size()) fr.fail(op, "lane " + std::to_string(lane) + " is outside the " + std::to_string(lanes.size()) + " lanes");
    fr.set(op.result(), RtValue::scalar(lanes[lane]));
  };
  extract.emit = [](const Op& op, CppEmitter& e) {
    require_lane_in(e, op, op.operands[0]);
    const std::string x = e.use(op.operands[0]) + "[" + std::to_string(op.attr("lane").i) + "]";
    e.define(op.result(), op.result()->type.is_scalar(Scalar::I1) ? "(" + x + " != 0)" : x);
  };
  t.add(std::move(extract));

  OpDef insert;
  insert.name = "vector.insert";
  insert.summary = "the vector with one lane replaced";
  insert.operands = {{"value", c::scalar_value}, {"input", c::vector}};
  insert.results = {{"result", c::vector}};
  insert.attrs = {{"lane", AttrKind::Integer, {}}};
  insert.format = "$value, $input[$lane] : type(input, result)";
  insert.traits = kPure;
  insert.verify = [](const Op& op, OpVerifier& v) {
    const Type& vt = op.operands[1]->type;
    if (!op.operands[0]->type.is_scalar(vt.element()))
      v.fail(op, ref(op.operands[0]) + " is " + print_type(op.operands[0]->type) + ", but the lanes are " + std::string(scalar_name(vt.element())));
    const std::int64_t lane = op.attr("lane").i;
    if (lane < 0 || (!vt.dims()[0].dynamic() && lane >= vt.dims()[0].size))
      v.fail(op, "lane " + std::to_string(lane) + " is outside " + ref(op.operands[1]) + " (" + print_type(vt) + ")");
  };
  insert.eval = [](const Op& op, Frame& fr) {
    RtValue r = fr.get(op.operands[1]);
    const auto lane = static_cast<std::size_t>(op.attr("lane").i);
    if (lane >= r.lanes.size()) fr.fail(op, "lane " + std::to_string(lane) + " is outside the " + std::to_string(r.lanes.size()) + " lanes");
    r.lanes[lane] = fr.bits(op.operands[0]);
    fr.set(op.result(), std::move(r));
  };
  insert.emit = [](const Op& op, CppEmitter& e) {
    require_lane_in(e, op, op.operands[1]);
    const std::string name = e.name_of(op.result());
    std::string x = e.use(op.operands[0]);
    if (op.operands[0]->type.is_scalar(Scalar::I1)) x = "std::int32_t(" + x + " ? -1 : 0)";
    e.line(e.cpp_type(op.result()->type) + " " + name + " = " + e.use(op.operands[1]) + ";");
    e.line(name + "[" + std::to_string(op.attr("lane").i) + "] = " + x + ";");
  };
  t.add(std::move(insert));
}

}  // namespace

void register_vector_ops(OpTable& t) {
  add_splat(t);
  add_load_store(t);
  add_masked(t);
  add_create_mask(t);
  add_lane_access(t);
}

}  // namespace loam::loom
