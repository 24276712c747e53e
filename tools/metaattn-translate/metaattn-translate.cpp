//===- metaattn-translate.cpp - tile IR to CUDA / HIP source ----------------===//
#include "metaattn/Support/CommandLine.h"
#include "metaattn/Target/CUDA/CUDAEmitter.h"

#include "mlir/Support/LogicalResult.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  metaattn::hideLibraryOptions();
  metaattn::registerTileToCudaTranslation();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "metaattn translation driver\n")) ? 1 : 0;
}
