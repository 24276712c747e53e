//===- TileDialect.cpp - tile dialect registration, types and attributes -===//
#include "metaattn/Dialect/Tile/IR/TileDialect.h"
#include "metaattn/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace metaattn::tile;

#include "metaattn/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "metaattn/Dialect/Tile/IR/TileEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "metaattn/Dialect/Tile/IR/TileAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "metaattn/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "metaattn/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "metaattn/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "metaattn/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// GlobalTensorType: !tile.tensor<?x?x8x64xbf16>
//===----------------------------------------------------------------------===//

Type GlobalTensorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() || parser.parseDimensionList(shape, /*allowDynamic=*/true) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  if (!elementType.isIntOrIndexOrFloat()) {
    parser.emitError(parser.getNameLoc(), "tile.tensor element type must be a scalar, found ")
        << elementType;
    return {};
  }
  if (shape.empty()) {
    parser.emitError(parser.getNameLoc(), "tile.tensor must have rank >= 1");
    return {};
  }
  return GlobalTensorType::get(parser.getContext(), shape, elementType);
}

void GlobalTensorType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getShape());
  printer << "x" << getElementType() << ">";
}

//===----------------------------------------------------------------------===//
// FragmentLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult FragmentLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         StringRef kind, unsigned warps) {
  if (kind != "mma" && kind != "row" && kind != "col")
    return emitError() << "fragment layout kind must be \"mma\", \"row\" or \"col\", found \""
                       << kind << "\"";
  if (warps == 0 || warps > 32)
    return emitError() << "fragment layout needs 1 to 32 warps, found " << warps;
  return success();
}
