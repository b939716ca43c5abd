#include "codegen/runtime_inliner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "codegen/cpp_emitter.h"

namespace onnxc {
namespace {

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}

// `text` without comments and with string and character literals emptied, so that braces,
// parentheses and identifiers can be counted.
std::string code_only(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      out += '\n';
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i = text.find("*/", i + 2);
      if (i == std::string::npos) break;
      ++i;
      out += ' ';
    } else if (c == '"' || c == '\'') {
      out += c;
      for (++i; i < text.size() && text[i] != c; ++i)
        if (text[i] == '\\') ++i;
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string> identifiers(const std::string& code) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < code.size();) {
    if (ident_start(code[i])) {
      size_t j = i;
      while (j < code.size() && ident_char(code[j])) ++j;
      ids.push_back(code.substr(i, j - i));
      i = j;
    } else if (code[i] >= '0' && code[i] <= '9') {
      while (i < code.size() && (ident_char(code[i]) || code[i] == '.')) ++i;  // 0x1p+0f, 8u
    } else {
      ++i;
    }
  }
  return ids;
}

// The lines of `text`, without their '\n'.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    lines.push_back(text.substr(pos, eol - pos));
    pos = eol + 1;
  }
  return lines;
}

bool starts(const std::string& line, const char* prefix) {
  return line.rfind(prefix, 0) == 0;
}

// A blank line or a comment line.
bool filler(const std::string& line) {
  const size_t f = line.find_first_not_of(" \t");
  return f == std::string::npos || line.compare(f, 2, "//") == 0;
}

// An identifier the code mentions, with the namespace or class written before it ("conv_detail"
// in conv_detail::kKc). Member accesses (p.tile, r->x) are not references.
struct Ref {
  std::string qualifier, name;
  int args = -1;  // the argument count of a call `name(...)`, -1 when not a call or unsure
};

// The number of arguments of the call whose '(' is at code[open]: top-level commas + 1, 0 for
// "()". A '<' right after a name opens a template argument list (Epilogue<Act>: the headers are
// clang-formatted, so a comparison has a space before it), closed by the next '>'; another '<'
// at the top level gives -1 (a comparison, or a list whose commas cannot be told apart), as do
// parentheses that do not close.
int call_arity(const std::string& code, size_t open) {
  int depth = 0, commas = 0, angles = 0;
  bool empty = true;
  for (size_t i = open; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return empty ? 0 : commas + 1;
      continue;
    }
    if (c == '<' && ident_char(code[i - 1])) {
      ++angles;
      continue;
    }
    if (c == '>' && angles > 0 && code[i - 1] != '-') {
      --angles;
      continue;
    }
    if (angles > 0) continue;
    if (depth == 1 && c == '<') return -1;
    if (depth == 1 && c == ',') ++commas;
    if (i > open && c != ' ' && c != '\n') empty = false;
  }
  return -1;
}

// The '(' that opens the call after an identifier ending at code[end], skipping explicit template
// arguments (f<6, 16>(...)); npos when the identifier is not called there.
size_t call_paren(const std::string& code, size_t end) {
  size_t i = code.find_first_not_of(" \n", end);
  if (i != std::string::npos && code[i] == '<') {
    int angle = 0;
    for (; i < code.size(); ++i) {
      if (code[i] == '<') ++angle;
      if (code[i] == '>' && --angle == 0) break;
      if (code[i] == ';' || code[i] == '{' || code[i] == ')') return std::string::npos;
    }
    if (i == code.size()) return std::string::npos;
    i = code.find_first_not_of(" \n", i + 1);
  }
  return i != std::string::npos && code[i] == '(' ? i : std::string::npos;
}

