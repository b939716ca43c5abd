// onnxc's passes over the module clang compiled, before code generation. Before the optimiser
// (optimizer.cpp): all but the model's entry points become internal, and small kernels called
// from a few nodes are cloned per node for their constant parameters (what g++'s IPA-CP does;
// LLVM's optimiser then folds and inlines). After it: the weights become one constant array
// written from onnxc's bytes (never parsed from C++ text), the module gets a stable name, and the
// symbols the object leaves undefined are checked.
#include <llvm/ADT/StringRef.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Pass.h>
#include <llvm/Support/Alignment.h>
#include <llvm/Transforms/IPO.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "llvm_backend/llvm_internal.h"

namespace onnxc {
namespace {

// The section the weights go to: a .rodata section, so that a microcontroller's linker script
// places it in flash, named so that a script (or `size -A`) can find it.
constexpr const char* kWeightsSection = ".rodata.onnxc_weights";
constexpr uint64_t kWeightsAlignment = 64;  // codegen lays each constant out 64-byte aligned

// The C library functions the generated code may leave to the linker: the memory functions
// LLVM's intrinsics lower to, the string functions the string kernels' std::char_traits calls
// become (strlen, memchr, memcmp, and bcmp, LLVM's spelling of an equality-only memcmp; newlib has
// them all), and libm (each of its double functions, with its float and long double twins).
bool is_allowed_undefined(llvm::StringRef name) {
  static const llvm::StringSet<> kMemory = {"memcpy", "memset", "memmove", "memcmp",
                                            "bcmp",   "memchr", "strlen"};
  static const llvm::StringSet<> kLibm = {
      "acos",      "acosh",     "asin",       "asinh",  "atan",      "atan2",  "atanh",   "cbrt",
      "ceil",      "copysign",  "cos",        "cosh",   "erf",       "erfc",   "exp",     "exp2",
      "expm1",     "fabs",      "fdim",       "floor",  "fma",       "fmax",   "fmin",    "fmod",
      "frexp",     "hypot",     "ilogb",      "ldexp",  "lgamma",    "llrint", "llround", "log",
      "log10",     "log1p",     "log2",       "logb",   "lrint",     "lround", "modf",    "nan",
      "nearbyint", "nextafter", "nexttoward", "pow",    "remainder", "remquo", "rint",    "round",
      "scalbln",   "scalbn",    "sin",        "sincos", "sinh",      "sqrt",   "tan",     "tanh",
      "tgamma",    "trunc"};
  if (kMemory.contains(name) || kLibm.contains(name)) return true;
  if (name.endswith("f") || name.endswith("l")) return kLibm.contains(name.drop_back());
  return false;
}

// libwebp's and OpenJPEG's API, which ImageDecoder's library decoders call (onnxc/image_system.h).
bool is_image_library_function(llvm::StringRef name) {
  return name.startswith("WebP") || name.startswith("opj_");
}

}  // namespace

std::string define_weights(llvm::Module& module, const LlvmSource& source) {
  if (source.weights_symbol.empty()) return "";
  llvm::GlobalVariable* weights = module.getGlobalVariable(source.weights_symbol);
  if (!weights) return "";  // nothing reads a weight: clang dropped the declaration
  const std::vector<uint8_t>& bytes = *source.weights;
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* type = llvm::ArrayType::get(llvm::Type::getInt8Ty(context), bytes.size());
  if (weights->getValueType() != type)
    return "internal: the weights' declaration does not have the size of their bytes";
  weights->setInitializer(llvm::ConstantDataArray::getRaw(
      llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), bytes.size(),
      llvm::Type::getInt8Ty(context)));
  weights->setConstant(true);
  weights->setLinkage(llvm::GlobalValue::InternalLinkage);
  weights->setAlignment(llvm::Align(kWeightsAlignment));
  weights->setSection(kWeightsSection);
  return "";
}

void internalize_all_but_entry_points(llvm::Module& module, const LlvmSource& source) {
  const std::string& ns = source.model_namespace;
  // NS::run(...) is _ZN<length>NS3run...; the C entry is NS_run.
  const std::string mangled_run = "_ZN" + std::to_string(ns.size()) + ns + "3run";
  auto entry_point = [&](llvm::StringRef name) {
    return name == ns + "_run" || name.startswith(mangled_run);
  };
  for (llvm::GlobalValue& value : module.global_values())
    if (!value.isDeclaration() && !value.hasLocalLinkage() && !entry_point(value.getName())) {
      value.setLinkage(llvm::GlobalValue::InternalLinkage);
      if (auto* object = llvm::dyn_cast<llvm::GlobalObject>(&value)) object->setComdat(nullptr);
    }
  llvm::legacy::PassManager passes;
  passes.add(llvm::createGlobalDCEPass());
  passes.run(module);
}

