//===- metaattn-opt.cpp - mlir-opt with metaattn's dialects and passes ----===//
#include "metaattn/Conversion/AttnToTile/AttnToTile.h"
#include "metaattn/Dialect/Attn/Transforms/Passes.h"
#include "metaattn/Dialect/Tile/Transforms/Passes.h"
#include "metaattn/Pipeline/Pipeline.h"
#include "metaattn/Support/CommandLine.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  metaattn::hideLibraryOptions();
  mlir::DialectRegistry registry;
  metaattn::registerMetaAttnDialects(registry);
  metaattn::attn::registerAttnTransformsPasses();
  metaattn::registerAttnToTilePasses();
  metaattn::tile::registerTileTransformsPasses();
  metaattn::registerMetaAttnPipelines();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "metaattn optimizer driver\n", registry));
}
