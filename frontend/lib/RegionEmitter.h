//===- RegionEmitter.h - where Sym operations emit their ops ---*- C++ -*-===//
//
// Internal to the frontend. One RegionEmitter per region being built. While a user lambda
// runs, its emitter is the thread's current one: Sym operations emit at the end of its block
// and report misuse to it. The first error of a build wins; later ones are consequences.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_FRONTEND_LIB_REGIONEMITTER_H
#define METAATTN_FRONTEND_LIB_REGIONEMITTER_H

#include "metaattn/Frontend/Sym.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"

#include <initializer_list>
#include <memory>
#include <string>

namespace metaattn::frontend::detail {

/// The first error of one build, shared by the emitters of its regions.
struct BuildErrors {
  std::string first;
  void report(const std::string &message) {
    if (first.empty())
      first = message;
  }
};

/// Emits ops at the end of one region's block.
class RegionEmitter : public std::enable_shared_from_this<RegionEmitter> {
public:
  RegionEmitter(mlir::Block *block, mlir::Location loc, std::string regionName,
                std::shared_ptr<BuildErrors> errors)
      : builder(mlir::OpBuilder::atBlockEnd(block)), loc(loc), regionName(std::move(regionName)),
        errors(std::move(errors)) {}

  mlir::OpBuilder &getBuilder() { return builder; }
  mlir::Location getLoc() const { return loc; }
  const std::string &name() const { return regionName; }
  void report(const std::string &message) { errors->report(message); }
  bool hasError() const { return !errors->first.empty(); }

  /// Wraps a value of this region.
  Sym wrap(mlir::Value value) { return Sym(value, shared_from_this()); }
  /// An f32 constant.
  Sym constF32(double value);
  /// An index constant.
  Sym constIndex(int64_t value);
  /// An i1 constant.
  Sym constBool(bool value);

  /// The emitter whose lambda is running on this thread (null outside any lambda).
  static RegionEmitter *current();

  /// Makes `emitter` current for its lifetime; the emitter is closed (its Syms unusable) on
  /// destruction.
  class Scope {
  public:
    explicit Scope(RegionEmitter &emitter);
    ~Scope();
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    RegionEmitter &emitter;
    RegionEmitter *previous;
  };

private:
  mlir::OpBuilder builder;
  mlir::Location loc;
  std::string regionName;
  std::shared_ptr<BuildErrors> errors;
};

/// The MLIR element type of `type`.
mlir::Type toMlirType(mlir::MLIRContext &ctx, DType type);

/// Verifies a module a builder emitted; on failure sets `error` to the verifier's diagnostics.
mlir::LogicalResult verifyBuilt(mlir::ModuleOp module, std::string &error);

/// The current emitter if every operand is a valid Sym of it; otherwise reports why (when a
/// region is being built) and returns null. `what` names the operation in the message.
RegionEmitter *checkOperands(const char *what, std::initializer_list<const Sym *> operands);

} // namespace metaattn::frontend::detail

#endif // METAATTN_FRONTEND_LIB_REGIONEMITTER_H
