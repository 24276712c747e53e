//===- metaattn-opt.cpp - mlir-opt with metaattn's dialects and passes ----===//
#include "metaattn/Dialect/Attn/IR/AttnDialect.h"
#include "metaattn/Conversion/AttnToTile/AttnToTile.h"
#include "metaattn/Dialect/Attn/Transforms/Passes.h"
#include "metaattn/Dialect/Tile/Transforms/Passes.h"
#include "metaattn/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<metaattn::attn::AttnDialect, metaattn::tile::TileDialect,
                  mlir::arith::ArithDialect, mlir::math::MathDialect, mlir::func::FuncDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                  mlir::tensor::TensorDialect>();
  metaattn::attn::registerAttnTransformsPasses();
  metaattn::registerAttnToTilePasses();
  metaattn::tile::registerTileTransformsPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "metaattn optimizer driver\n", registry));
}
