// RegexFullMatch (opset 20): the pattern is compiled here, at compile time, into a Thompson NFA
// over bytes that generated code runs with the Pike VM of onnxc/strings.h (one pass, no
// backtracking, the thread lists in the node's scratch).
//
// Supported RE2 syntax: literals (UTF-8 included), `.` (any code point but \n), classes
// `[a-z]`, `[^...]`, `[[:alpha:]]`-style POSIX names, `\d \D \w \W \s \S` (ASCII, as RE2), escaped
// punctuation, `\n \t \r \f \v \a \xHH`, anchors `^ $ \A \z`, word boundaries `\b \B`, groups
// `( )`, `(?: )`, `(?P<name> )`, alternation `|`, and `* + ? {m} {m,} {m,n}` (lazy `?` suffixes
// too: they do not change whether the whole string matches). Refused with a compile error naming
// the node: flags `(?i)`, Unicode classes `\p`, non-ASCII class members, back-references and
// anything else. Strings that are not valid UTF-8 match `.` and negated classes byte-wise only
// where they form valid sequences.
#include <array>
#include <map>

#include "onnxc/strings.h"
#include "ops/registry.h"
#include "ops/strings.h"

namespace onnxc {
namespace {

using Bits = std::array<uint32_t, 8>;

constexpr size_t kMaxInsts = 20000;  // a bigger program is refused (e.g. a{1000}{1000})

struct Ast {
  enum Kind { kEmpty, kBytes, kConcat, kAlt, kRepeat, kAssert } kind = kEmpty;
  Bits bits{};            // kBytes: the byte set of one position
  std::vector<Ast> kids;  // kConcat, kAlt, kRepeat (one)
  int min = 0, max = 0;   // kRepeat: max -1 is unbounded
  int assertion = 0;      // kAssert: 0 ^, 1 $, 2 \b, 3 \B
};

Ast bytes_node(const Bits& b) {
  Ast a;
  a.kind = Ast::kBytes;
  a.bits = b;
  return a;
}
Bits range(int lo, int hi) {
  Bits b{};
  for (int c = lo; c <= hi; ++c) b[static_cast<size_t>(c) >> 5] |= 1u << (c & 31);
  return b;
}
Ast seq(std::vector<Ast> kids) {
  Ast a;
  a.kind = Ast::kConcat;
  a.kids = std::move(kids);
  return a;
}
Ast alt(std::vector<Ast> kids) {
  Ast a;
  a.kind = Ast::kAlt;
  a.kids = std::move(kids);
  return a;
}
// Every valid multi-byte UTF-8 sequence (one code point above U+007F).
Ast any_multibyte() {
  const Bits t = range(0x80, 0xBF);
  return alt({seq({bytes_node(range(0xC2, 0xDF)), bytes_node(t)}),
              seq({bytes_node(range(0xE0, 0xEF)), bytes_node(t), bytes_node(t)}),
              seq({bytes_node(range(0xF0, 0xF4)), bytes_node(t), bytes_node(t), bytes_node(t)})});
}

// An ASCII byte set, and whether the class also holds every non-ASCII code point.
struct CharSet {
  Bits ascii{};
  bool non_ascii = false;
  void add(int lo, int hi) {
    for (int c = lo; c <= hi; ++c) ascii[static_cast<size_t>(c) >> 5] |= 1u << (c & 31);
  }
  void add(const CharSet& o) {
    for (size_t i = 0; i < 8; ++i) ascii[i] |= o.ascii[i];
    non_ascii |= o.non_ascii;
  }
  CharSet negated() const {
    CharSet n;
    for (int c = 0; c < 128; ++c)
      if (!(ascii[static_cast<size_t>(c) >> 5] >> (c & 31) & 1u)) n.add(c, c);
    n.non_ascii = !non_ascii;
    return n;
  }
  Ast node() const {
    Ast a = bytes_node(ascii);
    return non_ascii ? alt({a, any_multibyte()}) : a;
  }
};

CharSet perl_class(char c) {  // \d \w \s and their negations
  CharSet s;
  const char lower = static_cast<char>(c | 0x20);
  if (lower == 'd') s.add('0', '9');
  if (lower == 'w') s.add('0', '9'), s.add('a', 'z'), s.add('A', 'Z'), s.add('_', '_');
  if (lower == 's') s.add('\t', '\n'), s.add('\f', '\r'), s.add(' ', ' ');
  return c == lower ? s : s.negated();
}

class Parser {
 public:
  explicit Parser(const std::string& p) : p_(p) {}
  bool parse(Ast& out, std::string* error) {
    out = parse_alt();
    if (error_.empty() && i_ < p_.size()) error_ = "unmatched ')'";
    if (!error_.empty()) *error = fmt::format("{} at offset {}", error_, i_);
    return error_.empty();
  }

