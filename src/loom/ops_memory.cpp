// Storage and access: buffer (opaque bytes, the root of alias facts), view (a typed coordinate
// space over a buffer, made by buffer.view and checked to fit inside it), and reads of tensor
// values, dense or block-quantised.
#include <algorithm>

#include "loom/ops_common.hpp"
#include "support/error.hpp"

namespace loam::loom {

namespace {

using namespace detail;
namespace c = constraint;

// The byte strides of a view: its layout's, or dense row-major.
std::vector<std::uint64_t> dense_strides(const std::vector<std::int64_t>& dims, std::uint64_t element) {
  std::vector<std::uint64_t> s(dims.size());
  Int stride = element;
  for (std::size_t k = dims.size(); k-- > 0;) {
    s[k] = static_cast<std::uint64_t>(stride);
    stride *= dims[k] > 0 ? dims[k] : 1;
    if (stride > kOffsetMax) stride = kOffsetMax;
  }
  return s;
}

void add_buffer_view(OpTable& t) {
  OpDef d;
  d.name = "buffer.view";
  d.summary = "a typed view over a buffer's bytes from a base offset; checked to fit inside it";
  d.operands = {{"source", c::buffer}, {"base", c::offset}};
  d.results = {{"result", c::view}};
  d.format = "$source[$base] : type(source) -> type(result)";
  d.traits = kPure;
  d.facts = [](const Op& op, FactScope& s) {
    if (s.entering() >= 0) return;
    // The view exists only if its extents were non-negative.
    for (const Extent& e : op.result()->type.dims())
      if (e.dynamic()) {
        Facts f;
        f.range = Range{0, kIndexMax};
        s.refine(e.value, f);
      }
  };
  d.eval = [](const Op& op, Frame& fr) {
    const RtValue& buf = fr.get(op.operands[0]);
    const std::uint64_t base = fr.bits(op.operands[1]);
    const Type& vt = op.result()->type;
    RtValue v;
    v.kind = RtValue::Kind::View;
    v.storage = buf.storage;
    for (const Extent& e : vt.dims()) {
      const std::int64_t n = e.dynamic() ? fr.index(e.value) : e.size;
      if (n < 0) fr.fail(op, "the extent " + print_extent(e) + " of " + ref(op.result()) + " is negative (" + std::to_string(n) + ")");
      v.dims.push_back(n);
    }
    const auto elem = static_cast<std::uint64_t>(scalar_bytes(vt.element()));
    if (vt.attachment().layout) {
      for (const Extent& e : vt.attachment().layout->strides) v.strides.push_back(e.dynamic() ? fr.bits(e.value) : static_cast<std::uint64_t>(e.size));
    } else {
      v.strides = dense_strides(v.dims, elem);
    }
    Int span = elem;
    bool empty = false;
    for (std::size_t k = 0; k < v.dims.size(); ++k) {
      if (v.dims[k] == 0) empty = true;
      else span += Int(v.dims[k] - 1) * v.strides[k];
    }
    if (empty) span = 0;
    if (Int(base) + span > Int(buf.bytes))
      fr.fail(op, ref(op.result()) + " needs bytes [" + std::to_string(base) + ", " + std::to_string(static_cast<long long>(Int(base) + span)) +
                      ") of " + ref(op.operands[0]) + ", which holds " + std::to_string(buf.bytes));
    v.base = buf.base + base;
    fr.set(op.result(), std::move(v));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const Type& vt = op.result()->type;
    const CppMemory& src = e.memory(op, op.operands[0]);
    const std::string name = e.name_of(op.result());
    const std::string elem = std::to_string(scalar_bytes(vt.element()));
    CppMemory m;
    for (const Extent& ext : vt.dims()) m.dims.push_back(ext.dynamic() ? e.use(ext.value) : std::to_string(ext.size) + "LL");
    const std::string msg = cpp_string(fail_message(e.module(), op, ref(op.result()) + " does not fit inside " + ref(op.operands[0])));
    m.strides.resize(vt.rank());
    if (vt.attachment().layout) {
      for (std::size_t k = 0; k < vt.rank(); ++k) {
        const Extent& s = vt.attachment().layout->strides[k];
        m.strides[k] = s.dynamic() ? e.use(s.value) : std::to_string(s.size) + "ULL";
      }
    } else {
      // Dense: each stride the next one times the next extent; static ones are folded here.
      std::optional<std::uint64_t> folded = std::stoull(elem);
      std::string running = elem + "ULL";
      for (std::size_t k = vt.rank(); k-- > 0;) {
        m.strides[k] = running;
        if (k == 0) break;
        const Extent& ext = vt.dims()[k];
        if (folded && !ext.dynamic() && Int(*folded) * ext.size <= kOffsetMax / 2) {
          folded = *folded * static_cast<std::uint64_t>(ext.size);
          running = std::to_string(*folded) + "ULL";
        } else {
          folded.reset();
          const std::string local = name + "_stride" + std::to_string(k - 1);
          e.line("const std::uint64_t " + local + " = " + e.rt() + "dense_stride(" + running + ", " + m.dims[k] + ", " + msg + ");");
          running = local;
        }
      }
    }
    std::string dims = "nullptr", strides = "nullptr";
    if (vt.rank() > 0) {
      dims = name + "_dims";
      strides = name + "_strides";
      std::string dl, sl;
      for (std::size_t k = 0; k < vt.rank(); ++k) {
        dl += (k ? ", " : "") + std::string("std::int64_t(") + m.dims[k] + ")";
        sl += (k ? ", " : "") + std::string("std::uint64_t(") + m.strides[k] + ")";
      }
      e.line("const std::int64_t " + dims + "[] = {" + dl + "};");
      e.line("const std::uint64_t " + strides + "[] = {" + sl + "};");
    }
    const std::string base = e.use(op.operands[1]);
    e.line(e.rt() + "check_view(" + src.bytes + ", " + base + ", " + std::to_string(vt.rank()) + ", " + dims + ", " + strides + ", " +
           elem + ", " + msg + ");");
    e.line("std::byte* const " + name + " = " + src.data + " + " + base + ";");
    m.data = name;
    m.bytes = "0";
    e.set_memory(op.result(), std::move(m));
  };
  t.add(std::move(d));
}

void add_noalias(OpTable& t) {
  OpDef d;
  d.name = "buffer.assume.noalias";
  d.summary = "the buffers again, with the caller's promise that no two of them share a byte";
  d.operands = {{"buffers", c::buffer, true}};
  d.results = {{"results", c::buffer, true}};
  d.format = "$buffers : types(buffers)";
  d.traits = kPure;
  d.infer = [](Op& op) {
    for (auto& r : op.results) r->type = Type::buffer();
  };
  d.verify = [](const Op& op, OpVerifier& v) {
    if (op.operands.size() < 2) v.fail(op, "promises that buffers do not overlap, so it takes two or more, not only " + ref(op.operands[0]));
    if (op.results.size() != op.operands.size())
      v.fail(op, "gives one result per buffer: " + std::to_string(op.operands.size()) + ", not " + std::to_string(op.results.size()));
  };
  d.facts = [](const Op& op, FactScope& s) {
    for (std::size_t i = 0; i < op.results.size() && i < op.operands.size(); ++i) {
      Facts f = s.of(op.operands[i]);
      f.noalias_group = &op;
      s.set(op.result(static_cast<unsigned>(i)), f);
    }
  };
  d.eval = [](const Op& op, Frame& fr) {
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      const RtValue& a = fr.get(op.operands[i]);
      for (std::size_t j = 0; j < i; ++j) {
        const RtValue& b = fr.get(op.operands[j]);
        if (a.storage == b.storage && a.bytes > 0 && b.bytes > 0 && a.base < b.base + b.bytes && b.base < a.base + a.bytes)
          fr.fail(op, "the promise does not hold: " + ref(op.operands[j]) + " and " + ref(op.operands[i]) + " share bytes");
      }
      fr.set(op.result(static_cast<unsigned>(i)), a);
    }
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    // The promise reaches the host compiler as __restrict on the kernel's parameters; it is checked
    // where promises are (LOOM_CHECK_ASSUMES).
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      const CppMemory& a = e.memory(op, op.operands[i]);
      for (std::size_t j = 0; j < i; ++j) {
        const CppMemory& b = e.memory(op, op.operands[j]);
        e.line(e.rt() + "assume(" + e.rt() + "disjoint(" + b.data + ", " + b.bytes + ", " + a.data + ", " + a.bytes + "), " +
               cpp_string(fail_message(e.module(), op, "the promise does not hold: " + ref(op.operands[j]) + " and " + ref(op.operands[i]) +
                                                           " share bytes")) + ");");
      }
      e.set_memory(op.result(static_cast<unsigned>(i)), a);
    }
  };
  t.add(std::move(d));
}

