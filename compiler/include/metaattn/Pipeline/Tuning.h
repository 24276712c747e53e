//===- Tuning.h - tuned tile sizes, kept in a tuning file -------*- C++ -*-===//
//
// Autotuning (metaattn-run --autotune) times candidate tile sizes of an attention on the GPU
// and records the fastest in a tuning file; lowering a module with that file puts the recorded
// sizes on each attn.attention it knows as `attn.tile_config`, which convert-attn-to-tile
// honours. Entries are keyed by the target architecture and the op's signature — a hash of the
// op as written (its regions, custom inputs and tensor types: head counts, head dims, dtype),
// never of a sequence length, which is dynamic in the types — so one tuning serves every
// length and every module holding the same variant. Tile sizes timed under one kernel schedule
// are not taken for another: the arch field is the target plus the schedule's departures from
// the default (`sm_90a+no-ws` for --warp-specialize=false, `+pingpong`, `+no-gemm-overlap`;
// metaattn::tuningArch in Pipeline.h).
//
// An entry may also pin the ping-pong schedule (`pingpong=0|1`): autotuning times each tile
// size with and without it where the two differ, so a variant the tile model misjudges gets
// what was measured faster on that GPU. Without the key the model decides (TileConfig.h).
//
// File format, one entry per line (`#` starts a comment line):
//   <arch> <signature> block_m=<n> block_n=<n> warps=<n> stages=<n> [pingpong=<0|1>]
//     [tflops=<x>] [# note]
//
//===----------------------------------------------------------------------===//
#ifndef METAATTN_PIPELINE_TUNING_H
#define METAATTN_PIPELINE_TUNING_H

#include "metaattn/Runtime/Status.h"

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <string>

namespace metaattn {

/// Tile sizes of one attention (0: from the model), with the speed they were measured at.
struct TunedConfig {
  int64_t blockM = 0, blockN = 0, warps = 0, stages = 0;
  double tflops = 0;
  /// Free text kept after `#` (e.g. the shape it was tuned at).
  std::string note;
  /// The ping-pong schedule: -1 as the tile model decides, 0 off, 1 on.
  int64_t pingpong = -1;
  bool operator==(const TunedConfig &o) const {
    return blockM == o.blockM && blockN == o.blockN && warps == o.warps && stages == o.stages &&
           pingpong == o.pingpong;
  }
};

/// The signature of an attn.attention (16 hex digits): the same for the same variant, head
/// counts, head dims and dtype in any module and at any length; attn.tile_config is ignored.
std::string attentionSignature(mlir::Operation *op);

class TuningTable {
public:
  /// Reads `path`; a missing file is an empty table, a malformed line an error naming it.
  static rt::StatusOr<TuningTable> load(const std::string &path);
  /// Writes the table to `path` (through a temporary file renamed into place).
  rt::Status save(const std::string &path) const;

  /// The entry for (arch, signature), or null.
  const TunedConfig *lookup(llvm::StringRef arch, llvm::StringRef signature) const;
  void set(llvm::StringRef arch, llvm::StringRef signature, TunedConfig config);
  size_t size() const { return entries.size(); }

private:
  std::map<std::pair<std::string, std::string>, TunedConfig> entries;
};

/// Sets attn.tile_config on every attn.attention of `module` whose (arch, signature) the table
/// holds; returns how many ops it set.
unsigned applyTuning(mlir::ModuleOp module, const TuningTable &table, llvm::StringRef arch);

/// The tuning file metaattn uses when none is given: $METAATTN_TUNING_FILE, else empty (none).
std::string defaultTuningFile();

} // namespace metaattn

#endif // METAATTN_PIPELINE_TUNING_H