 private:
  bool more() const { return i_ < p_.size() && error_.empty(); }
  bool fail(const std::string& e) {
    if (error_.empty()) error_ = e;
    return false;
  }

  Ast parse_alt() {
    std::vector<Ast> branches{parse_concat()};
    while (more() && p_[i_] == '|') ++i_, branches.push_back(parse_concat());
    return branches.size() == 1 ? branches[0] : alt(std::move(branches));
  }
  Ast parse_concat() {
    std::vector<Ast> items;
    while (more() && p_[i_] != '|' && p_[i_] != ')') items.push_back(parse_repeat());
    return seq(std::move(items));
  }
  // A count of {m,n}; -1 when there is none.
  int number() {
    int n = -1;
    while (i_ < p_.size() && p_[i_] >= '0' && p_[i_] <= '9' && n < 100000)
      n = (n < 0 ? 0 : n * 10) + (p_[i_++] - '0');
    return n;
  }
  Ast parse_repeat() {
    Ast atom = parse_atom();
    while (more()) {
      const char c = p_[i_];
      int lo, hi;
      if (c == '*' || c == '+' || c == '?') {
        ++i_;
        lo = c == '+' ? 1 : 0;
        hi = c == '?' ? 1 : -1;
      } else if (c == '{') {
        const size_t start = i_++;
        lo = number();
        hi = lo;
        if (lo >= 0 && i_ < p_.size() && p_[i_] == ',') ++i_, hi = number();
        if (lo < 0 || i_ >= p_.size() || p_[i_] != '}') {  // not a count: a literal '{'
          i_ = start;
          return atom;
        }
        ++i_;
        if (lo > 1000 || hi > 1000 || (hi >= 0 && hi < lo)) {
          fail("bad repetition count");
          return atom;
        }
      } else {
        break;
      }
      if (more() && p_[i_] == '?') ++i_;  // lazy: the same language
      Ast r;
      r.kind = Ast::kRepeat;
      r.min = lo;
      r.max = hi;
      r.kids.push_back(std::move(atom));
      atom = std::move(r);
    }
    return atom;
  }
  Ast assertion(int k) {
    Ast a;
    a.kind = Ast::kAssert;
    a.assertion = k;
    return a;
  }
  Ast parse_atom() {
    const unsigned char c = static_cast<unsigned char>(p_[i_++]);
    switch (c) {
      case '(':
        return group();
      case '[':
        return char_class().node();
      case '.': {
        CharSet s;
        s.add(0, '\n' - 1), s.add('\n' + 1, 127);
        s.non_ascii = true;
        return s.node();
      }
      case '^':
        return assertion(0);
      case '$':
        return assertion(1);
      case '*':
      case '+':
      case '?':
        fail("missing argument to repetition operator");
        return Ast{};
      case '\\':
        return escape();
      default:
        return literal(c);
    }
  }
  // A literal byte, or a whole UTF-8 code point so that a quantifier applies to all of it.
  Ast literal(unsigned char c) {
    std::vector<Ast> bytes{bytes_node(range(c, c))};
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    for (; extra > 0 && i_ < p_.size(); --extra) {
      const int b = static_cast<unsigned char>(p_[i_++]);
      bytes.push_back(bytes_node(range(b, b)));
    }
    return bytes.size() == 1 ? bytes[0] : seq(std::move(bytes));
  }
  Ast group() {
    if (i_ < p_.size() && p_[i_] == '?') {
      if (p_.compare(i_, 2, "?:") == 0) {
        i_ += 2;
      } else if (p_.compare(i_, 3, "?P<") == 0 || p_.compare(i_, 2, "?<") == 0) {
        i_ = p_.find('>', i_);
        if (i_ == std::string::npos) i_ = p_.size();
        ++i_;
      } else {
        fail("flags and special groups '(?...' are not supported");
        return Ast{};
      }
    }
    Ast inner = parse_alt();
    if (i_ >= p_.size() || p_[i_] != ')') {
      fail("missing ')'");
      return inner;
    }
    ++i_;
    return inner;
  }
  // Escapes that stand for one byte: \n \t ..., \xHH and escaped punctuation; -1 otherwise.
  int escaped_byte(char e) {
    static const std::map<char, int> kControls = {{'n', '\n'}, {'t', '\t'}, {'r', '\r'},
                                                  {'f', '\f'}, {'v', '\v'}, {'a', '\a'}};
    if (kControls.count(e)) return kControls.at(e);
    if (e == 'x') {
      auto hex = [](char h) {
        return h >= '0' && h <= '9'   ? h - '0'
               : h >= 'a' && h <= 'f' ? h - 'a' + 10
               : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                      : -1;
      };
      if (i_ + 1 < p_.size() && hex(p_[i_]) >= 0 && hex(p_[i_ + 1]) >= 0 &&
          hex(p_[i_]) * 16 + hex(p_[i_ + 1]) < 128) {
        const int v = hex(p_[i_]) * 16 + hex(p_[i_ + 1]);
        i_ += 2;
        return v;
      }
      return -1;
    }
    const unsigned char u = static_cast<unsigned char>(e);
    if (u < 128 && !std::isalnum(u)) return u;  // escaped punctuation
    return -1;
  }
  Ast escape() {
    if (i_ >= p_.size()) {
      fail("trailing '\\'");
      return Ast{};
    }
    const char e = p_[i_++];
    if (std::strchr("dDwWsS", e)) return perl_class(e).node();
    if (e == 'b' || e == 'B') return assertion(e == 'b' ? 2 : 3);
    if (e == 'A') return assertion(0);
    if (e == 'z') return assertion(1);
    const int b = escaped_byte(e);
    if (b < 0) fail(fmt::format("escape '\\{}' is not supported", e));
    return bytes_node(range(std::max(b, 0), std::max(b, 0)));
  }
  // One member of a class: a byte, or -1 after adding a \d-style or POSIX class to `set`.
  int class_member(CharSet& set) {
    const unsigned char c = static_cast<unsigned char>(p_[i_++]);
    if (c >= 0x80) {
      fail("non-ASCII characters in a class are not supported");
      return -1;
    }
    if (c == '[' && i_ < p_.size() && p_[i_] == ':') {
      static const std::map<std::string, std::vector<std::pair<int, int>>> kPosix = {
          {"alpha", {{'a', 'z'}, {'A', 'Z'}}},
          {"digit", {{'0', '9'}}},
          {"alnum", {{'a', 'z'}, {'A', 'Z'}, {'0', '9'}}},
          {"upper", {{'A', 'Z'}}},
          {"lower", {{'a', 'z'}}},
          {"space", {{'\t', '\r'}, {' ', ' '}}},
          {"xdigit", {{'0', '9'}, {'a', 'f'}, {'A', 'F'}}},
          {"word", {{'0', '9'}, {'a', 'z'}, {'A', 'Z'}, {'_', '_'}}},
          {"punct", {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}}}};
      const size_t end = p_.find(":]", i_);
      const std::string name = end == std::string::npos ? "" : p_.substr(i_ + 1, end - i_ - 1);
      if (!kPosix.count(name)) {
        fail("unknown POSIX class");
        return -1;
      }
      for (auto [lo, hi] : kPosix.at(name)) set.add(lo, hi);
      i_ = end + 2;
      return -1;
    }
    if (c != '\\') return c;
    if (i_ >= p_.size()) {
      fail("trailing '\\'");
      return -1;
    }
    const char e = p_[i_++];
    if (std::strchr("dDwWsS", e)) {
      set.add(perl_class(e));
      return -1;
    }
    const int b = escaped_byte(e);
    if (b < 0) fail(fmt::format("escape '\\{}' is not supported in a class", e));
    return b;
  }
  CharSet char_class() {
    CharSet set;
    const bool negate = i_ < p_.size() && p_[i_] == '^';
    if (negate) ++i_;
    bool first = true;
    while (more() && (p_[i_] != ']' || first)) {
      first = false;
      const int lo = class_member(set);
      if (lo < 0) continue;
      if (i_ + 1 < p_.size() && p_[i_] == '-' && p_[i_ + 1] != ']') {
        ++i_;
        const int hi = class_member(set);
        if (hi < lo) fail("bad class range");
        if (hi >= 0) set.add(lo, hi);
        continue;
      }
      set.add(lo, lo);
    }
    if (i_ >= p_.size()) fail("missing ']'");
    ++i_;
    return negate ? set.negated() : set;
  }

