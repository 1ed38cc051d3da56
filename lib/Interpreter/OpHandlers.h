//===- OpHandlers.h - jfa-interp's table of op handlers ---------*- C++ -*-===//
//
// How jfa-interp runs an op: through the handler registered for the op's
// class in one table keyed by its TypeID, as XLA's MLIR interpreter
// registers its op handlers. Each family of ops registers its handlers from
// its own file (the register*Handlers functions below); CTARun::exec looks
// an op up and reports an op with no handler at its location, naming it,
// so an op the interpreter does not model is never run by a guess.
//
// Adding an op: write its handler in its family's file and add it to that
// file's register function (docs/EXTENDING.md).
//
//===----------------------------------------------------------------------===//
#ifndef JFA_INTERPRETER_OPHANDLERS_H
#define JFA_INTERPRETER_OPHANDLERS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/TypeID.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <utility>

namespace jfa::interp {

class CTARun;
struct Executor;

/// Runs one op on an executor of a CTA.
using OpHandler = std::function<void(CTARun &, Executor &, mlir::Operation *)>;

class OpHandlerTable {
public:
  /// Registers `handler`, called as handler(run, executor, OpT), for OpT.
  template <typename OpT, typename Handler> void add(Handler handler) {
    insert(mlir::TypeID::get<OpT>(), OpT::getOperationName(),
           [handler = std::move(handler)](CTARun &run, Executor &e,
                                          mlir::Operation *op) {
             handler(run, e, llvm::cast<OpT>(op));
           });
  }

  /// Registers `handler`, called with the op as an Operation *, for each of
  /// OpTs.
  template <typename... OpTs> void addForEach(const OpHandler &handler) {
    (insert(mlir::TypeID::get<OpTs>(), OpTs::getOperationName(), handler), ...);
  }

  /// The handler of `op`'s class, or null when there is none.
  const OpHandler *lookup(mlir::Operation *op) const;

private:
  /// A second handler for one op is a programming error (reported at
  /// start-up, whatever the kernel).
  void insert(mlir::TypeID id, llvm::StringRef name, OpHandler handler);

  llvm::DenseMap<mlir::TypeID, OpHandler> handlers;
};

/// The table of every family's handlers, built on first use.
const OpHandlerTable &getOpHandlers();

// The families, one file each.
/// scf.for, scf.while, scf.if (Scheduler.cpp).
void registerControlFlowHandlers(OpHandlerTable &table);
/// arith, math and the tensor ops on register tiles (ArithOps.cpp).
void registerArithHandlers(OpHandlerTable &table);
/// Program and thread ids, ring positions, the debug trap (ScalarOps.cpp).
void registerScalarHandlers(OpHandlerTable &table);
/// Shared-memory buffers and slots, global loads and stores
/// (MemoryOps.cpp).
void registerMemoryHandlers(OpHandlerTable &table);
/// mbarriers, named barriers and proxy fences (BarrierOps.cpp).
void registerBarrierHandlers(OpHandlerTable &table);
/// TMA loads and stores (TMAOps.cpp).
void registerTMAHandlers(OpHandlerTable &table);
/// wgmma, tcgen05 and tensor memory (TensorCoreOps.cpp).
void registerTensorCoreHandlers(OpHandlerTable &table);
/// Row reductions and broadcasts, iota, column masks (RowOps.cpp).
void registerRowOpHandlers(OpHandlerTable &table);
/// Cluster launch control: jfa.try_cancel, jfa.query_cancel
/// (LaunchControlOps.cpp).
void registerLaunchControlHandlers(OpHandlerTable &table);

} // namespace jfa::interp

#endif // JFA_INTERPRETER_OPHANDLERS_H
