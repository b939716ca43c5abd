// String ops over the fixed-capacity slots of runtime/onnxc/strings.h:
//   Equal (strings, opset 19+) and StringConcat (opset 20): broadcast, run time;
//   Identity on strings: a view or a slot copy;
//   StringNormalizer (opset 10): case_change_action, is_case_sensitive, stopwords, locale (only the
//     default case mapping: an unknown locale is refused). Without stopwords it runs at run time;
//     with stopwords the output's length depends on the strings, so the input must be a constant
//     (`onnxc test` specializes a case to its inputs) and the node folds at compile time;
//   StringSplit (opset 20): the number of parts depends on the strings: the input must be a
//     constant, the node folds;
//   LabelEncoder (ai.onnx.ml 2+) with string keys or values (numeric ones: ops/ml/ml_encode.cpp).
// Every output's capacity is derived here (see strings.h); a string that does not fit its slot at
// run time makes run() return onnxc::kStringTooLong. RegexFullMatch is in
// ops/text/strings_regex.cpp.
#include "ops/strings.h"

#include <algorithm>
#include <map>
#include <memory>

#include "onnxc/strings.h"
#include "ops/broadcast.h"
#include "ops/dispatch.h"
#include "ops/ml/ml_util.h"
#include "ops/registry.h"

namespace onnxc {

bool set_string_output(InferContext& ctx, size_t i, Shape shape, int64_t capacity) {
  if (!ctx.set_output(i, DataType::kString, std::move(shape))) return false;
  if (Value* v = ctx.node().output(i)) v->string_capacity = capacity;
  return true;
}

std::vector<char> to_slots(const Tensor& t, int64_t slot) {
  std::vector<char> out(static_cast<size_t>(t.numel() * slot) + 1, 0);
  for (size_t i = 0; i < t.strings.size(); ++i)
    std::copy(t.strings[i].begin(), t.strings[i].end(), out.begin() + i * slot);
  return out;
}

void from_slots(const std::vector<char>& slots, int64_t slot, Tensor& t) {
  for (size_t i = 0; i < t.strings.size(); ++i) t.strings[i] = std::string(slots.data() + i * slot);
}

std::string cpp_string_literal(const std::string& s) {
  std::string out = "\"";
  for (unsigned char b : s) {
    if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\' && b != '?') {
      out += static_cast<char>(b);
    } else {
      out += fmt::format("\\{:03o}", b);
    }
  }
  return out + "\"";
}

namespace {

int64_t longest(const std::vector<std::string>& v) {
  size_t n = 0;
  for (const auto& s : v) n = std::max(n, s.size());
  return static_cast<int64_t>(n);
}

std::string string_array(const std::vector<std::string>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + cpp_string_literal(v[i]);
  return v.empty() ? "{nullptr}" : s + "}";
}

// The failure statement every string kernel call is wrapped in.
std::string or_fail(const std::string& call) {
  return fmt::format("if (!{}) return onnxc::kStringTooLong;", call);
}

// ---- Equal and StringConcat: broadcast binary ops ---------------------------------------------

struct BinaryStringState : OpState {
  BroadcastParams params;
  StringSlots slots;
};

template <bool kConcat>
class BinaryStringOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !ctx.check_dtype(0, {DataType::kString}) ||
        !ctx.check_dtype(1, {DataType::kString}))
      return false;
    const Value *a = ctx.input(0), *b = ctx.input(1);
    Shape out;
    if (!broadcast_shapes({a->shape, b->shape}, out))
      return ctx.fail("shapes {} and {} do not broadcast", shape_str(a->shape),
                      shape_str(b->shape));
    if (out.size() > kMaxRank) return ctx.fail("rank {} is more than {}", out.size(), kMaxRank);
    auto& s = ctx.make_state<BinaryStringState>();
    s.params = make_broadcast_params(out, a->shape, b->shape);
    const int64_t cap = string_capacity(a) + string_capacity(b);
    s.slots = {a->string_slot(), b->string_slot(), kConcat ? cap + 1 : 0};
    return kConcat ? set_string_output(ctx, 0, out, cap) : ctx.set_output(0, DataType::kBool, out);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<BinaryStringState>();
    std::vector<char> a = to_slots(*in[0], s.slots.a), b = to_slots(*in[1], s.slots.b);
    if (!kConcat) return string_equal_ref(s.params, s.slots, a.data(), b.data(), out[0].as<bool>());
    std::vector<char> y(static_cast<size_t>(out[0].numel() * s.slots.y) + 1);
    if (!string_concat_ref(s.params, s.slots, a.data(), b.data(), y.data())) return false;
    from_slots(y, s.slots.y, out[0]);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<BinaryStringState>();
    ctx.include("onnxc/strings.h");
    ctx.line("{}", broadcast_params_decl(s.params));
    ctx.line("{}",
             or_fail(fmt::format("onnxc::{}(p, {{{}, {}, {}}}, {}, {}, {})",
                                 kConcat ? "string_concat_ref" : "string_equal_ref", s.slots.a,
                                 s.slots.b, s.slots.y, ctx.in(0), ctx.in(1), ctx.out(0))));
  }
};