std::vector<Ref> references(const std::string& code) {
  std::vector<Ref> refs;
  std::string previous;  // the identifier just before "::", if the scan is right after one
  for (size_t i = 0; i < code.size();) {
    if (ident_start(code[i])) {
      size_t j = i;
      while (j < code.size() && ident_char(code[j])) ++j;
      std::string name = code.substr(i, j - i);
      size_t b = i;
      while (b > 0 && (code[b - 1] == ' ' || code[b - 1] == '\n')) --b;
      const bool member =
          (b >= 1 && code[b - 1] == '.') || (b >= 2 && code.compare(b - 2, 2, "->") == 0);
      const bool qualified = b >= 2 && code.compare(b - 2, 2, "::") == 0;
      if (!member) {
        const size_t paren = call_paren(code, j);
        refs.push_back({qualified ? previous : "", name,
                        paren == std::string::npos ? -1 : call_arity(code, paren)});
      }
      previous = name;
      i = j;
    } else if (code[i] >= '0' && code[i] <= '9') {
      while (i < code.size() && (ident_char(code[i]) || code[i] == '.')) ++i;
      previous.clear();
    } else {
      if (code[i] != ':' && code[i] != ' ') previous.clear();
      ++i;
    }
  }
  return refs;
}

// Removes balanced "<...>" after `template` and "((...))" after __attribute__ / alignas from a
// declaration's code, leaving the words that name it.
std::string strip_decorations(const std::string& code) {
  std::string out;
  for (size_t i = 0; i < code.size();) {
    auto skip_group = [&](size_t from, char open, char close) {
      int depth = 0;
      size_t j = from;
      for (; j < code.size(); ++j) {
        if (code[j] == open) ++depth;
        if (code[j] == close && --depth == 0) return j + 1;
      }
      return j;
    };
    auto word_at = [&](const char* w) {
      const size_t n = std::char_traits<char>::length(w);
      return code.compare(i, n, w) == 0 && (i + n >= code.size() || !ident_char(code[i + n])) &&
             (i == 0 || !ident_char(code[i - 1]));
    };
    if (word_at("template")) {
      const size_t lt = code.find('<', i);
      i = lt == std::string::npos ? code.size() : skip_group(lt, '<', '>');
    } else if (word_at("__attribute__") || word_at("alignas")) {
      const size_t lp = code.find('(', i);
      i = lp == std::string::npos ? code.size() : skip_group(lp, '(', ')');
    } else {
      out += code[i++];
    }
  }
  return out;
}

// The namespaces named by `using namespace X;` directives in `code` (comments removed).
std::vector<std::string> using_directives(const std::string& code) {
  std::vector<std::string> out;
  const std::vector<std::string> words = identifiers(code);
  for (size_t i = 0; i + 2 < words.size(); ++i)
    if (words[i] == "using" && words[i + 1] == "namespace") out.push_back(words[i + 2]);
  return out;
}

struct Chunk {
  std::string text;
  std::string ns;               // enclosing namespaces, "onnxc::conv_detail"
  bool always = false;          // preprocessor lines, namespace braces, the opening comment
  std::set<std::string> names;  // what it declares
  std::vector<Ref> refs;        // every identifier it mentions
  // The namespaces its `using namespace X;` directives open (a function body's
  // `using namespace quant_detail;`): its unqualified names are looked up there too.
  std::vector<std::string> using_namespaces;
  bool is_template = false;     // a template's body is compiled only for the types it is used with
  std::set<std::string> types;  // element types its signature names (see element_types)
  std::string prototype;        // a function's declaration without its body, else ""
  bool kept = false;
  bool prototype_kept = false;           // only the prototype is printed
  int min_params = -1, max_params = -1;  // a function's parameter counts, -1 when not one
};

// The range of argument counts a function declaration accepts, from its parameter list
// (defaulted parameters may be left out, "..." takes any number); {-1, -1} when `head` (a
// function's prototype) has no "name(" to read.
std::pair<int, int> parameter_range(const std::string& head, const std::string& name) {
  const std::string code = strip_decorations(code_only(head));
  size_t open = std::string::npos;
  for (size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + 1)) {
    const size_t end = at + name.size();
    const bool whole =
        (at == 0 || !ident_char(code[at - 1])) && (end == code.size() || !ident_char(code[end]));
    const size_t paren = code.find_first_not_of(" \n", end);
    if (whole && paren != std::string::npos && code[paren] == '(') {
      open = paren;
      break;
    }
  }
  if (open == std::string::npos) return {-1, -1};
  int depth = 0, params = 0, defaults = 0;
  bool in_param = false, defaulted = false, variadic = false;
  for (size_t i = open; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (depth++ == 0) continue;
    }
    if (c == ')' || c == ']' || c == '}' || c == '>') {
      if (--depth == 0) {
        params += in_param;
        defaults += in_param && defaulted;
        if (variadic) return {params - defaults - 1, 1 << 20};
        return {params - defaults, params};
      }
      continue;
    }
    if (depth != 1) continue;
    if (c == ',') {
      params += 1;
      defaults += defaulted;
      in_param = defaulted = false;
    } else if (c == '=') {
      defaulted = true;
    } else if (c == '.' && code.compare(i, 3, "...") == 0) {
      variadic = in_param = true;
    } else if (c != ' ' && c != '\n') {
      in_param = true;
    }
  }
  return {-1, -1};
}