void add_align(OpTable& t) {
  OpDef d;
  d.name = "buffer.assume.align";
  d.summary = "the buffer again, with the caller's promise that its first byte's address is a multiple of align";
  d.operands = {{"source", c::buffer}};
  d.results = {{"result", c::buffer}};
  d.attrs = {{"align", AttrKind::Integer, {}}};
  d.format = "$source, $align : type(source, result)";
  d.traits = kPure;
  d.verify = [](const Op& op, OpVerifier& v) {
    const std::int64_t a = op.attr("align").i;
    if (a <= 0 || (a & (a - 1)) != 0) v.fail(op, "the alignment " + std::to_string(a) + " promised of " + ref(op.operands[0]) + " is not a power of two");
  };
  d.facts = [](const Op& op, FactScope& s) {
    Facts f = s.of(op.operands[0]);
    f.base_align = std::max(f.base_align, op.attr("align").i);
    s.set(op.result(), f);
  };
  d.eval = [](const Op& op, Frame& fr) {
    const RtValue& b = fr.get(op.operands[0]);
    const auto address = reinterpret_cast<std::uintptr_t>(b.storage->bytes.data() + b.base);
    if (address % static_cast<std::uint64_t>(op.attr("align").i) != 0)
      fr.fail(op, "the promise does not hold: " + ref(op.operands[0]) + " is not aligned to " + std::to_string(op.attr("align").i));
    fr.set(op.result(), b);
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    CppMemory m = e.memory(op, op.operands[0]);
    const std::string name = e.name_of(op.result());
    const std::string align = std::to_string(op.attr("align").i);
    e.line(e.rt() + "assume((reinterpret_cast<std::uintptr_t>(" + m.data + ") & " + std::to_string(op.attr("align").i - 1) + "u) == 0, " +
           cpp_string(fail_message(e.module(), op, "a promise on " + ref(op.operands[0]) + " does not hold")) + ");");
    e.line("std::byte* const " + name + " = static_cast<std::byte*>(__builtin_assume_aligned(" + m.data + ", " + align + "));");
    m.data = name;
    e.set_memory(op.result(), std::move(m));
  };
  t.add(std::move(d));
}