  const std::string& p_;
  size_t i_ = 0;
  std::string error_;
};

// Thompson construction into the RegexInst program of onnxc/strings.h.
class Compiler {
 public:
  explicit Compiler(RegexProgramData& out) : out_(out) {}
  bool compile(const Ast& a) {
    if (!error_) emit_node(a);
    return !error_;
  }
  size_t emit(uint8_t op, int32_t arg = 0, int32_t arg2 = 0) {
    if (out_.ops.size() >= kMaxInsts) error_ = true;
    out_.ops.push_back(op);
    out_.args.push_back(arg);
    out_.args2.push_back(arg2);
    return out_.ops.size() - 1;
  }
  int32_t here() const { return static_cast<int32_t>(out_.ops.size()); }

 private:
  int32_t class_index(const Bits& b) {
    auto it = classes_.find(b);
    if (it != classes_.end()) return it->second;
    out_.classes.push_back(b);
    return classes_[b] = static_cast<int32_t>(out_.classes.size() - 1);
  }
  void emit_node(const Ast& a) {
    if (error_) return;
    switch (a.kind) {
      case Ast::kEmpty:
        return;
      case Ast::kBytes:
        emit(kRegexByte, class_index(a.bits));
        return;
      case Ast::kAssert:
        emit(kRegexAssert, a.assertion);
        return;
      case Ast::kConcat:
        for (const Ast& k : a.kids) emit_node(k);
        return;
      case Ast::kAlt: {
        std::vector<size_t> jumps;
        for (size_t k = 0; k + 1 < a.kids.size(); ++k) {
          const size_t split = emit(kRegexSplit, here() + 1);
          emit_node(a.kids[k]);
          jumps.push_back(emit(kRegexJump));
          out_.args2[split] = here();
        }
        emit_node(a.kids.back());
        for (size_t j : jumps) out_.args[j] = here();
        return;
      }
      case Ast::kRepeat:
        return repeat(a.kids[0], a.min, a.max);
    }
  }
  void repeat(const Ast& e, int min, int max) {
    for (int k = 0; k < min && !error_; ++k) emit_node(e);
    if (max < 0) {  // e*: L: split body, out; body; jmp L
      const int32_t loop = here();
      const size_t split = emit(kRegexSplit, loop + 1);
      emit_node(e);
      emit(kRegexJump, loop);
      out_.args2[split] = here();
      return;
    }
    std::vector<size_t> splits;  // (e(e(e)?)?)?
    for (int k = min; k < max && !error_; ++k) {
      splits.push_back(emit(kRegexSplit, here() + 1));
      emit_node(e);
    }
    for (size_t s : splits) out_.args2[s] = here();
  }

