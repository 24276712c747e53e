//===- CommandLine.h - command-line help of the MLIR-based tools -*- C++ -*-===//
#ifndef METAATTN_SUPPORT_COMMANDLINE_H
#define METAATTN_SUPPORT_COMMANDLINE_H

#include "llvm/Support/CommandLine.h"

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

} // namespace metaattn

#endif // METAATTN_SUPPORT_COMMANDLINE_H