void add_view_access(OpTable& t) {
  OpDef load;
  load.name = "view.load";
  load.summary = "reads one element of a view at logical coordinates";
  load.operands = {{"view", c::view}, {"indices", c::index, true}};
  load.results = {{"result", c::storable}};
  load.format = "$view[$indices] : type(view) -> type(result)";
  load.verify = [](const Op& op, OpVerifier& v) {
    check_indices(op, v, op.operands[0], op.operands.size() - 1);
    if (!op.result()->type.is_scalar(op.operands[0]->type.element()))
      v.fail(op, "reads " + std::string(scalar_name(op.operands[0]->type.element())) + " from " + ref(op.operands[0]) + ", not " +
                     print_type(op.result()->type));
  };
  load.eval = [](const Op& op, Frame& fr) {
    const RtValue& view = fr.get(op.operands[0]);
    const std::uint64_t at = view_offset(fr, op, view, op.operand_group("indices"), 0);
    fr.set(op.result(), RtValue::scalar(read_scalar(*view.storage, at, op.result()->type.element())));
  };
  load.emit = [](const Op& op, CppEmitter& e) {
    const CppAddress a = view_address(e, op, op.operands[0], op.operand_group("indices"), 0, false);
    e.define(op.result(), load_expr(e, op.result()->type, a.pointer()));
  };
  t.add(std::move(load));

  OpDef store;
  store.name = "view.store";
  store.summary = "writes one element of a view at logical coordinates";
  store.operands = {{"value", c::storable}, {"view", c::view}, {"indices", c::index, true}};
  store.format = "$value, $view[$indices] : type(value), type(view)";
  store.verify = [](const Op& op, OpVerifier& v) {
    check_indices(op, v, op.operands[1], op.operands.size() - 2);
    if (!op.operands[0]->type.is_scalar(op.operands[1]->type.element()))
      v.fail(op, ref(op.operands[1]) + " holds " + std::string(scalar_name(op.operands[1]->type.element())) + ", not " +
                     print_type(op.operands[0]->type) + " as " + ref(op.operands[0]) + " is");
  };
  store.eval = [](const Op& op, Frame& fr) {
    const RtValue& view = fr.get(op.operands[1]);
    const std::uint64_t at = view_offset(fr, op, view, op.operand_group("indices"), 0);
    write_scalar(*view.storage, at, op.operands[0]->type.element(), fr.bits(op.operands[0]));
  };
  store.emit = [](const Op& op, CppEmitter& e) {
    const CppAddress a = view_address(e, op, op.operands[1], op.operand_group("indices"), 0, false);
    e.line(store_stmt(e, op.operands[0]->type, a.pointer(), e.use(op.operands[0])));
  };
  t.add(std::move(store));
}

