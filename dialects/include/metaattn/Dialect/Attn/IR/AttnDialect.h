//===- AttnDialect.h - attn dialect ------------------------------*- C++ -*-===//
#ifndef METAATTN_DIALECT_ATTN_IR_ATTNDIALECT_H
#define METAATTN_DIALECT_ATTN_IR_ATTNDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Dialect.h"

#include "metaattn/Dialect/Attn/IR/AttnDialect.h.inc"

#endif // METAATTN_DIALECT_ATTN_IR_ATTNDIALECT_H