// ---- Identity ---------------------------------------------------------------------------------

class StringIdentityOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    return set_string_output(ctx, 0, ctx.input(0)->shape, string_capacity(ctx.input(0)));
  }
  bool evaluate(const Node&, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    out[0] = *in[0];
    return true;
  }
  AliasInfo alias(const Node&) const override { return {AliasKind::kView, 0}; }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/base.h");
    ctx.line("onnxc::copy_bytes({}, {}, /*bytes=*/{});", ctx.out(0), ctx.in(0),
             ctx.input(0)->bytes());
  }
};

// ---- StringNormalizer ---------------------------------------------------------------------------

struct NormalizerState : OpState {
  int case_mode = 0;
  bool case_sensitive = false;
  std::vector<std::string> stopwords;
  StringNormalizerParams params(int64_t n, int64_t x_slot, int64_t y_slot,
                                const std::vector<const char*>& words) const {
    return {n,
            x_slot,
            y_slot,
            case_mode,
            case_sensitive,
            words.data(),
            static_cast<index_t>(words.size())};
  }
};

// The locales whose case mapping is the one onnxc/strings.h implements.
bool known_locale(const std::string& l) {
  static const char* const kLocales[] = {"",      "C",           "POSIX", "C.UTF-8",
                                         "en_US", "en_US.UTF-8", "en_GB", "en_GB.UTF-8"};
  return std::find(std::begin(kLocales), std::end(kLocales), l) != std::end(kLocales);
}

class StringNormalizerOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, {DataType::kString})) return false;
    const Value* x = ctx.input(0);
    if (!(x->shape.size() == 1 || (x->shape.size() == 2 && x->shape[0] == 1)))
      return ctx.fail("input shape {} must be [C] or [1, C]", shape_str(x->shape));
    auto& s = ctx.make_state<NormalizerState>();
    const std::string action = ctx.attr_string("case_change_action", "NONE");
    static const std::map<std::string, int> kModes = {{"NONE", 0}, {"LOWER", 1}, {"UPPER", 2}};
    if (!kModes.count(action))
      return ctx.fail("case_change_action '{}' must be NONE, LOWER or UPPER", action);
    s.case_mode = kModes.at(action);
    s.case_sensitive = ctx.attr_int("is_case_sensitive", 0) != 0;
    const std::string locale = ctx.attr_string("locale", "");
    if (!known_locale(locale))
      return ctx.fail(
          "locale '{}' is not supported (onnxc maps case as en_US does, for ASCII, Latin-1, Greek "
          "and Cyrillic)",
          locale);
    if (const Attribute* a = ctx.node().attr("stopwords")) s.stopwords = a->strings;
    const int64_t cap = string_capacity(x);
    if (s.stopwords.empty()) return set_string_output(ctx, 0, x->shape, cap);
    const Tensor* t = ctx.constant_input(0);
    if (!t)
      return ctx.fail(
          "with stopwords the output's length depends on the strings: input '{}' must be a "
          "constant",
          x->name);
    return fold(ctx, s, *t, x->shape.size());
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<NormalizerState>();
    const Value* x = n.input(0);
    std::vector<char> xs = to_slots(*in[0], x->string_slot());
    std::vector<char> ys(xs.size());
    std::vector<const char*> words;
    index_t kept = 0;
    if (!string_normalizer_ref(s.params(in[0]->numel(), x->string_slot(), x->string_slot(), words),
                               xs.data(), ys.data(), &kept))
      return false;
    from_slots(ys, x->string_slot(), out[0]);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<NormalizerState>();
    const Value* x = ctx.input(0);
    ctx.include("onnxc/strings.h");
    ctx.line("onnxc::index_t kept = 0;");
    ctx.line("static constexpr onnxc::StringNormalizerParams p = {};",
             labeled({{"n", std::to_string(x->numel())},
                      {"x_slot", std::to_string(x->string_slot())},
                      {"y_slot", std::to_string(ctx.output(0)->string_slot())},
                      {"case_mode", std::to_string(s.case_mode)},
                      {"case_sensitive", s.case_sensitive ? "true" : "false"},
                      {"stopwords", "nullptr"},
                      {"num_stopwords", "0"}}));
    ctx.line("{}", or_fail(fmt::format("onnxc::string_normalizer_ref(p, {}, {}, &kept)", ctx.in(0),
                                       ctx.out(0))));
  }

 private:
  // Stopwords with a constant input: the kept strings become the output's value.
  static bool fold(InferContext& ctx, const NormalizerState& s, const Tensor& t, size_t rank) {
    std::vector<const char*> words;
    for (const auto& w : s.stopwords) words.push_back(w.c_str());
    const int64_t slot = longest(t.strings) + 1;
    std::vector<char> xs = to_slots(t, slot), ys(xs.size() + static_cast<size_t>(slot));
    index_t kept = 0;
    if (!string_normalizer_ref(s.params(t.numel(), slot, slot, words), xs.data(), ys.data(), &kept))
      return ctx.fail("a string does not fit its slot");  // cannot happen: slots fit the longest
    Tensor out;
    out.dtype = DataType::kString;
    out.shape = rank == 1 ? Shape{kept} : Shape{1, kept};
    out.strings.resize(static_cast<size_t>(kept));
    from_slots(ys, slot, out);
    ctx.set_output_constant(0, std::move(out));
    return true;
  }
};

// ---- StringSplit --------------------------------------------------------------------------------

class StringSplitOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 2, 2) || !ctx.check_dtype(0, {DataType::kString})) return false;
    const std::string delim = ctx.attr_string("delimiter", "");
    const int64_t maxsplit = ctx.attr_int("maxsplit", -1);
    const Tensor* t = ctx.constant_input(0);
    if (!t)
      return ctx.fail("the number of parts depends on the strings: input '{}' must be a constant",
                      ctx.input(0)->name);
    std::vector<std::vector<std::string>> parts(t->strings.size());
    int64_t widest = 0;
    Tensor counts = Tensor::zeros(DataType::kInt64, t->shape);
    for (size_t i = 0; i < parts.size(); ++i) {
      StringRef s{t->strings[i].data(), static_cast<index_t>(t->strings[i].size())};
      StringRef d{delim.data(), static_cast<index_t>(delim.size())};
      counts.as<int64_t>()[i] = string_split_each(
          s, d, maxsplit, [&](StringRef p) { parts[i].emplace_back(p.data, p.size); });
      widest = std::max<int64_t>(widest, counts.as<int64_t>()[i]);
    }
    Tensor y;
    y.dtype = DataType::kString;
    y.shape = t->shape;
    y.shape.push_back(widest);
    y.strings.assign(static_cast<size_t>(y.numel()), "");  // padded with empty strings
    for (size_t i = 0; i < parts.size(); ++i)
      for (size_t k = 0; k < parts[i].size(); ++k)
        y.strings[i * static_cast<size_t>(widest) + k] = parts[i][k];
    ctx.set_output_constant(0, std::move(y));
    ctx.set_output_constant(1, std::move(counts));
    return true;
  }
  void emit(EmitContext&) const override {}  // always folded (see infer)
};

