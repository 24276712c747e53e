//===- ResourceReport.cpp - metaattn-run --resource-report --------------------===//
//
// Compiles every kernel of a lowered function with NVRTC and ptxas (no GPU needed) and prints
// what limits it: registers per thread, spills, shared memory, threads, and which gemms run on
// wgmma or mma.sync. The facts a tiling decision is judged by, from the compiler itself.
//
//===----------------------------------------------------------------------===//

#include "AttentionProblem.h"

#include "metaattn/Runtime/Compiler.h"

#include "llvm/Support/raw_ostream.h"

#include <regex>

using namespace metaattn;

namespace {

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace

mlir::LogicalResult run::printResourceReport(const std::vector<LoweredKernel> &kernels,
                                             const std::string &arch, llvm::raw_ostream &os,
                                             std::string &error) {
  for (const LoweredKernel &kernel : kernels) {
    rt::CompileOptions options;
    options.arch = arch;
    options.wantPtx = true;
    options.wantCubin = true;
    options.lineInfo = false;
    options.extraFlags = {"--ptxas-options=-v"};
    auto compiled = rt::compileCuda(kernel.cudaSource, kernel.name + ".cu", options);
    if (!compiled.ok()) {
      error = "kernel " + kernel.name + ": " + std::string(compiled.status().message());
      return mlir::failure();
    }
    const std::string &log = compiled->log;
    std::smatch m;
    std::string registers = "?", spillStores = "0", spillLoads = "0";
    if (std::regex_search(log, m, std::regex("Used ([0-9]+) registers")))
      registers = m[1];
    if (std::regex_search(log, m,
                          std::regex("([0-9]+) bytes spill stores, ([0-9]+) bytes spill "
                                     "loads"))) {
      spillStores = m[1];
      spillLoads = m[2];
    }
    const rt::KernelSignature &sig = kernel.signature;
    os << "  resources " << kernel.name << " (" << arch << "): " << registers
       << " registers/thread, spills " << spillStores << " B stored / " << spillLoads
       << " B loaded, " << sig.dynamicSharedBytes << " B dynamic shared, " << sig.threads
       << " threads" << (sig.persistent ? ", persistent" : "")
       << "; gemms: " << count(kernel.cudaSource, "wg::gemm") << " wgmma, "
       << count(kernel.cudaSource, "warp::gemm") << " mma.sync\n";
    // The softmax's shift, where an option changed it (the emitter's header, the guards).
    if (std::regex_search(kernel.cudaSource, m, std::regex("// Shift: the constant ([^ ]+) ")))
      os << "    shift: the constant " << m[1].str() << " (a bounded score; no row maximum)\n";
    if (size_t guards = count(kernel.cudaSource, "// tile.skip_unit_scale"))
      os << "    rescale: skipped in threads whose factors are all 1 (" << guards << " loop"
         << (guards == 1 ? "" : "s") << ")\n";
    // A stack frame without spills holds arrays in local memory that ptxas could not keep in
    // registers, such as a fragment indexed by a loop it did not unroll (NVRTC's -Ofc=mid
    // does that to the softmax kernels: 1120 B).
    if (spillStores == "0" && std::regex_search(log, m, std::regex("([0-9]+) bytes stack frame")) &&
        m[1] != "0")
      os << "    warning: " << m[1] << " B stack frame (arrays in local memory)\n";
    // ptxas says why ("... are serialized due to <reason> in (or: for) the function 'f'"):
    // print the reason, which names what to change in the kernel.
    if (std::regex_search(log, m,
                          std::regex("serialized due to ([^\n]*?) (?:in|for) the function")))
      os << "    warning: ptxas serialized the wgmma instructions, due to " << m[1].str() << "\n";
    else if (log.find("serialized") != std::string::npos)
      os << "    warning: ptxas serialized the wgmma instructions (see --dump-cuda and ptxas)\n";
  }
  return mlir::success();
}
