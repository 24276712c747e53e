//===- AttentionIR.h - attn IR text for pipeline tests ----------*- C++ -*-===//
//
// Writes softmax attention functions as attn IR text, independently of the frontend builder,
// so the lowering tests do not depend on it.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_TESTS_UNIT_PIPELINE_ATTENTIONIR_H
#define METAATTN_TESTS_UNIT_PIPELINE_ATTENTIONIR_H

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace metaattn::irtext {

#ifdef METAATTN_VARIANTS_DIR
/// The library's variant files (frontend/variants/*.mlir), their names sorted.
inline std::vector<std::string> variantFiles() {
  std::vector<std::string> files;
  for (const auto &entry : std::filesystem::directory_iterator(METAATTN_VARIANTS_DIR))
    if (entry.path().extension() == ".mlir")
      files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}
#endif

struct SoftmaxShape {
  int heads = 4, kvHeads = 4, dim = 64, valueDim = 64;
  bool causal = false;
  bool lse = true;
  std::string dtype = "bf16";
};

/// A softmax shape: heads, kv heads, head dims, causal, element type.
inline SoftmaxShape shape(int h, int hkv, int d, int dv, bool causal, const char *dtype = "bf16") {
  SoftmaxShape s;
  s.heads = h;
  s.kvHeads = hkv;
  s.dim = d;
  s.valueDim = dv;
  s.causal = causal;
  s.dtype = dtype;
  return s;
}

/// `func.func @<name>(q, k, v) -> (o[, lse])` holding one softmax attn.attention.
inline std::string softmaxIR(const SoftmaxShape &s, const std::string &name = "attention") {
  auto t = [&](int h, int d) {
    return "tensor<?x?x" + std::to_string(h) + "x" + std::to_string(d) + "x" + s.dtype + ">";
  };
  std::string q = t(s.heads, s.dim), k = t(s.kvHeads, s.dim), v = t(s.kvHeads, s.valueDim),
              o = t(s.heads, s.valueDim);
  std::string lse = "tensor<?x" + std::to_string(s.heads) + "x?xf32>";
  std::string results = s.lse ? "(" + o + ", " + lse + ")" : o;
  char scale[32];
  std::snprintf(scale, sizeof(scale), "%.9e", 1.0 / std::sqrt(double(s.dim)));
  std::string idx = "%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index";
  std::string mask = s.causal ? "      %off = arith.subi %skv, %sq : index\n"
                                "      %lim = arith.addi %qi, %off : index\n"
                                "      %m = arith.cmpi sle, %ki, %lim : index\n"
                                "      attn.yield %m : i1\n"
                              : "      %m = arith.constant true\n"
                                "      attn.yield %m : i1\n";
  return "func.func @" + name + "(%q: " + q + ", %k: " + k + ", %v: " + v + ") -> " + results +
         " {\n  " + (s.lse ? "%o, %l" : "%o") + " = attn.attention %q, %k, %v\n" +
         "    score {\n    ^bb0(%s: f32, " + idx + "):\n" + "      %c = arith.constant " + scale +
         " : f32\n" + "      %r = arith.mulf %s, %c : f32\n      attn.yield %r : f32\n" +
         "    } mask {\n    ^bb0(" + idx + "):\n" + mask +
         "    } normalizer {\n    ^bb0(%s: f32, " + idx + "):\n" +
         "      %mx = attn.row_reduce max %s : f32\n" +
         "      %d = arith.subf %s, %mx : f32\n      %w = math.exp %d : f32\n" +
         "      %z = attn.row_reduce sum %w : f32\n      attn.normalize %w, %z : f32, f32\n" +
         "    } : " + q + ", " + k + ", " + v + " -> " + o + (s.lse ? ", " + lse : "") + "\n" +
         "  return " + (s.lse ? "%o, %l : " + o + ", " + lse : "%o : " + o) + "\n}\n";
}

} // namespace metaattn::irtext

#endif // METAATTN_TESTS_UNIT_PIPELINE_ATTENTIONIR_H
