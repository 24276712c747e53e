//===- metaattn-opt.cpp - mlir-opt with metaattn's dialects and passes ----===//
#include "metaattn/Conversion/AttnToTile/AttnToTile.h"
#include "metaattn/Dialect/Attn/Transforms/Passes.h"
#include "metaattn/Dialect/Tile/Transforms/Passes.h"
#include "metaattn/Pipeline/Pipeline.h"
#include "metaattn/Support/CommandLine.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  // MlirOptMain(argc, argv, ...) tears LLVM down itself on the way out, also after a failure;
  // this main owns that step so that a failure can skip it (exitAfterFailure).
  llvm::InitLLVM init(argc, argv);
  metaattn::hideLibraryOptions();
  mlir::DialectRegistry registry;
  metaattn::registerMetaAttnDialects(registry);
  metaattn::attn::registerAttnTransformsPasses();
  metaattn::registerAttnToTilePasses();
  metaattn::tile::registerTileTransformsPasses();
  metaattn::registerMetaAttnPipelines();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  auto [inputFilename, outputFilename] =
      mlir::registerAndParseCLIOptions(argc, argv, "metaattn optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "metaattn-opt: " << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "metaattn-opt: " << error << "\n";
    return 1;
  }
  // A plain run parses the input once here first: a file that does not parse ends the tool
  // right after its diagnostic (exitAfterFailure), before MlirOptMain's own teardown.
  if (!config.shouldVerifyDiagnostics() && config.inputSplitMarker().empty()) {
    mlir::MLIRContext context(registry);
    context.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
    auto sourceMgr = std::make_shared<llvm::SourceMgr>();
    sourceMgr->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(
                                      input->getMemBufferRef(), /*RequiresNullTerminator=*/false),
                                  llvm::SMLoc());
    mlir::SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
    mlir::ParserConfig parserConfig(&context, /*verifyAfterParse=*/false);
    mlir::Block parsed;
    if (mlir::failed(mlir::parseSourceFile(sourceMgr, &parsed, parserConfig))) {
      if (outputFilename != "-")
        llvm::sys::fs::remove(outputFilename);
      metaattn::exitAfterFailure(1);
    }
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry, config))) {
    if (outputFilename != "-")
      llvm::sys::fs::remove(outputFilename);
    metaattn::exitAfterFailure(1);
  }
  output->keep();
  return 0;
}