// A function's declaration: its text up to the body's '{', then ';'. "" when it is not a
// function with a body.
std::string prototype_of(const std::string& text, const std::set<std::string>& names) {
  const std::string code = code_only(text);
  if (names.size() != 1 || code.find('(') == std::string::npos) return "";
  // code_only keeps every character before a comment, so positions before the first comment
  // agree; scan the raw text, skipping comments, for the first '{' outside parentheses.
  int parens = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) return "";
      continue;
    }
    const char c = text[i];
    if (c == '(') ++parens;
    if (c == ')') --parens;
    if (c == '=' && parens == 0) return "";  // a variable
    if (c == '{' && parens == 0) {
      std::string head = text.substr(0, i);
      while (!head.empty() && (head.back() == ' ' || head.back() == '\n')) head.pop_back();
      return head + ";\n";
    }
  }
  return "";
}

// The element types C++ has no type for. A declaration whose signature names one of them (an
// overload for float16, a specialization for int4x2) only matters to code that uses that type,
// so it is kept only when the generated code names the type; templates that mention the type in
// their bodies still compile, as the branches for it are never instantiated.
const std::set<std::string>& element_types() {
  static const std::set<std::string> k = {
      "float16",        "bfloat16",   "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
      "float8e5m2fnuz", "float8e8m0", "float4e2m1",   "float4e2m1x2",   "uint4x2",
      "int4x2",         "uint2x4",    "int2x4",       "complex64",      "complex128"};
  return k;
}

// The element types named in a declaration's signature: its code up to the body or initializer,
// without the types it declares itself.
std::set<std::string> signature_types(const std::string& code, const std::set<std::string>& names) {
  const std::string head = strip_decorations(code);
  int parens = 0;
  size_t end = head.size();
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '(') ++parens;
    if (head[i] == ')') --parens;
    if (parens == 0 && (head[i] == '{' || head[i] == '=' || head[i] == ';')) {
      end = i;
      break;
    }
  }
  std::set<std::string> types;
  for (const auto& w : identifiers(head.substr(0, end)))
    if (element_types().count(w) && !names.count(w)) types.insert(w);
  return types;
}

struct Header {
  std::string path;
  std::vector<Chunk> chunks;
};

const std::set<std::string>& declaration_keywords() {
  static const std::set<std::string> k = {"inline",   "constexpr", "static", "const",   "extern",
                                          "volatile", "unsigned",  "signed", "typename"};
  return k;
}