// ---- LabelEncoder with strings ------------------------------------------------------------------

struct StringEncoderState : OpState {
  Tensor keys, values, fallback;  // fallback: one element of the values' type
};

constexpr TypeSet kEncoderNumbers = type_set(
    {DataType::kInt64, DataType::kFloat, DataType::kInt32, DataType::kInt16, DataType::kDouble});

class StringLabelEncoderOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    auto& s = ctx.make_state<StringEncoderState>();
    if (!ml::label_table(ctx, "keys", s.keys) || !ml::label_table(ctx, "values", s.values) ||
        !ml::label_default(ctx, s.values.dtype, s.fallback))
      return false;
    if (s.keys.numel() != s.values.numel())
      return ctx.fail("{} keys but {} values", s.keys.numel(), s.values.numel());
    if (ctx.input(0)->dtype != s.keys.dtype)
      return ctx.fail("input type {} differs from the keys' type {}",
                      dtype_name(ctx.input(0)->dtype), dtype_name(s.keys.dtype));
    for (const Tensor* t : {&s.keys, &s.values})
      if (t->dtype != DataType::kString && !in_type_set(t->dtype, kEncoderNumbers))
        return ctx.fail("keys or values of {} are not supported", dtype_name(t->dtype));
    if (s.keys.dtype != DataType::kString && s.keys.dtype != DataType::kInt64)
      return ctx.fail("{} keys with string values are not supported", dtype_name(s.keys.dtype));
    const Shape& shape = ctx.input(0)->shape;
    if (s.values.dtype != DataType::kString) return ctx.set_output(0, s.values.dtype, shape);
    return set_string_output(ctx, 0, shape,
                             std::max(longest(s.values.strings), longest(s.fallback.strings)));
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<StringEncoderState>();
    const Value *x = ctx.input(0), *y = ctx.output(0);
    ctx.include("onnxc/strings.h");
    const bool string_keys = s.keys.dtype == DataType::kString;
    const int64_t n = s.keys.numel();
    const size_t size = static_cast<size_t>(std::max<int64_t>(1, n));
    ctx.line("static constexpr {} le_keys[{}] = {};",
             string_keys ? "const char*" : dtype_cpp(s.keys.dtype), size, literals(s.keys));
    if (s.values.dtype != DataType::kString) {
      const char* v = dtype_cpp(s.values.dtype);
      ctx.line("static constexpr {} le_values[{}] = {};", v, size, literals(s.values));
      ctx.line("{}", or_fail(fmt::format(
                         "onnxc::label_encode_strings_ref<{}>({}, {}, {}, le_keys, {}, le_values, "
                         "{}, {})",
                         v, x->numel(), ctx.in(0), x->string_slot(), n, number(s.fallback, 0),
                         ctx.out(0))));
      return;
    }
    ctx.line("static constexpr const char* le_values[{}] = {};", size, literals(s.values));
    const std::string fb = cpp_string_literal(s.fallback.strings[0]);
    if (string_keys)
      ctx.line("{}", or_fail(fmt::format("onnxc::label_encode_strings_to_strings_ref({}, {}, {}, "
                                         "le_keys, {}, le_values, {}, {}, {})",
                                         x->numel(), ctx.in(0), x->string_slot(), n, fb, ctx.out(0),
                                         y->string_slot())));
    else
      ctx.line("{}", or_fail(fmt::format("onnxc::label_encode_to_strings_ref<{}>({}, {}, le_keys, "
                                         "{}, le_values, {}, {}, {})",
                                         dtype_cpp(s.keys.dtype), x->numel(), ctx.in(0), n, fb,
                                         ctx.out(0), y->string_slot())));
  }

 private:
  static std::string number(const Tensor& t, int64_t i) {
    if (t.dtype == DataType::kFloat || t.dtype == DataType::kDouble)
      return cpp_scalar(t.dtype, t.double_at(i));
    const int64_t v = t.int_at(i);
    return fmt::format("static_cast<{}>({})", dtype_cpp(t.dtype), cpp_int64(v));
  }
  static std::string literals(const Tensor& t) {
    if (t.dtype == DataType::kString) return string_array(t.strings);
    std::string s = "{";
    for (int64_t i = 0; i < t.numel(); ++i) s += (i ? ", " : "") + number(t, i);
    return t.numel() ? s + "}" : "{0}";
  }
};

