//===- Tuning.cpp - tuned tile sizes, kept in a tuning file ------------------===//
#include "metaattn/Pipeline/Tuning.h"

#include "metaattn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace mlir;
using namespace metaattn;

std::string metaattn::attentionSignature(Operation *op) {
  // The generic form in a local scope: the regions with their own value numbering, the
  // attributes, and the operand and result types (dynamic batch and sequence dims). Operands
  // defined outside print as unknown values, so the enclosing function does not matter.
  Attribute config = op->getAttr(attn::kTileConfigAttr);
  if (config)
    op->removeAttr(attn::kTileConfigAttr);
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  if (config)
    op->setAttr(attn::kTileConfigAttr, config);
  return llvm::utohexstr(llvm::xxh3_64bits(text), /*LowerCase=*/true, /*Width=*/16);
}

rt::StatusOr<TuningTable> TuningTable::load(const std::string &path) {
  TuningTable table;
  std::ifstream in(path);
  if (!in)
    return table; // no file yet: nothing tuned
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    llvm::StringRef rest = llvm::StringRef(line).trim();
    if (rest.empty() || rest.starts_with("#"))
      continue;
    TunedConfig config;
    auto [fields, note] = rest.split('#');
    config.note = note.trim().str();
    llvm::SmallVector<llvm::StringRef> words;
    fields.split(words, ' ', -1, /*KeepEmpty=*/false);
    if (words.size() < 3)
      return rt::Status::error("{}:{}: expected '<arch> <signature> key=value...', got '{}'", path,
                               number, line);
    for (llvm::StringRef word : llvm::ArrayRef(words).drop_front(2)) {
      auto [key, value] = word.split('=');
      int64_t *slot = key == "block_m"    ? &config.blockM
                      : key == "block_n"  ? &config.blockN
                      : key == "warps"    ? &config.warps
                      : key == "stages"   ? &config.stages
                      : key == "pingpong" ? &config.pingpong
                                          : nullptr;
      bool bad = false;
      if (slot) {
        bad = value.getAsInteger(10, *slot) || *slot < 0 || (key == "pingpong" && *slot > 1);
      } else if (key == "tflops") {
        bad = value.getAsDouble(config.tflops);
      } else {
        return rt::Status::error("{}:{}: unknown key '{}' (expected block_m, block_n, warps, "
                                 "stages, pingpong or tflops)",
                                 path, number, key.str());
      }
      if (bad)
        return rt::Status::error("{}:{}: '{}' is not a valid value for {}", path, number,
                                 value.str(), key.str());
    }
    table.set(words[0], words[1], config);
  }
  return table;
}

rt::Status TuningTable::save(const std::string &path) const {
  std::ostringstream out;
  out << "# metaattn tuning file: <arch> <signature> tile sizes (see metaattn/Pipeline/Tuning.h)\n";
  for (const auto &[key, c] : entries) {
    out << key.first << ' ' << key.second << " block_m=" << c.blockM << " block_n=" << c.blockN
        << " warps=" << c.warps << " stages=" << c.stages;
    if (c.pingpong >= 0)
      out << " pingpong=" << c.pingpong;
    if (c.tflops > 0)
      out << " tflops=" << c.tflops;
    if (!c.note.empty())
      out << " # " << c.note;
    out << '\n';
  }
  std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << out.str();
    if (!file)
      return rt::Status::error("cannot write the tuning file '{}'", temporary);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    return rt::Status::error("cannot move '{}' to '{}'", temporary, path);
  return rt::Status::success();
}

const TunedConfig *TuningTable::lookup(llvm::StringRef arch, llvm::StringRef signature) const {
  auto it = entries.find({arch.str(), signature.str()});
  return it == entries.end() ? nullptr : &it->second;
}

void TuningTable::set(llvm::StringRef arch, llvm::StringRef signature, TunedConfig config) {
  entries[{arch.str(), signature.str()}] = std::move(config);
}

unsigned metaattn::applyTuning(ModuleOp module, const TuningTable &table, llvm::StringRef arch) {
  unsigned applied = 0;
  module.walk([&](attn::AttentionOp op) {
    const TunedConfig *config = table.lookup(arch, attentionSignature(op));
    if (!config)
      return;
    Builder b(op.getContext());
    SmallVector<NamedAttribute> fields{
        b.getNamedAttr("block_m", b.getI64IntegerAttr(config->blockM)),
        b.getNamedAttr("block_n", b.getI64IntegerAttr(config->blockN)),
        b.getNamedAttr("warps", b.getI64IntegerAttr(config->warps)),
        b.getNamedAttr("stages", b.getI64IntegerAttr(config->stages))};
    if (config->pingpong >= 0)
      fields.push_back(b.getNamedAttr("pingpong", b.getI64IntegerAttr(config->pingpong)));
    op->setAttr(attn::kTileConfigAttr, b.getDictionaryAttr(fields));
    ++applied;
  });
  return applied;
}

std::string metaattn::defaultTuningFile() {
  const char *env = std::getenv("METAATTN_TUNING_FILE");
  return env ? env : "";
}