// The names a top-level declaration declares; empty when it cannot tell (then it is always kept).
std::set<std::string> declared_names(const std::string& code, const std::set<std::string>& macros) {
  const std::string head = strip_decorations(code);
  const std::vector<std::string> words = identifiers(head);
  if (words.empty()) return {};
  size_t w = 0;
  while (w < words.size() && declaration_keywords().count(words[w])) ++w;
  if (w == words.size()) return {};
  const std::string& first = words[w];
  if (macros.count(first)) {  // ONNXC_UNARY_FUNCTOR(Relu, ...) declares Relu
    if (w + 1 < words.size()) return {words[w + 1]};
    return {};
  }
  if (first == "struct" || first == "class" || first == "union" || first == "enum") {
    size_t k = w + 1;
    if (k < words.size() && (words[k] == "class" || words[k] == "struct")) ++k;
    if (k >= words.size()) return {};
    std::set<std::string> names = {words[k]};
    if (first == "enum") {  // an unscoped enum's enumerators are names in the namespace too
      const size_t open = head.find('{'), close = head.rfind('}');
      if (open != std::string::npos && close != std::string::npos && open < close)
        for (const auto& e : identifiers(head.substr(open + 1, close - open - 1))) names.insert(e);
    }
    return names;
  }
  if (first == "using") {
    if (w + 1 < words.size() && words[w + 1] != "namespace") return {words[w + 1]};
    return {};
  }
  if (first == "static_assert" || first == "operator") return {};
  // A function, variable or typedef: the last identifier before the first '(', '=', '{', ';' or
  // '[' at angle depth 0 (plus the class of an out-of-line member definition).
  int angle = 0;
  size_t end = head.size();
  for (size_t i = 0; i < head.size(); ++i) {
    const char c = head[i];
    if (c == '<') ++angle;
    if (c == '>' && angle > 0) --angle;
    if (angle == 0 && (c == '(' || c == '=' || c == '{' || c == ';' || c == '[')) {
      end = i;
      break;
    }
  }
  const std::vector<std::string> before = identifiers(head.substr(0, end));
  if (before.empty()) return {};
  std::set<std::string> names = {before.back()};
  if (before.back() == "operator") return {};
  const size_t at = head.rfind(before.back(), end);
  if (at >= 2 && head.compare(at - 2, 2, "::") == 0 && before.size() >= 2)
    names.insert(before[before.size() - 2]);
  return names;
}

// Cuts a header (its onnxc/ includes removed) into top-level chunks. `macros`: the macros the
// headers read so far define (one header's functor macro declares structs in another); this
// header's are added.
std::vector<Chunk> split_chunks(const std::string& text, std::set<std::string>& macros) {
  std::vector<Chunk> chunks;
  std::string current;        // lines of the chunk being read
  bool has_code = false;      // it holds more than comments and blank lines
  int depth = 0, parens = 0;  // within the chunk
  bool opening_comment = true;
  bool abridged = false;  // the opening comment's paragraphs after the first are left out
  std::vector<std::string> namespaces;
  std::vector<std::string> lines = split_lines(text);
  auto flush = [&](bool always) {
    if (current.empty()) return;
    Chunk c;
    c.text = current;
    const std::string code = code_only(current);
    c.always = always;
    if (!always) {
      c.names = declared_names(code, macros);
      c.always = c.names.empty();
      c.types = signature_types(code, c.names);
      if (!c.types.empty()) c.prototype = prototype_of(current, c.names);
      const std::string head = prototype_of(current, c.names);
      if (!head.empty() && head.find("(void)") == std::string::npos)
        std::tie(c.min_params, c.max_params) = parameter_range(head, *c.names.begin());
    }
    c.refs = references(code);
    c.ns = fmt::format("{}", fmt::join(namespaces, "::"));
    c.using_namespaces = using_directives(code);
    const std::vector<std::string> words = identifiers(code);
    c.is_template = !words.empty() && words[0] == "template";
    chunks.push_back(std::move(c));
    current.clear();
    has_code = false;
    depth = parens = 0;
  };
  for (size_t li = 0; li < lines.size(); ++li) {
    const std::string& line = lines[li];
    const size_t first = line.find_first_not_of(" \t");
    const bool blank = first == std::string::npos;
    const bool comment = !blank && line.compare(first, 2, "//") == 0;
    if (opening_comment) {  // the header's description: its first paragraph stays with it
      if (comment) {
        if (!abridged && line.find_first_not_of("/ \t") == std::string::npos) abridged = true;
        if (!abridged) current += line + "\n";
        continue;
      }
      if (abridged) current += "// (abridged: the header documents the rest)\n";
      opening_comment = false;
      flush(true);
    }
    if (!has_code && (blank || comment)) {
      current += line + "\n";
      continue;
    }
    if (!has_code && line[first] == '#') {  // a preprocessor line (and its continuations)
      std::string directive = line;
      current += line + "\n";
      while (!lines[li].empty() && lines[li].back() == '\\' && li + 1 < lines.size())
        current += lines[++li] + "\n";
      const std::vector<std::string> words = identifiers(code_only(directive));
      const bool define = words.size() >= 2 && words[0] == "define";
      // Function-like macros only: a use such as ONNXC_UNARY_FUNCTOR(Relu, ...) declares Relu;
      // an object-like one (ONNXC_ALWAYS_INLINE) only decorates a declaration.
      const size_t name_at = define ? directive.find(words[1]) : std::string::npos;
      if (define && directive.compare(name_at + words[1].size(), 1, "(") == 0)
        macros.insert(words[1]);
      flush(true);
      // A macro is declared where it is defined: a use in another header prints this one.
      if (define) chunks.back().names.insert(words[1]);
      continue;
    }
    const std::string code = code_only(line);
    if (!has_code && code.compare(first, 9, "namespace") == 0 &&
        code.find('{') != std::string::npos) {
      current += line + "\n";
      flush(true);
      const std::vector<std::string> words = identifiers(code);
      namespaces.push_back(words.size() > 1 ? words[1] : "");
      continue;
    }
    if (!has_code && line[first] == '}') {  // closes a namespace
      current += line + "\n";
      flush(true);
      if (!namespaces.empty()) namespaces.pop_back();
      continue;
    }
    current += line + "\n";
    has_code = true;
    for (char c : code) {
      if (c == '{') ++depth;
      if (c == '}') --depth;
      if (c == '(') ++parens;
      if (c == ')') --parens;
    }
    const size_t last = code.find_last_not_of(" \t\n");
    const char end = last == std::string::npos ? ' ' : code[last];
    if (depth == 0 && parens == 0) {
      const std::vector<std::string> words = identifiers(code_only(current));
      const bool macro_use = !words.empty() && macros.count(words[0]) && end == ')';
      if (end == ';' || end == '}' || macro_use) flush(false);
    }
  }
  flush(!has_code);
  return chunks;
}