namespace {

// The arguments of `call` that are constant globals with a known value (the generated code's
// `static constexpr` parameter structs), as (index, global); empty when it has none.
std::vector<std::pair<unsigned, llvm::GlobalVariable*>> constant_arguments(llvm::CallBase& call) {
  std::vector<std::pair<unsigned, llvm::GlobalVariable*>> found;
  const llvm::Function* callee = call.getCalledFunction();
  for (unsigned i = 0; i < call.arg_size() && i < callee->arg_size(); ++i) {
    auto* global = llvm::dyn_cast<llvm::GlobalVariable>(call.getArgOperand(i)->stripPointerCasts());
    if (global && global->isConstant() && global->hasDefinitiveInitializer())
      found.push_back({i, global});
  }
  return found;
}

// The direct calls of `f`, or nothing when something else uses it (its address, itself).
std::vector<llvm::CallBase*> direct_calls(llvm::Function& f) {
  std::vector<llvm::CallBase*> calls;
  for (llvm::User* user : f.users()) {
    auto* call = llvm::dyn_cast<llvm::CallBase>(user);
    if (!call || call->getCalledFunction() != &f || call->getFunction() == &f) return {};
    calls.push_back(call);
  }
  return calls;
}

}  // namespace

void specialize_constant_arguments(llvm::Module& module) {
  // A kernel called from a few nodes is cloned per node (a single call site the inliner already
  // treats so); one called from many (a ResNet's convolutions) is left alone: code size.
  constexpr size_t kMaxCallSites = 4;
  constexpr unsigned kMaxInstructions = 2000;
  std::vector<llvm::Function*> candidates;
  for (llvm::Function& f : module)
    if (!f.isDeclaration() && f.hasLocalLinkage() && f.getInstructionCount() <= kMaxInstructions)
      candidates.push_back(&f);
  for (llvm::Function* f : candidates) {
    const std::vector<llvm::CallBase*> calls = direct_calls(*f);
    if (calls.size() < 2 || calls.size() > kMaxCallSites) continue;
    for (llvm::CallBase* call : calls) {
      const auto constants = constant_arguments(*call);
      if (constants.empty()) continue;
      llvm::ValueToValueMapTy map;
      llvm::Function* clone = llvm::CloneFunction(f, map);
      for (const auto& [index, global] : constants) {
        llvm::Argument* argument = clone->getArg(index);
        argument->replaceAllUsesWith(
            llvm::ConstantExpr::getPointerBitCastOrAddrSpaceCast(global, argument->getType()));
      }
      call->setCalledFunction(clone);
    }
  }
}

void set_stable_names(llvm::Module& module, const LlvmSource& source) {
  module.setModuleIdentifier(source.file_name);
  module.setSourceFileName(source.file_name);
}

std::string check_undefined_symbols(llvm::Module& module, bool image_libs) {
  for (llvm::Function& f : llvm::make_early_inc_range(module.functions()))
    if (f.isDeclaration() && f.use_empty()) f.eraseFromParent();
  for (llvm::GlobalVariable& g : llvm::make_early_inc_range(module.globals()))
    if (g.isDeclaration() && g.use_empty()) g.eraseFromParent();
  for (const llvm::Function& f : module.functions())
    if (f.isDeclaration() && !f.isIntrinsic() && !is_allowed_undefined(f.getName()) &&
        !(image_libs && is_image_library_function(f.getName())))
      return "the generated code calls '" + f.getName().str() +
             "', which is neither a C memory or string function (memcpy, memset, memmove, "
             "memcmp, memchr, strlen) nor libm";
  // The one variable: the CPU feature record of libgcc (and compiler-rt), which the run-time ISA
  // dispatch of x86-64 baseline code reads (onnxc/base.h); every hosted x86-64 link has it.
  static const llvm::StringSet<> kCpuRecord = {"__cpu_model", "__cpu_features2"};
  for (const llvm::GlobalVariable& g : module.globals())
    if (g.isDeclaration() && !kCpuRecord.contains(g.getName()))
      return "the generated code reads the undefined variable '" + g.getName().str() + "'";
  return "";
}

}  // namespace onnxc