// ---- tensors

// Where element `indices` of a tensor lies: its byte in storage, and for 4-bit codes which nibble.
struct TensorPlace {
  std::uint64_t byte = 0;
  std::uint64_t scale_byte = 0;
  bool high_nibble = false;
};

TensorPlace tensor_place(const Type& t, const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& at) {
  TensorPlace p;
  Int linear = 0;
  if (!t.attachment().encoding) {
    for (std::size_t k = 0; k < dims.size(); ++k) linear = linear * dims[k] + at[k];
    p.byte = static_cast<std::uint64_t>(linear * scalar_bytes(t.element()));
    return p;
  }
  const BlockQuant& q = *t.attachment().encoding;
  const std::int64_t last = dims.back() / q.block;
  for (std::size_t k = 0; k + 1 < dims.size(); ++k) linear = linear * dims[k] + at[k];
  const std::int64_t j = at.back();
  linear = linear * last + j / q.block;
  const std::int64_t within = j % q.block;
  p.scale_byte = static_cast<std::uint64_t>(linear * q.block_bytes());
  const std::uint64_t codes = p.scale_byte + static_cast<std::uint64_t>(scalar_bytes(q.scale));
  if (q.bits == 8) {
    p.byte = codes + static_cast<std::uint64_t>(within);
  } else {
    p.byte = codes + static_cast<std::uint64_t>(within % (q.block / 2));
    p.high_nibble = within >= q.block / 2;
  }
  return p;
}

std::vector<std::int64_t> tensor_indices(Frame& fr, const Op& op, const RtValue& tv) {
  std::vector<std::int64_t> at;
  const auto idx = op.operand_group("indices");
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const std::int64_t i = fr.index(idx[k]);
    if (i < 0 || i >= tv.dims[k])
      fr.fail(op, ref(idx[k]) + " = " + std::to_string(i) + " lies outside dimension " + std::to_string(k) + " (extent " +
                      std::to_string(tv.dims[k]) + ")");
    at.push_back(i);
  }
  return at;
}

// Each coordinate inside its extent, checked where the facts do not prove it.
void check_tensor_indices(CppEmitter& e, const Op& op, const CppMemory& m, const std::vector<Value*>& idx) {
  const Type& tt = op.operands[0]->type;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const Extent& d = tt.dims()[k];
    if (!e.facts().proves_below(&op, idx[k], d.dynamic() ? d.value : nullptr, d.size))
      e.check(op, "std::uint64_t(" + e.use(idx[k]) + ") < std::uint64_t(" + m.dims[k] + ")",
              ref(idx[k]) + " lies outside dimension " + std::to_string(k) + " of " + ref(op.operands[0]));
  }
}