// Reads `path` and, first, the onnxc/ headers it includes, once each, into `out`.
void load_header(const std::string& path, std::set<std::string>& seen,
                 std::set<std::string>& macros, std::vector<Header>& out) {
  if (!seen.insert(path).second) return;
  std::string body;
  for (const std::string& line : split_lines(embedded_runtime_header(path))) {
    const std::string included = included_runtime_header(line);
    if (!included.empty()) {
      load_header(included, seen, macros, out);
      continue;
    }
    body += line + "\n";
  }
  out.push_back({path, split_chunks(body, macros)});
}

// What is left of a header once its unused declarations are gone, without the husks they leave:
// `#if`/`#endif` pairs and namespaces with nothing but comments between them, and runs of blank
// lines. Purely cosmetic: an empty conditional or namespace block declares nothing.
std::string drop_empty_blocks(const std::string& text) {
  std::vector<std::string> lines = split_lines(text);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < lines.size() && !changed; ++i) {
      const bool cond = starts(lines[i], "#if") && !starts(lines[i], "#ifndef ONNXC_");
      const bool ns = starts(lines[i], "namespace ") && lines[i].back() == '{';
      if (!cond && !ns) continue;
      size_t j = i + 1;
      while (j < lines.size() &&
             (ns ? filler(lines[j]) : lines[j].find_first_not_of(" \t") == std::string::npos))
        ++j;
      if (j == lines.size() ||
          !(cond ? starts(lines[j], "#endif") : starts(lines[j], "}  // namespace")))
        continue;
      size_t first = i;  // a comment right above an empty namespace goes with it
      while (ns && first > 0 && filler(lines[first - 1]) && !lines[first - 1].empty()) --first;
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(first),
                  lines.begin() + static_cast<std::ptrdiff_t>(j + 1));
      changed = true;
    }
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty() &&
        (out.empty() || (out.size() >= 2 && out.compare(out.size() - 2, 2, "\n\n") == 0)))
      continue;  // one blank line at most
    out += lines[i] + "\n";
  }
  return out;
}

