//===- TileDialect.h - tile dialect ------------------------------*- C++ -*-===//
#ifndef METAATTN_DIALECT_TILE_IR_TILEDIALECT_H
#define METAATTN_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dialect.h"

#include "metaattn/Dialect/Tile/IR/TileDialect.h.inc"

#endif // METAATTN_DIALECT_TILE_IR_TILEDIALECT_H