  RegexProgramData& out_;
  std::map<Bits, int32_t> classes_;
  bool error_ = false;
};

struct RegexState : OpState {
  RegexProgramData program;
};

class RegexFullMatchOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, {DataType::kString})) return false;
    if (!ctx.has_attr("pattern")) return ctx.fail("attribute 'pattern' is required");
    auto& s = ctx.make_state<RegexState>();
    std::string error;
    if (!compile_regex(ctx.attr_string("pattern", ""), s.program, &error))
      return ctx.fail("pattern: {}", error);
    ctx.request_scratch(regex_scratch_bytes(static_cast<int32_t>(s.program.ops.size())));
    return ctx.set_output(0, DataType::kBool, ctx.input(0)->shape);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<RegexState>();
    std::vector<RegexInst> insts;
    for (size_t i = 0; i < s.program.ops.size(); ++i)
      insts.push_back({s.program.ops[i], s.program.args[i], s.program.args2[i]});
    std::vector<Bits> classes = s.program.classes;
    classes.emplace_back();  // never empty
    RegexProgram p{insts.data(), static_cast<int32_t>(insts.size()),
                   reinterpret_cast<const uint32_t(*)[8]>(classes.data())};
    std::vector<char> scratch(regex_scratch_bytes(p.num_insts) + 1);
    for (int64_t i = 0; i < in[0]->numel(); ++i) {
      const std::string& str = in[0]->strings[static_cast<size_t>(i)];
      out[0].as<bool>()[i] =
          regex_full_match(p, {str.data(), static_cast<index_t>(str.size())}, scratch.data());
    }
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<RegexState>();
    const auto& p = s.program;
    ctx.include("onnxc/strings.h");
    // One NFA state {op, arg, arg2} per entry, 8 to a line; one 256-bit byte set per line.
    std::string insts, classes;
    for (size_t i = 0; i < p.ops.size(); ++i)
      insts += fmt::format("{}{{{}, {}, {}}}",
                           i == 0  ? ""
                           : i % 8 ? ", "
                                   : ",\n        ",
                           p.ops[i], p.args[i], p.args2[i]);
    for (size_t i = 0; i < p.classes.size(); ++i)
      classes +=
          fmt::format("{}{{{:#x}u}}", i ? ",\n        " : "", fmt::join(p.classes[i], "u, "));
    ctx.line("// pattern {}", cpp_string_literal(ctx.node().attr("pattern")->s));
    ctx.line("static constexpr onnxc::RegexInst insts[] = {{{}}};", insts);
    ctx.line("static constexpr std::uint32_t classes[][8] = {{{}}};",
             classes.empty() ? "{0}" : classes);
    ctx.line("static constexpr onnxc::RegexProgram program = {{insts, {}, classes}};",
             p.ops.size());
    ctx.line(
        "if (!onnxc::regex_full_match_ref(program, {}, {}, {}, {}, {})) return "
        "onnxc::kStringTooLong;",
        ctx.input(0)->numel(), ctx.in(0), ctx.input(0)->string_slot(), ctx.out(0), ctx.scratch());
  }
};

const RegexFullMatchOp kRegexFullMatch;

}  // namespace

bool compile_regex(const std::string& pattern, RegexProgramData& out, std::string* error) {
  out = RegexProgramData{};
  Ast ast;
  if (!Parser(pattern).parse(ast, error)) return false;
  Compiler c(out);
  if (!c.compile(ast) || (c.emit(kRegexMatch), out.ops.size() > kMaxInsts)) {
    *error = fmt::format("the pattern needs more than {} NFA states", kMaxInsts);
    return false;
  }
  return true;
}

const OpHandler* regex_full_match_handler() {
  return &kRegexFullMatch;
}

}  // namespace onnxc