// The row-major position of an element's leading coordinates (all but the last), as C++.
std::string leading_rows(CppEmitter& e, const CppMemory& m, const std::vector<Value*>& idx) {
  std::string linear;
  for (std::size_t k = 0; k + 1 < idx.size(); ++k)
    linear = k == 0 ? "std::uint64_t(" + e.use(idx[0]) + ")"
                    : "(" + linear + ") * std::uint64_t(" + m.dims[k] + ") + std::uint64_t(" + e.use(idx[k]) + ")";
  return linear;
}

// The same tensor under a type whose extents are bound to other values (a branch's result, whose
// length the branch run decides): the extents must agree when it runs, which eval checks.
void add_tensor_cast(OpTable& t) {
  OpDef d;
  d.name = "tensor.cast";
  d.summary = "a tensor under another type of its rank and element, whose extents equal its own when it runs";
  d.operands = {{"tensor", c::tensor}};
  d.results = {{"result", c::tensor}};
  d.format = "$tensor : type(tensor) -> type(result)";
  d.traits = kPure;
  d.verify = [](const Op& op, OpVerifier& v) {
    const Type& from = op.operands[0]->type;
    const Type& to = op.result()->type;
    if (from.element() != to.element() || from.rank() != to.rank() || !(from.attachment() == to.attachment()))
      v.fail(op, "casts " + print_type(from) + " to " + print_type(to) + ": only the extents may differ");
    for (std::size_t i = 0; i < from.rank(); ++i)
      if (!from.dims()[i].dynamic() && !to.dims()[i].dynamic() && from.dims()[i].size != to.dims()[i].size)
        v.fail(op, "casts " + print_type(from) + " to " + print_type(to) + ", whose extent " + std::to_string(i) + " differs");
  };
  d.eval = [](const Op& op, Frame& fr) {
    const RtValue& x = fr.get(op.operands[0]);
    const Type& to = op.result()->type;
    for (std::size_t i = 0; i < to.rank(); ++i) {
      const Extent& e = to.dims()[i];
      const std::int64_t want = e.dynamic() ? static_cast<std::int64_t>(fr.get(e.value).bits) : e.size;
      if (want != x.dims.at(i))
        fr.fail(op, ref(op.operands[0]) + " has extent " + std::to_string(x.dims[i]) + " along dimension " + std::to_string(i) + ", not " +
                        std::to_string(want));
    }
    fr.set(op.result(), x);
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    e.refuse(op, "the C++ emitter passes tensors between functions, and casts none inside one");
  };
  t.add(std::move(d));
}

