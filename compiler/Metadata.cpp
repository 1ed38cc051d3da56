//===- Metadata.cpp - what the runtime needs to launch a kernel -----------===//
//
// JSON (docs/METADATA.md), written with llvm::json; the runtime reads it with
// nlohmann-json, Python with `json`:
//
//   {
//     "format": "jfa-metadata",
//     "version": 2,
//     "imports": ["kernels/lib/work_queue.mlir"],      (when it has any)
//     "kernels": [
//       {
//         "name": "scale_ring",
//         "arch": "sm_90a",
//         "threads": 256,
//         "cluster": [1, 1, 1],
//         "shared_bytes": 81968,
//         "debug_barriers": false,
//         "arguments": [
//           {"kind": "tma", "element_type": "f32", "box": [64, 64],
//            "swizzle": 0},
//           {"kind": "ptr", "element_type": "bf16"},
//           {"kind": "i32"}
//         ],
//         "params": {"head_dim": 64, "causal": true}    (when it has any)
//       }
//     ]
//   }
//
// "arguments" are the kernel's launch parameters, outermost box dimension
// first; "params" are its compile-time parameter values (the kernel's
// `jfa.params` attribute, set by jfa-specialize). The readers also accept an
// optional "variant" string, which this writer does not produce.
//
//===----------------------------------------------------------------------===//
#include "JFA/JFAOps.h"
#include "compiler/Pipeline.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace jfa {

/// The metadata's version: the runtime's jfa::rt::kMetadataVersion and
/// python/jfa/_metadata.py's VERSION read exactly this one; change all three
/// together when a reader of the old version would misread the new.
constexpr int64_t kMetadataVersion = 2;

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// A compile-time parameter's value as JSON: booleans, integers and floats
/// as themselves, anything else as its text.
static llvm::json::Value paramValue(Attribute value) {
  if (auto b = dyn_cast<BoolAttr>(value))
    return b.getValue();
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    if (i.getType().isInteger(1))
      return i.getValue().getBoolValue();
    return i.getValue().getSExtValue();
  }
  if (auto f = dyn_cast<FloatAttr>(value))
    return f.getValueAsDouble();
  if (auto s = dyn_cast<StringAttr>(value))
    return s.getValue().str();
  if (auto t = dyn_cast<TypeAttr>(value))
    return typeName(t.getValue());
  std::string text;
  llvm::raw_string_ostream os(text);
  value.print(os);
  return text;
}

/// One launch parameter, e.g. {"kind": "tma", "element_type": "f32", ...}.
static llvm::json::Object argument(Type t) {
  if (auto desc = dyn_cast<TensorDescType>(t)) {
    llvm::json::Array box;
    for (int64_t d : desc.getBoxShape())
      box.push_back(d);
    return llvm::json::Object{{"kind", "tma"},
                              {"element_type", typeName(desc.getElementType())},
                              {"box", std::move(box)},
                              {"swizzle", int64_t(desc.getSwizzle())}};
  }
  if (auto ptr = dyn_cast<GlobalPtrType>(t))
    return llvm::json::Object{{"kind", "ptr"},
                              {"element_type", typeName(ptr.getElementType())}};
  return llvm::json::Object{{"kind", typeName(t)}};
}

/// A launch parameter (above) plus its "name" as written in the kernel (see
/// kArgNamesAttrName).
static llvm::json::Object argument(Type t, llvm::StringRef name) {
  llvm::json::Object object = argument(t);
  if (!name.empty())
    object["name"] = name.str();
  return object;
}

/// `object`'s members in `keys` order on one line: llvm::json::Object sorts
/// its keys when printed, and an argument reads best as one line.
static void writeOneLine(llvm::json::OStream &json, llvm::json::Object object,
                         llvm::ArrayRef<llvm::StringRef> keys) {
  json.rawValue([&](llvm::raw_ostream &os) {
    llvm::json::OStream line(os);
    line.object([&] {
      for (llvm::StringRef key : keys)
        if (llvm::json::Value *v = object.get(key))
          line.attribute(key, std::move(*v));
    });
  });
}

std::string buildMetadata(ModuleOp module, const Target &target,
                          bool debugBarriers) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("format", "jfa-metadata");
    json.attribute("version", kMetadataVersion);
    // The files the kernels' helpers were imported from (jfa.import), as
    // jfac found them; set by jfa-resolve-imports.
    if (auto imports = module->getAttrOfType<ArrayAttr>("jfa.imports");
        imports && !imports.empty())
      json.attributeArray("imports", [&] {
        for (auto file : imports.getAsRange<StringAttr>())
          json.value(file.getValue());
      });
    json.attributeArray("kernels", [&] {
      for (auto kernel : module.getOps<KernelOp>()) {
        json.object([&] {
          json.attribute("name", kernel.getSymName());
          json.attribute("arch", target.name);
          json.attribute("threads", int64_t(kernel.getNumThreads()));
          SmallVector<int32_t> cluster = {1, 1, 1};
          if (auto dims = kernel.getClusterDims())
            cluster.assign(dims->begin(), dims->end());
          json.attributeBegin("cluster");
          json.rawValue([&](llvm::raw_ostream &line) {
            line << "[" << cluster[0] << ", " << cluster[1] << ", "
                 << cluster[2] << "]";
          });
          json.attributeEnd();
          json.attribute("shared_bytes",
                         int64_t(computeSharedMemoryLayout(kernel).totalBytes));
          json.attribute("debug_barriers", debugBarriers);
          json.attributeArray("arguments", [&] {
            auto names = kernel->getAttrOfType<ArrayAttr>(kArgNamesAttrName);
            for (auto [i, t] :
                 llvm::enumerate(kernel.getFunctionType().getInputs())) {
              llvm::StringRef name;
              if (names && i < names.size())
                if (auto s = dyn_cast<StringAttr>(names[i]))
                  name = s.getValue();
              writeOneLine(json, argument(t, name),
                           {"kind", "element_type", "box", "swizzle", "name"});
            }
          });
          auto *dialect =
              kernel->getContext()->getLoadedDialect<JFADialect>();
          if (auto params = dialect->getParamsAttrHelper().getAttr(kernel))
            json.attributeObject("params", [&] {
              for (NamedAttribute param : params)
                json.attribute(param.getName().getValue(),
                               paramValue(param.getValue()));
            });
        });
      }
    });
  });
  os << "\n";
  return text;
}

} // namespace jfa