// The pasted headers as one block of code rather than a row of files: each header is pasted
// once, so its include guard goes; the standard headers they include unconditionally are
// gathered, sorted, above them all; and a namespace closed only to be reopened, with nothing but
// comments (such as the next header's banner) between, stays open. Conditional includes
// and every other preprocessor line stay where they are.
std::string merge_headers(const std::string& text) {
  std::vector<std::string> lines = split_lines(text);
  std::set<std::string> includes;
  std::vector<bool> guards;  // the open #if blocks, innermost last: is it an include guard?
  std::vector<std::string> kept;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const bool guard = starts(l, "#ifndef ONNXC_") && l.size() > 2 &&
                       l.compare(l.size() - 2, 2, "_H") == 0 && i + 1 < lines.size() &&
                       lines[i + 1] == "#define " + l.substr(8);
    if (starts(l, "#if")) {
      guards.push_back(guard);
      if (guard) ++i;  // and its #define
      if (guard) continue;
    } else if (starts(l, "#endif") && !guards.empty()) {
      const bool closes_guard = guards.back();
      guards.pop_back();
      if (closes_guard) continue;
    } else if (starts(l, "#include <") &&
               std::find(guards.begin(), guards.end(), false) == guards.end()) {
      includes.insert(l);
      continue;
    }
    kept.push_back(l);
  }
  std::string out = includes.empty() ? "" : "// The standard headers the runtime below includes.\n";
  for (const auto& inc : includes) out += inc + "\n";
  for (size_t i = 0; i < kept.size(); ++i) {
    if (starts(kept[i], "}  // namespace ")) {
      size_t j = i + 1;
      while (j < kept.size() && filler(kept[j])) ++j;
      if (j < kept.size() && kept[j] == "namespace " + kept[i].substr(16) + " {") {
        kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(j));
        continue;  // the namespace stays open across the next header's banner
      }
    }
    if (kept[i].empty() && (out.empty() || out.compare(out.size() - 2, 2, "\n\n") == 0)) continue;
    if (!out.empty() && starts(kept[i], "// ---- runtime/") &&
        out.compare(out.size() - 2, 2, "\n\n") != 0)
      out += "\n";  // a blank line above each header's banner
    out += kept[i] + "\n";
  }
  return out;
}

}  // namespace

std::string included_runtime_header(const std::string& line) {
  const std::string tag = "#include \"onnxc/";
  if (line.rfind(tag, 0) != 0) return "";
  const size_t close = line.find('"', tag.size());
  return close == std::string::npos ? "" : line.substr(10, close - 10);
}

std::string embedded_runtime_header(const std::string& path) {
  const std::string text = runtime_header_text(path);
  if (text.empty()) {
    std::fprintf(stderr, "onnxc: internal error: no runtime header '%s' is embedded\n",
                 path.c_str());
    std::abort();
  }
  return text;
}

namespace {

// The inlined runtime: each header with a chunk in use, in load order, under a banner naming it,
// with the chunks kept whole or as prototypes.
std::string print_kept_chunks(const std::vector<Header>& loaded, const std::vector<bool>& printed) {
  std::string out;
  for (size_t h = 0; h < loaded.size(); ++h) {
    if (!printed[h]) continue;  // nothing in it is used
    std::string kept;
    for (const auto& c : loaded[h].chunks) {
      if (c.always || c.kept)
        kept += c.text;
      else if (c.prototype_kept)
        kept += c.prototype;
    }
    out += fmt::format("// ---- runtime/{} ----\n", loaded[h].path);
    out += drop_empty_blocks(kept);
  }
  return merge_headers(out);
}

}  // namespace