// ---- Dispatch between numeric and string handlers -----------------------------------------------

bool has_strings(const Node& n) {
  for (const Value* v : n.inputs)
    if (v && v->dtype == DataType::kString) return true;
  for (const auto& [name, a] : n.attributes)
    if (a.kind == Attribute::Kind::kStrings || (a.t && a.t->dtype == DataType::kString))
      return true;
  return false;
}

class WithStrings final : public OpHandler {
 public:
  WithStrings(const OpHandler* numeric, const OpHandler* strings)
      : numeric_(numeric), strings_(strings) {}
  bool infer(InferContext& ctx) const override { return pick(ctx.node())->infer(ctx); }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    return pick(n)->evaluate(n, in, out);
  }
  void emit(EmitContext& ctx) const override { pick(ctx.node())->emit(ctx); }
  AliasInfo alias(const Node& n) const override { return pick(n)->alias(n); }
  RandomRange random_range(const Node& n, size_t i) const override {
    return pick(n)->random_range(n, i);
  }
  KernelQuery describe_kernel_query(const Node& n) const override {
    return pick(n)->describe_kernel_query(n);
  }
  size_t use_kernel(Node& n, const KernelVariant& v, int tasks) const override {
    return pick(n)->use_kernel(n, v, tasks);
  }
  int kernel_tasks(const Node& n) const override { return pick(n)->kernel_tasks(n); }
  std::vector<PackedInput> packed_inputs(const Node& n) const override {
    return pick(n)->packed_inputs(n);
  }

 private:
  const OpHandler* pick(const Node& n) const { return has_strings(n) ? strings_ : numeric_; }
  const OpHandler* numeric_;
  const OpHandler* strings_;
};

const BinaryStringOp<false> kStringEqual;
const BinaryStringOp<true> kStringConcat;
const StringIdentityOp kStringIdentity;
const StringNormalizerOp kStringNormalizer;
const StringSplitOp kStringSplit;
const StringLabelEncoderOp kStringLabelEncoder;

}  // namespace

const OpHandler* with_strings(const OpHandler* numeric, const char* op_type) {
  static const std::map<std::string, const OpHandler*> kStringHandlers = {
      {"Equal", &kStringEqual},
      {"Identity", &kStringIdentity},
      {"LabelEncoder", &kStringLabelEncoder}};
  static std::map<const OpHandler*, std::unique_ptr<WithStrings>> made;  // one per handler
  std::unique_ptr<WithStrings>& h = made[numeric];
  if (!h) h = std::make_unique<WithStrings>(numeric, kStringHandlers.at(op_type));
  return h.get();
}

std::vector<OpRegistration> strings_ops() {
  constexpr int L = kMaxOpset;
  return {
      {"", "StringConcat", 20, L, &kStringConcat},
      {"", "StringNormalizer", 10, L, &kStringNormalizer},
      {"", "StringSplit", 20, L, &kStringSplit},
      {"", "RegexFullMatch", 20, L, regex_full_match_handler()},
  };
}

}  // namespace onnxc
