//===- AttnDialect.cpp - attn dialect registration ---------------------------===//
#include "metaattn/Dialect/Attn/IR/AttnDialect.h"
#include "metaattn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace metaattn::attn;

#include "metaattn/Dialect/Attn/IR/AttnDialect.cpp.inc"
#include "metaattn/Dialect/Attn/IR/AttnEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "metaattn/Dialect/Attn/IR/AttnAttrs.cpp.inc"

void AttnDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "metaattn/Dialect/Attn/IR/AttnOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "metaattn/Dialect/Attn/IR/AttnAttrs.cpp.inc"
      >();
}
