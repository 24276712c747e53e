//===- CommandLine.h - command-line help of the MLIR-based tools -*- C++ -*-===//
#ifndef METAATTN_SUPPORT_COMMANDLINE_H
#define METAATTN_SUPPORT_COMMANDLINE_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace metaattn {

/// Hides from --help every command-line option registered so far: the hundreds of backend
/// options (aarch64-*, amdgpu-*, x86-*) that LLVM's libraries register before main. Call it
/// first in main of a tool built on MlirOptMain or mlirTranslateMain, which register their own
/// options afterwards (those stay listed); hidden options still work, and --help-hidden lists
/// them.
inline void hideLibraryOptions() {
  for (auto &entry : llvm::cl::getRegisteredOptions())
    if (entry.first != "help" && entry.first != "help-hidden" && entry.first != "help-list" &&
        entry.first != "version")
      entry.second->setHiddenFlag(llvm::cl::Hidden);
}

/// Ends a tool after a failure without running static destructors or LLVM's shutdown (the
/// output streams are flushed first). MLIR 22's generated op parsers destroy the regions they
/// have parsed when a later part of the op fails to parse; if a block argument of such a
/// region had resolved a forward reference of another op (`%0 = arith.mulf %arg4, ...` at the
/// top of a file whose attn.attention names a block argument `%arg4`, then a syntax error in a
/// later region), that op is left pointing into freed memory and tearing it down corrupts the
/// heap (found by fuzzing; valgrind: Operation::dropAllReferences after Region::~Region in
/// the op's generated parse). The diagnostic has been printed by then: exit with the failure
/// code instead of aborting in the teardown.
[[noreturn]] inline void exitAfterFailure(int code) {
  llvm::outs().flush();
  llvm::errs().flush();
  std::_Exit(code);
}

} // namespace metaattn

#endif // METAATTN_SUPPORT_COMMANDLINE_H