std::string inline_runtime(const std::set<std::string>& headers, const std::string& code,
                           const std::set<std::string>& skip) {
  std::vector<Header> loaded;
  std::set<std::string> seen, macros;
  std::vector<Header> skipped;
  for (const auto& h : skip) load_header(h, seen, macros, skipped);
  for (const auto& h : headers) load_header(h, seen, macros, loaded);

  // Which chunks declare each name; then keep chunks from the names `code` uses, to a fixpoint.
  // A name resolves as C++ lookup would, roughly: qualified, to the chunks of that namespace;
  // unqualified, to the innermost enclosing namespace that declares it (to nothing when none
  // does: then it names a local, a member or a standard library name). A header is printed once one
  // of its chunks is kept, and then what its always-kept chunks mention (macro bodies, preprocessor
  // conditions) counts as used too.
  struct Decl {
    size_t header;
    Chunk* chunk;
  };
  std::multimap<std::string, Decl> declares;
  for (size_t h = 0; h < loaded.size(); ++h)
    for (auto& c : loaded[h].chunks)
      for (const auto& n : c.names) declares.emplace(n, Decl{h, &c});
  auto resolve = [&](const Ref& r, const std::string& from) {
    std::vector<Decl> all, chosen;
    auto [lo, hi] = declares.equal_range(r.name);
    for (auto it = lo; it != hi; ++it) all.push_back(it->second);
    auto last_component = [](const std::string& ns) {
      const size_t k = ns.rfind("::");
      return k == std::string::npos ? ns : ns.substr(k + 2);
    };
    if (!r.qualifier.empty()) {
      for (const Decl& d : all)
        if (last_component(d.chunk->ns) == r.qualifier) chosen.push_back(d);
      return chosen;  // a class member or another library's name when empty
    }
    for (std::string ns = from;;) {
      for (const Decl& d : all)
        if (d.chunk->ns == ns) chosen.push_back(d);
      if (!chosen.empty() || ns.empty()) break;
      const size_t k = ns.rfind("::");
      ns = k == std::string::npos ? "" : ns.substr(0, k);
    }
    return chosen;  // empty: a local, a member, or a name of the standard library
  };
  // Element types the code uses (float4e2m1x2 elements unpack to float4e2m1).
  std::set<std::string> used_types;
  for (const auto& id : identifiers(code_only(code)))
    if (element_types().count(id)) used_types.insert(id);
  if (used_types.count("float4e2m1x2")) used_types.insert("float4e2m1");
  auto needed = [&](const Chunk& c) {
    for (const auto& t : c.types)
      if (!used_types.count(t)) return false;
    return true;
  };
  std::vector<bool> printed(loaded.size(), false);
  // A reference, the namespace it is made in, and whether it is made where every line is
  // compiled: in the generated code or a function that is not a template. What such a place
  // names is used whatever the element types (quant_detail::round_to converts to float16 in a
  // switch on the precision), so it must be defined, not only declared.
  struct Work {
    Ref ref;
    std::string from;
    bool compiled;
  };
  std::vector<Work> work;
  for (const Ref& r : references(code_only(code))) work.push_back({r, "", true});
  std::set<std::string> done;
  while (!work.empty()) {
    const auto [ref, from, compiled] = work.back();
    work.pop_back();
    if (!done.insert(fmt::format("{}::{}/{}@{}{}", ref.qualifier, ref.name, ref.args, from,
                                 compiled ? "!" : ""))
             .second)
      continue;
    for (const Decl& d : resolve(ref, from)) {
      Chunk* c = d.chunk;
      if (c->kept) continue;
      // A call with a known argument count needs only the overloads that accept that count.
      if (ref.args >= 0 && c->min_params >= 0 &&
          (ref.args < c->min_params || ref.args > c->max_params))
        continue;
      if (!compiled && !needed(*c)) {
        // Code for other element types may still name it (in template branches never taken):
        // declare it, without the body that would pull in its dependencies.
        if (c->prototype.empty() || c->prototype_kept) continue;
        c->prototype_kept = true;
        for (const Ref& r : references(code_only(c->prototype))) work.push_back({r, c->ns, false});
      } else {
        c->kept = true;
        const bool body_compiled = !c->is_template;
        for (const Ref& r : c->refs) {
          work.push_back({r, c->ns, body_compiled});
          // Looked up from inside each namespace a directive opens, then outwards as before.
          for (const std::string& u : c->using_namespaces)
            if (r.qualifier.empty())
              work.push_back({r, c->ns.empty() ? u : c->ns + "::" + u, body_compiled});
        }
      }
      if (printed[d.header]) continue;
      printed[d.header] = true;
      for (const auto& a : loaded[d.header].chunks)
        if (a.always)
          for (const Ref& r : a.refs) work.push_back({r, a.ns, false});
    }
  }

  return print_kept_chunks(loaded, printed);
}

}  // namespace onnxc