void add_tensor_reads(OpTable& t) {
  OpDef extract;
  extract.name = "tensor.extract";
  extract.summary = "one logical element of a tensor (of an encoded one, its signed code)";
  extract.operands = {{"tensor", c::tensor}, {"indices", c::index, true}};
  extract.results = {{"result", c::storable}};
  extract.format = "$tensor[$indices] : type(tensor) -> type(result)";
  extract.traits = kPure;
  extract.verify = [](const Op& op, OpVerifier& v) {
    check_indices(op, v, op.operands[0], op.operands.size() - 1);
    if (!op.result()->type.is_scalar(op.operands[0]->type.element()))
      v.fail(op, "gives the " + std::string(scalar_name(op.operands[0]->type.element())) + " elements of " + ref(op.operands[0]) + ", not " +
                     print_type(op.result()->type) + " as " + ref(op.result()) + " states");
  };
  extract.eval = [](const Op& op, Frame& fr) {
    const RtValue& tv = fr.get(op.operands[0]);
    const Type& tt = op.operands[0]->type;
    const TensorPlace p = tensor_place(tt, tv.dims, tensor_indices(fr, op, tv));
    if (!tt.attachment().encoding) {
      fr.set(op.result(), RtValue::scalar(read_scalar(*tv.storage, tv.base + p.byte, tt.element())));
      return;
    }
    const BlockQuant& q = *tt.attachment().encoding;
    std::uint64_t code = read_scalar(*tv.storage, tv.base + p.byte, Scalar::I8);
    if (q.bits == 4) code = p.high_nibble ? code >> 4 : code & 0xF;
    const std::int64_t value = static_cast<std::int64_t>(code) - q.zero;
    fr.set(op.result(), RtValue::scalar(bits_of(value, tt.element())));
  };
  extract.emit = [](const Op& op, CppEmitter& e) {
    const Type& tt = op.operands[0]->type;
    const CppMemory& m = e.memory(op, op.operands[0]);
    const auto idx = op.operand_group("indices");
    check_tensor_indices(e, op, m, idx);
    if (idx.empty()) {  // a rank-0 tensor: its one element
      e.define(op.result(), load_expr(e, op.result()->type, m.data));
      return;
    }
    const std::string linear = leading_rows(e, m, idx);
    const std::string j = "std::uint64_t(" + e.use(idx.back()) + ")";
    if (!tt.attachment().encoding) {
      const std::string all = linear.empty() ? j : "(" + linear + ") * std::uint64_t(" + m.dims.back() + ") + " + j;
      e.define(op.result(), load_expr(e, op.result()->type, "(" + m.data + " + (" + all + ") * " + std::to_string(scalar_bytes(tt.element())) + "u)"));
      return;
    }
    const BlockQuant& q = *tt.attachment().encoding;
    const std::string rows = linear.empty() ? "0" : linear;
    e.define(op.result(), e.rt() + "block_code<" + e.cpp_type(op.result()->type) + ">(" + m.data + ", " + rows + ", " + m.dims.back() + ", " +
                              j + ", " + std::to_string(q.block) + ", " + std::to_string(q.bits) + ", " + std::to_string(q.zero) + ", " +
                              std::to_string(scalar_bytes(q.scale)) + ")");
  };
  t.add(std::move(extract));

  OpDef scale;
  scale.name = "tensor.block_scale";
  scale.summary = "the scale of the block holding an element of a block-quantised tensor";
  scale.operands = {{"tensor", c::tensor}, {"indices", c::index, true}};
  scale.results = {{"result", c::scalar_float}};
  scale.format = "$tensor[$indices] : type(tensor) -> type(result)";
  scale.traits = kPure;
  scale.verify = [](const Op& op, OpVerifier& v) {
    check_indices(op, v, op.operands[0], op.operands.size() - 1);
    const auto& enc = op.operands[0]->type.attachment().encoding;
    if (!enc) v.fail(op, ref(op.operands[0]) + " has no encoding, so no scales");
    if (!op.result()->type.is_scalar(enc->scale))
      v.fail(op, "gives the scales of " + ref(op.operands[0]) + " as " + std::string(scalar_name(enc->scale)) + ", not " +
                     print_type(op.result()->type) + " as " + ref(op.result()) + " states");
  };
  scale.eval = [](const Op& op, Frame& fr) {
    const RtValue& tv = fr.get(op.operands[0]);
    const Type& tt = op.operands[0]->type;
    const TensorPlace p = tensor_place(tt, tv.dims, tensor_indices(fr, op, tv));
    fr.set(op.result(), RtValue::scalar(read_scalar(*tv.storage, tv.base + p.scale_byte, tt.attachment().encoding->scale)));
  };
  scale.emit = [](const Op& op, CppEmitter& e) {
    const Type& tt = op.operands[0]->type;
    const CppMemory& m = e.memory(op, op.operands[0]);
    const auto idx = op.operand_group("indices");
    check_tensor_indices(e, op, m, idx);
    const std::string linear = leading_rows(e, m, idx);
    const BlockQuant& q = *tt.attachment().encoding;
    const std::string rows = linear.empty() ? "0" : linear;
    const std::string blocks = "(std::uint64_t(" + m.dims.back() + ") / " + std::to_string(q.block) + "u)";
    const std::string where_ = "(" + m.data + " + ((" + rows + ") * " + blocks + " + std::uint64_t(" + e.use(idx.back()) + ") / " +
                               std::to_string(q.block) + "u) * " + std::to_string(q.block_bytes()) + "u)";
    e.define(op.result(), load_expr(e, op.result()->type, where_));
  };
  t.add(std::move(scale));
}

}  // namespace

void register_memory_ops(OpTable& t) {
  add_buffer_view(t);
  add_noalias(t);
  add_align(t);
  add_view_access(t);
  add_tensor_reads(t);
  add_tensor_cast(t);
}

}  // namespace loam::loom
