//===- JFAOps.cpp - JFA operations
//------------------------------------------===//
#include "JFA/JFAOps.h"
#include "JFA/HelperOps.h"
#include "JFA/MmaTypes.h"
#include "JFA/TaskInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace jfa;

#include "JFA/JFAAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "JFA/JFAOps.cpp.inc"

LogicalResult jfa::verifyInKernel(Operation *op) {
  // jfa.import lives at module level (its own HasParent<ModuleOp>).
  if (isa<ImportOp>(op))
    return success();
  if (!op->getParentOfType<KernelOp>() && !op->getParentOfType<FuncOp>())
    return op->emitOpError()
           << "must be inside a jfa.kernel (or a jfa.func helper)";
  return success();
}

//===----------------------------------------------------------------------===//
// FuncOp, ReturnOp, CallOp
//===----------------------------------------------------------------------===//

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  SMLoc loc = parser.getCurrentLocation();
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  if (function_interface_impl::parseFunctionOp(
          parser, result, /*allowVariadic=*/false,
          getFunctionTypeAttrName(result.name), buildFuncType,
          getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name)))
    return failure();
  if (result.regions.front()->empty())
    return parser.emitError(parser.getCurrentLocation())
           << "a jfa.func needs a body";
  // Dropped silently by the generated accessors if of another kind.
  if (Attribute stages = result.attributes.get("stage_parameter");
      stages && !isa<IntegerAttr>(stages))
    return parser.emitError(loc)
           << "stage_parameter must be an integer (a ring's slot count), got "
           << stages;
  if (Attribute rows = result.attributes.get("rows_parameter");
      rows && !isa<IntegerAttr>(rows))
    return parser.emitError(loc)
           << "rows_parameter must be an integer (a tile's row count), got "
           << rows;
  if (Attribute element = result.attributes.get("element_parameter");
      element && !isa<TypeAttr>(element))
    return parser.emitError(loc)
           << "element_parameter must be a type (a shared-memory element, "
              "e.g. bf16), got "
           << element;
  if (Attribute layout = result.attributes.get("layout_parameter");
      layout && !isa<TileLayoutAttrInterface>(layout))
    return parser.emitError(loc)
           << "layout_parameter must be a tile layout (e.g. #jfa.wgmma_acc), "
              "got "
           << layout;
  return success();
}

void FuncOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult FuncOp::verifyRegions() {
  if (!isa_and_nonnull<ModuleOp>((*this)->getParentOp()))
    return emitOpError() << "helpers are defined at module level, beside the "
                            "kernels";
  Block &body = getBody().front();
  if (body.getNumArguments() != getFunctionType().getNumInputs())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments but the signature has "
                         << getFunctionType().getNumInputs();
  for (auto [i, arg] : llvm::enumerate(body.getArguments()))
    if (arg.getType() != getFunctionType().getInput(i))
      return emitOpError() << "argument " << i << " type mismatch";
  if (Attribute param = getLayoutParameterAttr()) {
    bool used = false;
    Type(getFunctionType()).walk([&](Attribute attr) {
      used |= attr == param;
    });
    if (!used)
      return emitOpError() << "names " << param
                           << " its layout parameter, but no argument or "
                              "result type holds it";
  }
  if (failed(verifyElementParameter()) || failed(verifyRowsParameter()))
    return failure();
  return verifyStageParameter();
}

LogicalResult ReturnOp::verify() {
  auto func = (*this)->getParentOfType<FuncOp>();
  ArrayRef<Type> results = func.getFunctionType().getResults();
  if (getOperands().size() != results.size())
    return emitOpError() << "returns " << getOperands().size()
                         << " values but @" << func.getSymName() << " returns "
                         << results.size();
  for (auto [i, value] : llvm::enumerate(getOperands()))
    if (value.getType() != results[i])
      return emitOpError() << "value " << i << " has type " << value.getType()
                           << " but @" << func.getSymName() << " returns "
                           << results[i];
  return success();
}

LogicalResult ImportOp::verify() {
  if (getPath().empty())
    return emitOpError() << "names no file: give the path of a file of "
                            "helpers, e.g. \"../lib/work_queue.mlir\"";
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee =
      symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, getCalleeAttr());
  if (!callee) {
    // A helper of an imported file is only copied in by
    // jfa-resolve-imports; the module is verified again after it.
    auto module = (*this)->getParentOfType<ModuleOp>();
    if (module && !module.getOps<ImportOp>().empty())
      return success();
    return emitOpError() << "calls @" << getCallee()
                         << ", which is no jfa.func of this module";
  }
  return verifyAgainst(callee);
}

LogicalResult CallOp::verifyAgainst(FuncOp callee, StringRef context) {
  // A helper with a layout parameter takes the layout the call binds it to.
  Attribute param = callee.getLayoutParameterAttr();
  Attribute layout = callee.boundLayout(getArgs().getTypes(), getResultTypes());
  bool bindsLayout = isa_and_nonnull<TileLayoutAttrInterface>(layout);
  // A helper with a stage parameter takes the rings' slot count too.
  int64_t stages = callee.boundStages(getArgs().getTypes(), getResultTypes());
  // And one with an element parameter its operands' element type.
  TypeAttr elementAttr = callee.getElementParameterAttr();
  Type elementParam = elementAttr ? elementAttr.getValue() : Type();
  Type element = callee.boundElement(getArgs().getTypes(), getResultTypes());
  // And one with a rows parameter its tiles' row count.
  int64_t rows = callee.boundRows(getArgs().getTypes(), getResultTypes());
  FunctionType type =
      callee.typeFor(bindsLayout ? layout : param, stages, element, rows);
  if (!type) {
    Type unscaled;
    FuncOp::bindElement(callee.getFunctionType(), elementParam, element,
                        &unscaled);
    InFlightDiagnostic diag =
        emitOpError() << "binds the element parameter " << elementParam
                      << " of @" << getCallee() << " to " << element << ", but "
                      << describeUnscaled(unscaled, elementParam, element);
    if (!context.empty())
      diag << " (" << context << ")";
    return diag;
  }
  if (TypeRange(getArgs().getTypes()) == TypeRange(type.getInputs()) &&
      TypeRange(getResultTypes()) == TypeRange(type.getResults()))
    return success();
  InFlightDiagnostic diag =
      emitOpError() << "has type "
                    << FunctionType::get(getContext(), getArgs().getTypes(),
                                         getResultTypes())
                    << " but @" << getCallee() << " is " << type;
  if (param && bindsLayout && layout != param)
    diag << " (its layout parameter " << param << " bound to " << layout << ")";
  std::optional<int64_t> stageParam = callee.getStageParameter();
  if (stageParam && stages != *stageParam)
    diag << " (its stage parameter " << *stageParam << " bound to " << stages
         << ")";
  if (elementParam && element != elementParam)
    diag << " (its element parameter " << elementParam << " bound to "
         << element << ")";
  std::optional<int64_t> rowsParam = callee.getRowsParameter();
  if (rowsParam && rows != *rowsParam)
    diag << " (its rows parameter " << *rowsParam << " bound to " << rows
         << ")";
  if (!context.empty())
    diag << " (" << context << ")";
  return diag;
}

/// Checks that a constant `index` lies in [0, size).
static LogicalResult verifyConstantIndex(Operation *op, Value index,
                                         int64_t size, StringRef what) {
  APInt value;
  if (!matchPattern(index, m_ConstantInt(&value)))
    return success();
  int64_t i = value.getSExtValue();
  if (i < 0 || i >= size)
    return op->emitOpError()
           << what << " index " << i << " is out of range [0, " << size << ")";
  return success();
}

/// The number of CTAs in the cluster of the kernel around `op`: 1 without
/// `cluster(...)`; none inside a helper, whose callers' clusters may differ.
static std::optional<int64_t> clusterSizeAround(Operation *op) {
  if (auto kernel = op->getParentOfType<KernelOp>())
    return kernel.getClusterSize();
  return std::nullopt;
}

/// A constant CTA rank names a CTA of the cluster around `op` (any rank
/// inside a helper, whose callers' clusters may differ).
static LogicalResult verifyClusterRank(Operation *op, Value cta,
                                       StringRef verb) {
  APInt rank;
  if (!cta || !matchPattern(cta, m_ConstantInt(&rank)))
    return success();
  std::optional<int64_t> size = clusterSizeAround(op);
  if (rank.isNegative() && !size)
    return op->emitOpError() << verb << " CTA " << rank.getSExtValue()
                             << "; ranks run from 0 to the cluster's size - 1";
  if (rank.isNegative() || (size && rank.getSExtValue() >= *size))
    return op->emitOpError()
           << verb << " CTA " << rank.getSExtValue() << " of a cluster of "
           << *size << (*size == 1 ? " CTA" : " CTAs")
           << "; ranks run from 0 to the cluster's size - 1";
  return success();
}

/// `on cta %rank` (`and cta` on jfa.atomic_fetch_add) reaches the shared
/// memory of another CTA of the cluster: the kernel around `op` needs a
/// cluster of more than one CTA (any inside a helper, whose callers'
/// clusters may differ), and a constant rank must be one of the cluster's.
static LogicalResult verifyPeerCta(Operation *op, Value cta, StringRef what,
                                   StringRef verb) {
  if (!cta)
    return success();
  std::optional<int64_t> size = clusterSizeAround(op);
  if (size && *size == 1)
    return op->emitOpError()
           << what << " another CTA's shared memory, which needs a cluster "
           << "of more than one CTA; set the kernel's cluster(x, y, z)";
  return verifyClusterRank(op, cta, verb);
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes))
    return failure();

  SmallVector<OpAsmParser::Argument> args;
  if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren,
                               /*allowType=*/true))
    return failure();

  int32_t warps;
  if (parser.parseKeyword("warps") || parser.parseLParen() ||
      parser.parseInteger(warps) || parser.parseRParen())
    return failure();
  result.addAttribute(getNumWarpsAttrName(result.name),
                      parser.getBuilder().getI32IntegerAttr(warps));

  if (succeeded(parser.parseOptionalKeyword("cluster"))) {
    SmallVector<int32_t> dims;
    if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                       [&]() -> ParseResult {
                                         int32_t d;
                                         if (parser.parseInteger(d))
                                           return failure();
                                         dims.push_back(d);
                                         return success();
                                       }))
      return failure();
    result.addAttribute(getClusterDimsAttrName(result.name),
                        parser.getBuilder().getDenseI32ArrayAttr(dims));
  }

  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();

  SmallVector<Type> argTypes;
  SmallVector<Attribute> argNames;
  for (auto &arg : args) {
    argTypes.push_back(arg.type);
    argNames.push_back(parser.getBuilder().getStringAttr(
        arg.ssaName.name.drop_front(arg.ssaName.name.starts_with("%"))));
  }
  // The names as written, for the metadata (jfac names the arguments in
  // it; the runtimes name them in errors). Not printed: a round trip keeps
  // the SSA names the printer picks.
  if (!args.empty() && !result.attributes.get(kArgNamesAttrName))
    result.addAttribute(kArgNamesAttrName,
                        parser.getBuilder().getArrayAttr(argNames));
  result.addAttribute(
      getFunctionTypeAttrName(result.name),
      TypeAttr::get(parser.getBuilder().getFunctionType(argTypes, {})));

  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << '(';
  llvm::interleaveComma(getBodyBlock().getArguments(), p,
                        [&](BlockArgument arg) { p.printRegionArgument(arg); });
  p << ") warps(" << getNumWarps() << ')';
  if (auto dims = getClusterDims()) {
    p << " cluster(";
    llvm::interleaveComma(*dims, p);
    p << ')';
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getFunctionTypeAttrName(), getNumWarpsAttrName(),
       getClusterDimsAttrName(), getArgAttrsAttrName(), getResAttrsAttrName(),
       kArgNamesAttrName});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

static bool isValidParameterType(Type type) {
  if (isa<TensorDescType, GlobalPtrType>(type))
    return true;
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.getWidth() == 32 || intType.getWidth() == 64;
  return type.isF32() || type.isF64();
}

/// An i32 attribute's value as the kernel wrote it: its unsigned getter
/// reads warps(-1) as 4294967295.
static int64_t asWritten(IntegerAttr attr) {
  return attr.getValue().getSExtValue();
}

LogicalResult KernelOp::verify() {
  int64_t warps = asWritten(getNumWarpsAttr());
  if (warps < 1 || warps > kMaxWarpsPerCTA)
    return emitOpError() << "warps must be in [1, " << kMaxWarpsPerCTA
                         << "] (at most 1024 threads per CTA), got " << warps;
  if (auto dims = getClusterDims()) {
    if (dims->size() != 3)
      return emitOpError() << "cluster needs 3 dimensions (x, y, z), got "
                           << dims->size();
    int64_t ctas = 1;
    for (int32_t d : *dims) {
      if (d < 1)
        return emitOpError()
               << "cluster dimensions must be positive, got " << d;
      ctas *= d;
    }
    if (ctas > 16)
      return emitOpError() << "a cluster holds at most 16 CTAs, got " << ctas;
  }
  FunctionType type = getFunctionType();
  if (type.getNumResults() != 0)
    return emitOpError() << "kernels return no values";
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBodyBlock();
  FunctionType type = getFunctionType();
  if (body.getNumArguments() != type.getNumInputs())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments but the signature has "
                         << type.getNumInputs();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    if (arg.getType() != type.getInput(i))
      return emitOpError() << "parameter " << i << " type mismatch";
    if (!isValidParameterType(arg.getType()))
      return emitOpError()
             << "parameter " << i << " has type " << arg.getType()
             << "; kernel parameters are !jfa.tma, !jfa.ptr, i32, i64, f32 "
                "or f64";
  }
  int numTaskRegions = 0;
  for (auto tasks : body.getOps<AsyncTasksOp>()) {
    if (++numTaskRegions > 1)
      return tasks.emitOpError() << "a kernel has at most one jfa.async_tasks";
  }
  int64_t columns = 0;
  for (auto alloc : body.getOps<TmemAllocOp>())
    columns += alloc.getType().getColumns();
  if (columns > kTensorMemoryColumns)
    return emitOpError() << "allocates " << columns
                         << " tensor-memory columns; an SM has "
                         << kTensorMemoryColumns;
  int64_t total = computeSharedMemoryBytes();
  if (total > kMaxSharedMemoryBytes) {
    auto diag = emitOpError()
                << "uses " << total << " bytes of shared memory, more than "
                << "the " << kMaxSharedMemoryBytes << " bytes ("
                << kMaxSharedMemoryBytes / 1024 << " KiB) a CTA "
                << "can have";
    for (auto [op, offset] : computeSharedMemoryLayout(*this).offsets)
      diag.attachNote(op->getLoc()) << "allocation at offset " << offset;
    return diag;
  }
  return success();
}

int64_t KernelOp::computeSharedMemoryBytes() {
  return computeSharedMemoryLayout(*this).totalBytes;
}

SharedMemoryLayout jfa::computeSharedMemoryLayout(KernelOp kernel) {
  // Buffers first, each aligned for swizzled TMA/MMA access, then barrier
  // arrays (8-byte aligned) so they never break a buffer's alignment.
  SharedMemoryLayout layout;
  int64_t offset = 0;
  for (auto alloc : kernel.getBodyBlock().getOps<LocalAllocOp>()) {
    offset = llvm::alignTo(offset, kSharedBufferAlignment);
    layout.offsets.push_back({alloc, offset});
    offset += alloc.getType().getTotalBytes();
  }
  for (auto alloc : kernel.getBodyBlock().getOps<AllocBarriersOp>()) {
    offset = llvm::alignTo(offset, kMbarrierBytes);
    layout.offsets.push_back({alloc, offset});
    offset += kMbarrierBytes * alloc.getType().getSize();
  }
  // Where tcgen05.alloc writes each tensor-memory address.
  for (auto alloc : kernel.getBodyBlock().getOps<TmemAllocOp>()) {
    offset = llvm::alignTo(offset, 8);
    layout.offsets.push_back({alloc, offset});
    offset += 8;
  }
  layout.totalBytes = offset;
  return layout;
}

//===----------------------------------------------------------------------===//
// Tasks
//===----------------------------------------------------------------------===//

LogicalResult AsyncTasksOp::verifyRegions() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  int64_t claimed = 0, defaults = 0, numTasks = 0;
  for (Operation &op : getBody().front()) {
    auto task = dyn_cast<TaskOp>(op);
    if (!task)
      return op.emitOpError() << "cannot appear directly in jfa.async_tasks; "
                                 "put it inside a jfa.task";
    numTasks += task.getNumReplicas();
    if (task.getIsDefault())
      ++defaults;
    else
      claimed += task.getNumWarps().value_or(0) * task.getNumReplicas();
  }
  if (numTasks == 0)
    return emitOpError() << "needs at least one jfa.task";
  if (defaults > 1)
    return emitOpError() << "has " << defaults
                         << " default tasks; at most one is allowed";
  int64_t warps = kernel.getNumWarps();
  if (defaults == 0 && claimed != warps)
    return emitOpError() << "tasks use " << claimed << " warps but the kernel "
                         << "has warps(" << warps << ")";
  if (defaults == 1 && claimed >= warps)
    return emitOpError() << "tasks use " << claimed << " warps, leaving none "
                         << "for the default task of a warps(" << warps
                         << ") kernel";

  auto layout = computeTaskLayout(*this);
  if (failed(layout))
    return emitOpError() << "cannot lay out tasks";
  if (numTasks > 15)
    return emitOpError() << "at most 15 tasks, replicas counted (one named "
                            "barrier each); got "
                         << numTasks;
  // What each thread starts with (LowerAsyncTasks' entryRegisters on the
  // target with the largest register file): a task without a budget keeps it.
  int64_t threads = warps * 32;
  int64_t entry =
      std::min(maxOverTargets(&Target::maxRegistersPerThread) / 8 * 8,
               kRegistersPerSM / threads / 8 * 8);
  int64_t budget = 0, needed = 0;
  auto taskOps = llvm::to_vector(getBody().front().getOps<TaskOp>());
  for (auto [task, info] : llvm::zip(taskOps, *layout)) {
    int64_t taskThreads = int64_t(info.numThreads()) * info.replicas;
    needed += int64_t(info.registers.value_or(entry)) * taskThreads;
    if (!info.registers)
      continue;
    if (info.firstWarp % 4 != 0 || info.numWarps % 4 != 0)
      return task.emitOpError()
             << "sets registers(" << *info.registers << ") but runs on warps ["
             << info.firstWarp << ", " << info.firstWarp + info.numWarps
             << "); setmaxnreg needs whole warpgroups (4 warps starting at a "
                "multiple of 4)";
    budget += int64_t(*info.registers) * info.numThreads() * info.replicas;
  }
  if (budget > kRegistersPerSM)
    return emitOpError() << "register budgets add up to " << budget
                         << " registers, more than the " << kRegistersPerSM
                         << " of an SM";
  // setmaxnreg.inc takes only registers that other warpgroups gave back with
  // setmaxnreg.dec: past the CTA's starting allocation it waits forever.
  if (needed > entry * threads)
    return emitOpError()
           << "register budgets need " << needed
           << " registers (each task's registers, " << entry
           << " for a task without one, times its threads), more than the "
           << entry * threads << " a warps(" << warps << ") CTA starts with ("
           << entry << " a thread): setmaxnreg.inc only takes registers "
           << "another task gave back, so the raise would wait forever";
  return success();
}

LogicalResult TaskOp::verify() {
  if (IntegerAttr replicas = getReplicasAttr()) {
    if (getIsDefault())
      return emitOpError() << "the default task takes the remaining warps and "
                              "cannot be replicated; give it warps(N)";
    if (asWritten(replicas) < 1)
      return emitOpError() << "replicas must be positive, got "
                           << asWritten(replicas);
  }
  if (getIsDefault() && getNumWarps())
    return emitOpError() << "the default task takes the remaining warps; "
                            "drop warps("
                         << asWritten(getNumWarpsAttr()) << ")";
  if (!getIsDefault() && !getNumWarps())
    return emitOpError() << "needs warps(N) or `default`";
  if (getNumWarps() && asWritten(getNumWarpsAttr()) < 1)
    return emitOpError() << "warps must be positive, got "
                         << asWritten(getNumWarpsAttr());
  if (IntegerAttr regsAttr = getRegistersAttr()) {
    int64_t regs = asWritten(regsAttr);
    if (regs < 24 || regs > 256 || regs % 8 != 0)
      return emitOpError() << "registers(" << regs
                           << ") is not a valid setmaxnreg budget: it must be "
                              "a multiple of 8 in [24, 256]";
  }
  return success();
}

LogicalResult ReplicaIdOp::verify() {
  if (!(*this)->getParentOfType<TaskOp>())
    return emitOpError() << "must be inside a jfa.task";
  return success();
}

//===----------------------------------------------------------------------===//
// ParamOp
//===----------------------------------------------------------------------===//

// jfa.param "name" = 128 : i32   (the default's type is the parameter's)
// jfa.param "name" : i1          (no default)
ParseResult ParamOp::parse(OpAsmParser &parser, OperationState &result) {
  std::string name;
  if (parser.parseString(&name))
    return failure();
  result.addAttribute(getParamNameAttrName(result.name),
                      parser.getBuilder().getStringAttr(name));
  Type type;
  if (succeeded(parser.parseOptionalEqual())) {
    SMLoc loc = parser.getCurrentLocation();
    Attribute value;
    if (parser.parseAttribute(value))
      return failure();
    auto typed = dyn_cast<TypedAttr>(value);
    if (!isa_and_nonnull<IntegerAttr, FloatAttr>(typed))
      return parser.emitError(loc) << "the default of a jfa.param is an "
                                      "integer or float literal with its "
                                      "type, e.g. `= 128 : i32`";
    result.addAttribute(getDefaultValueAttrName(result.name), typed);
    type = typed.getType();
  } else if (parser.parseColonType(type)) {
    return failure();
  }
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.addTypes(type);
  return success();
}

void ParamOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printString(getParamName());
  if (auto value = getDefaultValueAttr()) {
    p << " = ";
    p.printAttribute(value);
  } else {
    p << " : " << getType();
  }
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getParamNameAttrName(), getDefaultValueAttrName()});
}

LogicalResult ParamOp::verify() {
  StringRef name = getParamName();
  auto isIdentifierChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  if (name.empty() || llvm::isDigit(name.front()) ||
      !llvm::all_of(name, isIdentifierChar))
    return emitOpError() << "parameter name '" << name
                         << "' is not an identifier (letters, digits and _, "
                            "not starting with a digit)";
  if (auto value = getDefaultValueAttr()) {
    if (!isa<IntegerAttr, FloatAttr>(value))
      return emitOpError() << "default must be an integer or float literal";
    if (value.getType() != getType())
      return emitOpError() << "default has type " << value.getType()
                           << " but the parameter is " << getType();
  }
  for (auto other : (*this)->getBlock()->getOps<ParamOp>()) {
    if (other == *this)
      break;
    if (other.getParamName() == name)
      return emitOpError() << "parameter '" << name
                           << "' is declared twice in this kernel";
  }
  return success();
}

LogicalResult ScheduleForRegistersOp::verify() {
  // One per kernel: two, with different conditions, would leave the choice
  // to their order.
  for (auto other : (*this)->getBlock()->getOps<ScheduleForRegistersOp>()) {
    if (other == *this)
      break;
    return emitOpError() << "appears twice in this kernel; combine the "
                            "conditions into one (arith.ori)";
  }
  return success();
}

static LogicalResult verifyBarrierThreads(Operation *op, int64_t threads) {
  if (threads < 32 || threads > 1024 || threads % 32 != 0)
    return op->emitOpError() << "threads must be a multiple of 32 in "
                                "[32, 1024], got "
                             << threads;
  return success();
}

LogicalResult NamedBarrierSyncOp::verify() {
  return verifyBarrierThreads(*this, getThreads());
}
LogicalResult NamedBarrierArriveOp::verify() {
  return verifyBarrierThreads(*this, getThreads());
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

LogicalResult SlotOp::verify() {
  return verifyConstantIndex(*this, getIndex(),
                             getBuffer().getType().getNumSlots(), "slot");
}

/// A tile's layout, asked of the layout itself.
static LogicalResult verifyTileLayout(Operation *op, RankedTensorType tile) {
  TileLayoutAttrInterface layout = getTileLayout(tile);
  if (!layout)
    return op->emitOpError()
           << "unknown register-tile layout " << tile.getEncoding();
  return layout.verifyTile(tile, [op] { return op->emitOpError(); });
}

SlotType TransposeOp::transposedType(SlotType slot) {
  SmallVector<int64_t> shape(slot.getShape());
  if (shape.size() == 2)
    std::swap(shape[0], shape[1]);
  return SlotType::get(slot.getContext(), shape, slot.getElementType(),
                       slot.getSwizzle(), !slot.getTransposed());
}

LogicalResult ColumnBlockOp::verify() {
  SlotType slot = getSlot().getType(), block = getType();
  if (slot.getTransposed())
    return emitOpError() << "takes a block of a stored slot, not of the "
                            "transposed view "
                         << slot << "; transpose the block instead";
  if (slot.getShape().size() != 2 || slot.getColumnBlocks() < 2)
    return emitOpError() << "takes a block of a blocked slot (2-d, rows "
                            "wider than its swizzle), got "
                         << slot;
  int64_t blocks = slot.getColumnBlocks();
  auto expected = SlotType::get(
      getContext(), {slot.getShape()[0], slot.getShape()[1] / blocks},
      slot.getElementType(), slot.getSwizzle(), /*transposed=*/false);
  if (block != expected)
    return emitOpError() << "a block of " << slot << " is " << expected
                         << ", got " << block;
  APInt index;
  if (matchPattern(getIndex(), m_ConstantInt(&index)) &&
      (index.isNegative() || index.getSExtValue() >= blocks))
    return emitOpError() << "block " << index.getSExtValue()
                         << " is out of range: " << slot << " has " << blocks
                         << " column blocks";
  return success();
}

LogicalResult RowBlockOp::verify() {
  SlotType slot = getSlot().getType(), block = getType();
  if (slot.getTransposed())
    return emitOpError() << "takes rows of a stored slot, not of the "
                            "transposed view "
                         << slot;
  if (slot.getShape().size() != 2 || slot.getColumnBlocks() > 1)
    return emitOpError() << "takes rows of a 2-d slot whose rows fit its "
                            "swizzle (a blocked slot's rows are not "
                            "contiguous), got "
                         << slot;
  if (block.getTransposed() || block.getShape().size() != 2 ||
      block.getShape()[1] != slot.getShape()[1] ||
      block.getElementType() != slot.getElementType() ||
      block.getSwizzle() != slot.getSwizzle())
    return emitOpError() << "a row block of " << slot
                         << " has its columns, element type and swizzle, got "
                         << block;
  // A swizzled block starts on a whole swizzle pattern: the slot type
  // already holds its rows to a multiple of 8.
  int64_t rows = block.getShape()[0], total = slot.getShape()[0];
  if (rows <= 0 || total % rows != 0)
    return emitOpError() << "blocks of " << rows << " rows do not divide the "
                         << total << " rows of " << slot;
  APInt index;
  if (matchPattern(getIndex(), m_ConstantInt(&index)) &&
      (index.isNegative() || index.getSExtValue() >= total / rows))
    return emitOpError() << "block " << index.getSExtValue()
                         << " is out of range: " << slot << " has "
                         << total / rows << " blocks of " << rows << " rows";
  return success();
}

LogicalResult TransposeOp::verify() {
  if (getSlot().getType().getShape().size() != 2)
    return emitOpError() << "transposes 2-d slots, got " << getSlot().getType();
  return success();
}

/// Only the tensor cores read transposed views.
static LogicalResult verifyNotTransposed(Operation *op, SlotType slot) {
  if (slot.getTransposed())
    return op->emitOpError()
           << "cannot use the transposed view " << slot
           << "; only the tensor cores read transposed slots (jfa.async_dot "
              "and jfa.tc_dot, as A or B)";
  return success();
}

/// TMA boxes, wgmma operands and layout scratch span one swizzle block.
static LogicalResult verifyNotBlocked(Operation *op, SlotType slot,
                                      StringRef what) {
  if (slot.getColumnBlocks() > 1)
    return op->emitOpError()
           << what << " cannot be the blocked slot " << slot
           << " (rows wider than its swizzle); only register tiles "
              "(jfa.local_store, jfa.local_load), TMA copies (one per block), "
              "jfa.async_dot's operands but an M-major A, and jfa.tc_dot's A "
              "use those";
  return success();
}

static LogicalResult verifyTileMatchesSlot(Operation *op, RankedTensorType tile,
                                           SlotType slot) {
  if (failed(verifyNotTransposed(op, slot)))
    return failure();
  if (tile.getShape() != slot.getShape() ||
      tile.getElementType() != slot.getElementType())
    return op->emitOpError()
           << "register tile " << tile << " does not match the slot " << slot;
  // NVPTX has no 8-bit float registers: fp8 data reaches the tensor cores
  // through TMA into shared memory and never passes through registers.
  if (isMmaFp8(tile.getElementType()))
    return op->emitOpError()
           << "moves a register tile of 8-bit floats " << tile
           << "; they are tensor-core operands only (TMA into shared memory, "
              "read by jfa.async_dot or jfa.tc_dot), not register values";
  return verifyTileLayout(op, tile);
}

LogicalResult LocalLoadOp::verify() {
  if (failed(verifyPeerCta(*this, getCta(), "with `on cta` loads from",
                           "loads from")))
    return failure();
  return verifyTileMatchesSlot(*this, getType(), getSlot().getType());
}

LogicalResult LocalStoreOp::verify() {
  if (failed(verifyPeerCta(*this, getCta(), "with `on cta` stores into",
                           "stores into")))
    return failure();
  return verifyTileMatchesSlot(*this, getValue().getType(),
                               getSlot().getType());
}

static LogicalResult verifyFragment(Operation *op, VectorType fragment,
                                    SlotType slot, int64_t threads,
                                    TileLayoutAttrInterface layout) {
  if (failed(verifyNotTransposed(op, slot)))
    return failure();
  if (threads < 1)
    return op->emitOpError() << "threads must be positive";
  // A row vector's lanes hold copies of its rows, so its fragments cover
  // the slot many times over; every other layout splits the slot.
  bool covers = fragment.getNumElements() * threads == slot.getNumElements();
  if (auto rows = dyn_cast_if_present<RowsOfLayoutAttr>(layout))
    covers = rows.getFragmentType(
                 RankedTensorType::get(slot.getShape(), slot.getElementType()),
                 threads) == fragment;
  if (fragment.getElementType() != slot.getElementType() || !covers)
    return op->emitOpError() << "fragment " << fragment << " times " << threads
                             << " threads does not cover the slot " << slot;
  return success();
}

LogicalResult LoadFragmentOp::verify() {
  if (failed(verifyPeerCta(*this, getCta(), "with `on cta` loads from",
                           "loads from")))
    return failure();
  return verifyFragment(*this, getType(), getSlot().getType(), getThreads(),
                        getLayoutAttr());
}

LogicalResult StoreFragmentOp::verify() {
  if (failed(verifyPeerCta(*this, getCta(), "with `on cta` stores into",
                           "stores into")))
    return failure();
  return verifyFragment(*this, getValue().getType(), getSlot().getType(),
                        getThreads(), getLayoutAttr());
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

// mbarrier counts are 20-bit fields.
constexpr int64_t kMaxBarrierCount = (1 << 20) - 1;

LogicalResult AllocBarriersOp::verify() {
  int64_t count = asWritten(getArriveCountAttr());
  if (count < 1 || count > kMaxBarrierCount)
    return emitOpError() << "arrive_count must be in [1, " << kMaxBarrierCount
                         << "], got " << count;
  return success();
}

LogicalResult BarrierOp::verify() {
  return verifyConstantIndex(*this, getIndex(),
                             getBarriers().getType().getSize(), "barrier");
}

LogicalResult BarrierExpectOp::verify() {
  int64_t bytes = getBytes();
  if (bytes < 1 || bytes > kMaxBarrierCount)
    return emitOpError() << "bytes must be in [1, " << kMaxBarrierCount
                         << "], got " << bytes;
  // Whether the TMA loads completing on the barrier bring these bytes is
  // an analysis over the kernel's control flow: jfa-check-barriers.
  return success();
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

/// One coordinate per dimension of the descriptor's box.
static LogicalResult verifyTMACoords(Operation *op, TensorDescType desc,
                                     size_t numCoords) {
  if (numCoords != desc.getBoxShape().size())
    return op->emitOpError()
           << "needs " << desc.getBoxShape().size() << " coordinates for "
           << desc << ", got " << numCoords;
  return success();
}

static LogicalResult verifyTMA(Operation *op, TensorDescType desc,
                               SlotType slot, size_t numCoords) {
  if (failed(verifyNotTransposed(op, slot)) ||
      failed(verifyTMACoords(op, desc, numCoords)))
    return failure();
  // A blocked slot moves one column block per copy: the box is one block.
  SmallVector<int64_t> block(slot.getShape());
  block.back() /= slot.getColumnBlocks();
  if (ArrayRef<int64_t>(block) != desc.getBoxShape() ||
      desc.getElementType() != slot.getElementType() ||
      desc.getSwizzle() != slot.getSwizzle())
    return op->emitOpError()
           << "TMA box " << desc << " does not match the slot " << slot
           << (slot.getColumnBlocks() > 1
                   ? " (a blocked slot moves one column block per copy: the "
                     "box must be one block)"
                   : "");
  return success();
}

/// A constant CTA mask names at least one CTA and none beyond the cluster.
static LogicalResult verifyMulticastMask(Operation *op, Value multicast,
                                         StringRef what) {
  APInt mask;
  if (!multicast || !matchPattern(multicast, m_ConstantInt(&mask)))
    return success();
  uint64_t bits = mask.getZExtValue();
  if (bits == 0)
    return op->emitOpError() << "multicast mask 0 names no CTA: the " << what
                             << " would land nowhere";
  std::optional<int64_t> size = clusterSizeAround(op);
  if (size && (bits >> *size) != 0)
    return op->emitOpError()
           << "multicast mask " << bits
           << " names a CTA beyond the cluster, which has " << *size
           << (*size == 1 ? " CTA" : " CTAs") << " (ranks 0 to " << *size - 1
           << "); set the kernel's cluster(x, y, z)";
  return success();
}

LogicalResult TMALoadOp::verify() {
  if (failed(verifyTMA(*this, getDesc().getType(), getSlot().getType(),
                       getCoords().size())))
    return failure();
  if (getCta() && getMulticast())
    return emitOpError() << "takes either multicast(...) or on cta, not both: "
                            "a pair's loads signal the issuing CTA's barrier "
                            "from each CTA's own copy";
  if (failed(verifyClusterRank(*this, getCta(), "completes on a barrier of")))
    return failure();
  return verifyMulticastMask(*this, getMulticast(), "copy");
}

/// A cluster-launch-control response is 16 bytes the hardware writes and
/// the threads read as one 128-bit value: an unswizzled !jfa.slot<4xi32>.
static LogicalResult verifyCancelResponse(Operation *op, SlotType slot) {
  if (slot.getShape() == ArrayRef<int64_t>{4} &&
      slot.getElementType().isInteger(32) && slot.getSwizzle() == 0 &&
      !slot.getTransposed())
    return success();
  return op->emitOpError() << "takes the 16-byte response in an unswizzled "
                              "!jfa.slot<4xi32>, got "
                           << slot;
}

LogicalResult TryCancelOp::verify() {
  return verifyCancelResponse(*this, getResponse().getType());
}

LogicalResult QueryCancelOp::verify() {
  return verifyCancelResponse(*this, getResponse().getType());
}

LogicalResult TcCommitOp::verify() {
  return verifyMulticastMask(*this, getMulticast(), "arrival");
}

LogicalResult BarrierArriveOp::verify() {
  // A local arrival already releases at CTA scope only.
  if (getReleaseCta() && !getCta())
    return emitOpError("release(cta) is for an arrival on another CTA's "
                       "barrier (`on cta %rank`); a local arrival already "
                       "releases at CTA scope");
  return verifyClusterRank(*this, getCta(), "arrives on");
}

LogicalResult TMAStoreOp::verify() {
  if (getAdd() && !getDesc().getType().getElementType().isF32())
    return emitOpError() << "adds to f32 tensors only, got "
                         << getDesc().getType();
  return verifyTMA(*this, getDesc().getType(), getSlot().getType(),
                   getCoords().size());
}

LogicalResult TMAPrefetchOp::verify() {
  return verifyTMACoords(*this, getDesc().getType(), getCoords().size());
}

/// A bulk copy of a slot's bytes into the same place in a peer CTA: the
/// bytes keep the layout only between slots of one type, and the copy
/// moves 16-byte units. Every slot and view is one contiguous byte range (a
/// column block is a whole block of a blocked slot, a row block rows of an
/// unblocked one), 16-byte aligned when its size is a multiple of 16.
LogicalResult CopyToCtaOp::verify() {
  if (failed(verifyPeerCta(*this, getCta(), "copies into", "copies into")))
    return failure();
  SlotType src = getSrc().getType(), dst = getDst().getType();
  if (failed(verifyNotTransposed(*this, src)) ||
      failed(verifyNotTransposed(*this, dst)))
    return failure();
  if (src != dst)
    return emitOpError() << "copies the source's bytes as they are stored, so "
                            "the destination must have its type (shape, "
                            "element type and swizzle): got "
                         << src << " and " << dst;
  int64_t bytes = src.getBytes();
  if (bytes % 16 != 0)
    return emitOpError() << "copies " << bytes << " bytes (" << src
                         << "); a bulk copy moves a multiple of 16 bytes";
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor cores
//===----------------------------------------------------------------------===//

/// The element types of A and B (MmaTypes.h): both bf16 or both f16, or both
/// 8-bit floats (f8E4M3FN, f8E5M2, in any pairing: wgmma's .atype and .btype
/// and tcgen05 kind::f8f6f4's atype and btype fields are separate).
static LogicalResult verifyMmaElements(Operation *op, Type a, Type b) {
  if ((isMma16(a) && a == b) || (isMmaFp8(a) && isMmaFp8(b)))
    return success();
  if ((isMma16(a) || isMmaFp8(a)) && (isMma16(b) || isMmaFp8(b)))
    return op->emitOpError()
           << "A is " << a << " but B is " << b
           << "; the tensor cores multiply 16-bit operands of one type (both "
              "bf16 or both f16) or two 8-bit floats (f8E4M3FN, f8E5M2)";
  return op->emitOpError()
         << "A and B must both be bf16, both f16, or both 8-bit floats "
            "(f8E4M3FN, f8E5M2), got "
         << a << " and " << b;
}

/// K of both operands is a whole number of MMA instructions (MmaTypes.h).
static LogicalResult verifyKStep(Operation *op, Type element, int64_t k) {
  int64_t step = getMmaKStep(element);
  if (k % step == 0)
    return success();
  return op->emitOpError() << "K must be a multiple of " << step
                           << (isMmaFp8(element)
                                   ? " for 8-bit operands (32 bytes, the K "
                                     "of one MMA)"
                                   : "")
                           << ", got " << k;
}

/// What both MMA generations need of A (M x K) and B (N x K): 2-d, 16-bit or
/// 8-bit floats, K-major with a common K that is a multiple of the K step,
/// swizzled.
/// A transposed (M-major) A is wgmma's transpose-A: one warpgroup's 64 rows,
/// stored as K rows of 64 elements that span the 128-byte swizzle. wgmma
/// transposes 16-bit operands only: 8-bit ones must both be K-major.
enum class MmaKind { Wgmma, Tcgen05 };

static LogicalResult verifyMmaOperands(Operation *op, SlotType a, SlotType b,
                                       MmaKind kind) {
  if (a.getShape().size() != 2 || b.getShape().size() != 2)
    return op->emitOpError() << "A and B must be 2-d slots";
  if (failed(verifyMmaElements(op, a.getElementType(), b.getElementType())))
    return failure();
  bool fp8 = isMmaFp8(a.getElementType());
  if (kind == MmaKind::Wgmma && fp8 && (a.getTransposed() || b.getTransposed()))
    return op->emitOpError()
           << "an 8-bit " << (a.getTransposed() ? "A" : "B")
           << " must be K-major on sm_90a (wgmma transposes 16-bit operands "
              "only), got the transposed view "
           << (a.getTransposed() ? a : b);
  // wgmma reads blocked slots: K-major operands step from block to block
  // along K, and an N-major (transposed) B spans its blocks along N (the
  // descriptor's leading-dimension offset is the distance between them).
  if (kind == MmaKind::Tcgen05 && failed(verifyNotBlocked(op, b, "B")))
    return failure();
  if (kind == MmaKind::Wgmma) {
    if (a.getTransposed() && failed(verifyNotBlocked(op, a, "an M-major A")))
      return failure();
    if (a.getTransposed() && (a.getShape()[0] != 64 || a.getSwizzle() != 128))
      return op->emitOpError()
             << "a transposed (M-major) A must be 64 rows (one warpgroup's) "
                "in a 128-byte swizzled slot, got "
             << a;
  } else if (a.getTransposed() && fp8 &&
             (a.getShape()[0] != 128 || a.getSwizzle() != 128)) {
    // 128 8-bit rows of A are one 128-byte swizzled row of the stored slot.
    return op->emitOpError()
           << "a transposed (M-major) 8-bit A must be 128 rows in a 128-byte "
              "swizzled slot (the transpose of a Kx128 slot), got "
           << a;
  } else if (a.getTransposed() && !fp8 &&
             (a.getShape()[0] != 128 || a.getSwizzle() != 128 ||
              a.getColumnBlocks() < 2)) {
    // tcgen05 reads an M-major A of 128 rows as 64-row column blocks.
    return op->emitOpError()
           << "a transposed (M-major) A must be 128 rows stored as column "
              "blocks of a 128-byte swizzle (the transpose of a KxM slot "
              "with M = 128 bf16), got "
           << a;
  }
  int64_t k = a.getShape()[1];
  if (b.getShape()[1] != k)
    return op->emitOpError()
           << "A is " << a.getShape()[0] << "x" << k << " but B is "
           << b.getShape()[0] << "x" << b.getShape()[1]
           << "; both must be K-major with the same K";
  if (failed(verifyKStep(op, a.getElementType(), k)))
    return failure();
  if (a.getSwizzle() == 0 || b.getSwizzle() == 0)
    return op->emitOpError() << "A and B must be swizzled slots (swizzle 32, "
                                "64 or 128), the layout the tensor cores read";
  return success();
}

/// B against an A that is not a slot (registers or tensor memory): same
/// element type, K-major with A's K (a multiple of 16), swizzled.
static LogicalResult verifyOperandB(Operation *op, int64_t rowsA, int64_t k,
                                    SlotType b, MmaKind kind) {
  if (kind == MmaKind::Tcgen05 && failed(verifyNotBlocked(op, b, "B")))
    return failure();
  if (b.getShape()[1] != k)
    return op->emitOpError()
           << "A is " << rowsA << "x" << k << " but B is " << b.getShape()[0]
           << "x" << b.getShape()[1] << "; B must be K-major with the same K";
  if (failed(verifyKStep(op, b.getElementType(), k)))
    return failure();
  if (b.getSwizzle() == 0)
    return op->emitOpError() << "B must be a swizzled slot (swizzle 32, 64 or "
                                "128), the layout the tensor cores read";
  return success();
}

LogicalResult AsyncDotOp::verify() {
  SlotType b = getB().getType();
  auto acc = getAcc().getType();
  int64_t m, n = b.getShape().size() == 2 ? b.getShape()[0] : 0;
  if (auto a = dyn_cast<SlotType>(getA().getType())) {
    if (failed(verifyMmaOperands(*this, a, b, MmaKind::Wgmma)))
      return failure();
    m = a.getShape()[0];
  } else {
    // A in registers: a bf16/f16 tile in the wgmma layout.
    auto tile = cast<RankedTensorType>(getA().getType());
    if (isMmaFp8(tile.getElementType()))
      return emitOpError()
             << "an 8-bit A must be a K-major shared-memory slot: wgmma's "
                "8-bit register fragment (4 consecutive K per register) is "
                "not the #jfa.wgmma_acc layout, got "
             << tile;
    if (!isa_and_nonnull<WgmmaAccLayoutAttr>(tile.getEncoding()) ||
        tile.getRank() != 2 ||
        !(tile.getElementType().isBF16() || tile.getElementType().isF16()))
      return emitOpError() << "a register A must be a bf16 or f16 tile in "
                              "the #jfa.wgmma_acc layout, got "
                           << tile;
    if (failed(verifyTileLayout(*this, tile)))
      return failure();
    if (b.getShape().size() != 2 || b.getElementType() != tile.getElementType())
      return emitOpError() << "B " << b << " must be a 2-d slot of "
                           << tile.getElementType();
    if (failed(verifyOperandB(*this, tile.getDimSize(0), tile.getDimSize(1), b,
                              MmaKind::Wgmma)))
      return failure();
    m = tile.getDimSize(0);
  }
  if (!acc.getElementType().isF32() ||
      !isa_and_nonnull<WgmmaAccLayoutAttr>(acc.getEncoding()))
    return emitOpError() << "the accumulator must be an f32 tile in the "
                            "#jfa.wgmma_acc layout, got "
                         << acc;
  if (failed(verifyTileLayout(*this, acc)))
    return failure();
  if (acc.getDimSize(0) != m || acc.getDimSize(1) != n)
    return emitOpError() << "accumulator " << acc << " must be " << m << "x"
                         << n << " (A rows x B rows)";
  return success();
}

LogicalResult AsyncDotWaitOp::verify() {
  if (getValues().getTypes() != getResults().getTypes())
    return emitOpError() << "results must have the types of the operands";
  return success();
}

LogicalResult TcDotOp::verify() {
  SlotType b = getB().getType();
  TensorMemoryType acc = getAcc().getType();
  if (!acc.getElementType().isF32())
    return emitOpError() << "the accumulator must be f32 tensor memory, got "
                         << acc;
  int64_t m;
  if (auto a = dyn_cast<SlotType>(getA().getType())) {
    if (failed(verifyMmaOperands(*this, a, b, MmaKind::Tcgen05)))
      return failure();
    m = a.getShape()[0];
  } else {
    // A in tensor memory: 128 x K bf16/f16, two elements per column.
    auto tmemA = cast<TensorMemoryType>(getA().getType());
    if (tmemA.getElementType().isF32() || b.getShape().size() != 2 ||
        b.getElementType() != tmemA.getElementType())
      return emitOpError() << "A in tensor memory must be bf16 or f16 like "
                              "B, got "
                           << tmemA << " and " << b;
    if (failed(verifyOperandB(*this, 128, tmemA.getShape()[1], b,
                              MmaKind::Tcgen05)))
      return failure();
    m = 128;
  }
  int64_t n = b.getShape()[0];
  if (m != 128)
    return emitOpError()
           << "A must have 128 rows (one per tensor-memory lane), got " << m;
  if (getPair()) {
    // Each CTA of the pair holds half of B: N is twice its rows.
    auto a = dyn_cast<SlotType>(getA().getType());
    if (!a || a.getTransposed() || b.getTransposed())
      return emitOpError()
             << "pair products take A and B K-major from shared memory (each "
                "CTA's half at the same slot); got A "
             << getA().getType() << " and B " << b;
    if (!isMma16(b.getElementType()))
      return emitOpError() << "pair products take bf16 or f16 operands "
                              "(kind::f16) for now, got "
                           << b.getElementType()
                           << ": the 8-bit pair shapes are not checked yet";
    if (n % 8 != 0 || n < 8 || n > 128)
      return emitOpError() << "pair: each CTA holds N/2 of B's rows, a "
                              "multiple of 8 up to 128 (N = 16 to 256), got "
                           << n;
    n *= 2;
  } else if (n % 16 != 0 || n < 16 || n > 256) {
    return emitOpError()
           << "B must have a multiple of 16 rows up to 256 (N), got " << n;
  }
  if (acc.getColumns() < n)
    return emitOpError() << "the accumulator has " << acc.getColumns()
                         << " columns, fewer than N = " << n;
  return success();
}

TcDotOp jfa::findPairProduct(Operation *root) {
  TcDotOp found;
  root->walk([&](TcDotOp dot) {
    if (!dot.getPair())
      return WalkResult::advance();
    found = dot;
    return WalkResult::interrupt();
  });
  return found;
}

/// A register tile that tmem_load/tmem_store move: 128 x n f32 rows in the
/// tmem_row layout, n a power of two up to 128 within the accumulator.
static LogicalResult verifyTmemTile(Operation *op, Type type,
                                    TensorMemoryType tmem) {
  auto tile = dyn_cast<RankedTensorType>(type);
  if (!tile)
    return success(); // the distributed form
  if (tile.getElementType() != tmem.getElementType() ||
      !isa_and_nonnull<TmemRowLayoutAttr>(tile.getEncoding()) ||
      tile.getRank() != 2 || tile.getDimSize(0) != 128)
    return op->emitOpError()
           << "moves a 128xN " << tmem.getElementType()
           << " tile in the #jfa.tmem_row layout, got " << tile;
  int64_t n = tile.getDimSize(1);
  if (n > 128 || (n & (n - 1)) != 0)
    return op->emitOpError() << "moves 1 to 128 columns (a power of two) at a "
                                "time, got "
                             << n;
  if (n > tmem.getShape()[1])
    return op->emitOpError() << "moves " << n << " columns of a "
                             << tmem.getShape()[1] << "-column accumulator";
  return success();
}

LogicalResult TmemLoadOp::verify() {
  return verifyTmemTile(*this, getResult().getType(), getTmem().getType());
}

LogicalResult TmemStoreOp::verify() {
  return verifyTmemTile(*this, getValue().getType(), getTmem().getType());
}

//===----------------------------------------------------------------------===//
// Row reductions, broadcasts and index tiles
//===----------------------------------------------------------------------===//

/// A 2-d tile in the wgmma or tmem_row layout and its row vector. A
/// broadcast copies elements, so it also takes i32 (per-row bounds for
/// masks); a reduction adds or compares floats.
static LogicalResult verifyRowPair(Operation *op, Type tileType, Type rowType,
                                   bool allowI32 = false) {
  auto tile = dyn_cast<RankedTensorType>(tileType);
  auto row = dyn_cast<RankedTensorType>(rowType);
  if (!tile || !row)
    return success(); // the distributed form
  TileLayoutAttrInterface layout = getTileLayout(tile);
  if (!layout || layout.getRowOffsets().empty())
    return op->emitOpError() << "works on tiles in the #jfa.wgmma_acc or "
                                "#jfa.tmem_row layout, got "
                             << tile;
  if (failed(verifyTileLayout(op, tile)))
    return failure();
  // The element-type rule first: the expected row vector below repeats the
  // tile's element type, which would otherwise suggest a bf16 row vector.
  if (allowI32 && tile.getElementType().isInteger(32)) {
    // An i32 tile is fine for a broadcast; the row vector is checked below.
  } else if (!tile.getElementType().isF32())
    return op->emitOpError() << "works on f32" << (allowI32 ? " or i32" : "")
                             << " tiles, got " << tile
                             << "; extend bf16/f16 tiles to f32 first "
                                "(arith.extf)";
  auto expected =
      RankedTensorType::get({tile.getDimSize(0)}, tile.getElementType(),
                            RowsOfLayoutAttr::get(op->getContext(), layout));
  if (row != expected)
    return op->emitOpError()
           << "row vector must be " << expected << ", got " << row;
  return success();
}

/// The distributed form: when it names its layout, shape and threads, the
/// layout must have row vectors and the fragment must be the one the layout
/// gives that tile (what was not named is left to the lowering, which says
/// to run jfa-distribute-tiles).
/// A thread's fragment holds exactly the registers `layout` gives it of a
/// tile of `shape` over `threads` threads.
static LogicalResult verifyFragmentSize(Operation *op, VectorType fragment,
                                        TileLayoutAttrInterface layout,
                                        ArrayRef<int64_t> shape,
                                        uint32_t threads) {
  // The shape must be a tile of the layout and one that a thread's registers
  // can hold before its registers are listed: a shape of billions of
  // elements would otherwise be listed whole (a hang, gigabytes).
  constexpr int64_t kMaxValuesPerThread = 4096;
  int64_t elements = 1;
  for (int64_t dim : shape) {
    if (threads == 0 || dim <= 0 ||
        elements > int64_t(threads) * kMaxValuesPerThread / dim) {
      std::string dims;
      llvm::raw_string_ostream os(dims);
      llvm::interleave(shape, os, "x");
      return op->emitOpError()
             << "shape " << dims << " over " << threads
             << " threads is no tile a thread's registers hold (at most "
             << kMaxValuesPerThread << " values a thread)";
    }
    elements *= dim;
  }
  if (failed(verifyTileLayout(
          op, RankedTensorType::get(shape, fragment.getElementType(), layout))))
    return failure();
  int64_t expected = layout.getRegisterOffsets(shape, threads).size();
  if (fragment.getNumElements() != expected)
    return op->emitOpError()
           << "fragment " << fragment << " does not match the " << expected
           << " registers a thread holds of the tile (shape, " << threads
           << " threads, " << layout << ")";
  return success();
}

static LogicalResult verifyDistributedRows(
    Operation *op, Type tileType, std::optional<uint32_t> threads,
    TileLayoutAttrInterface layout, std::optional<ArrayRef<int64_t>> shape) {
  auto fragment = dyn_cast<VectorType>(tileType);
  if (!fragment || !threads || !layout || !shape)
    return success();
  if (layout.getRowOffsets().empty())
    return op->emitOpError() << "works on tiles in the #jfa.wgmma_acc or "
                                "#jfa.tmem_row layout, got "
                             << layout;
  return verifyFragmentSize(op, fragment, layout, *shape, *threads);
}

LogicalResult ReduceRowsOp::verify() {
  if (failed(verifyDistributedRows(*this, getInput().getType(), getThreads(),
                                   getLayoutAttr(), getShape())))
    return failure();
  return verifyRowPair(*this, getInput().getType(), getType());
}

LogicalResult BroadcastRowsOp::verify() {
  if (failed(verifyDistributedRows(*this, getType(), getThreads(),
                                   getLayoutAttr(), getShape())))
    return failure();
  return verifyRowPair(*this, getType(), getInput().getType(),
                       /*allowI32=*/true);
}

LogicalResult IotaOp::verify() {
  if (auto tile = dyn_cast<RankedTensorType>(getType())) {
    // A row vector (#jfa.rows_of) holds one value per row of its parent
    // tile: its iota is the row index.
    bool rowVector = tile.getRank() == 1 &&
                     isa_and_nonnull<RowsOfLayoutAttr>(tile.getEncoding());
    if (!tile.getElementType().isInteger(32) ||
        (tile.getRank() != 2 && !rowVector))
      return emitOpError() << "makes a 2-d i32 tile or an i32 row vector "
                              "(#jfa.rows_of), got "
                           << tile;
    if (rowVector && getDim() != IotaDim::rows)
      return emitOpError() << "of a row vector counts rows; 'cols' has no "
                              "meaning for "
                           << tile;
    return verifyTileLayout(*this, tile);
  }
  if (!getThread() || !getShape())
    return emitOpError() << "in distributed form needs the thread and the "
                            "tile shape";
  return success();
}

LogicalResult MaskColsOp::verify() {
  auto tile = dyn_cast<RankedTensorType>(getInput().getType());
  if (!tile) {
    if (!getThread() || !getShape() || !getThreads() || !getLayoutAttr())
      return emitOpError() << "in distributed form needs the thread, the "
                              "thread count, the layout and the tile shape";
    return success();
  }
  if (getFill().getType() != tile.getElementType())
    return emitOpError() << "fill must be a " << tile.getElementType()
                         << " like the tile's elements, got "
                         << getFill().getType();
  if (tile.getRank() != 2)
    return emitOpError() << "masks a 2-d tile, got " << tile;
  TileLayoutAttrInterface layout = getTileLayout(tile);
  if (!layout || layout.getRowOffsets().empty())
    return emitOpError() << "works on tiles in the #jfa.wgmma_acc or "
                            "#jfa.tmem_row layout, got "
                         << tile;
  if (failed(verifyTileLayout(*this, tile)))
    return failure();
  auto expected = RankedTensorType::get(
      {tile.getDimSize(0)}, IntegerType::get(getContext(), 32),
      RowsOfLayoutAttr::get(getContext(), layout));
  if (getLimit().getType() != expected)
    return emitOpError() << "limit must be " << expected << ", got "
                         << getLimit().getType();
  return success();
}

LogicalResult Exp2Op::verify() {
  int64_t period = getPeriodAttr().getInt();
  if (period < 1)
    return emitOpError() << "period must be at least 1 column group, got "
                         << period;
  llvm::APInt share;
  if (matchPattern(getShare(), m_ConstantInt(&share)) &&
      (share.getSExtValue() < 0 || share.getSExtValue() > period))
    return emitOpError() << "software share must be in [0, " << period
                         << "] column groups of 8, got "
                         << share.getSExtValue();
  // In these two layouts a thread's first column is below 8, so every
  // register's column group is the same in every thread.
  auto columnGroupsUniform = [](Attribute layout) {
    return isa_and_nonnull<WgmmaAccLayoutAttr, TmemRowLayoutAttr>(layout);
  };
  auto tile = dyn_cast<RankedTensorType>(getInput().getType());
  if (!tile) {
    if (!getShape() || !getThreads() || !getLayoutAttr())
      return emitOpError() << "in distributed form needs the thread count, "
                              "the layout and the tile shape";
    if (!columnGroupsUniform(getLayoutAttr()))
      return emitOpError() << "works on the #jfa.wgmma_acc or #jfa.tmem_row "
                              "layout, got "
                           << getLayoutAttr();
    return success();
  }
  if (!tile.getElementType().isF32() || tile.getRank() != 2)
    return emitOpError() << "works on 2-d f32 tiles, got " << tile;
  if (!columnGroupsUniform(getTileLayout(tile)))
    return emitOpError() << "works on tiles in the #jfa.wgmma_acc or "
                            "#jfa.tmem_row layout, got "
                         << tile;
  return verifyTileLayout(*this, tile);
}

LogicalResult TmemAllocOp::verify() {
  int64_t cols = getType().getColumns();
  if (cols < 32 || (cols & (cols - 1)) != 0)
    return emitOpError() << "tensor memory is allocated in powers of two of "
                            "32 to "
                         << kTensorMemoryColumns << " columns, got " << cols;
  return success();
}

LogicalResult TmemSliceOp::verify() {
  TensorMemoryType from = getTmem().getType(), to = getType();
  if (from.getElementType() != to.getElementType() ||
      from.getShape()[0] != to.getShape()[0])
    return emitOpError() << "a slice of " << from << " is 128 lanes of "
                         << from.getElementType() << ", got " << to;
  int64_t begin = getColumns(), end = begin + to.getShape()[1];
  if (begin < 0 || end > from.getShape()[1])
    return emitOpError() << "columns [" << begin << ", " << end
                         << ") are outside the " << from.getShape()[1]
                         << " columns of " << from;
  // 16-bit tiles pack two columns per 32-bit column.
  if (from.getElementType().getIntOrFloatBitWidth() == 16 && begin % 2 != 0)
    return emitOpError() << "a 16-bit slice must start at an even column, got "
                         << begin;
  return success();
}

/// `%t, %scratch attr-dict : from -> to, scratch-type`, with the whole form
/// spelled out when the input does not follow it.
ParseResult ConvertLayoutOp::parse(OpAsmParser &parser,
                                   OperationState &result) {
  SMLoc loc = parser.getCurrentLocation();
  OpAsmParser::UnresolvedOperand value, scratch;
  Type from, to, slot;
  if (parser.parseOperand(value) || parser.parseComma() ||
      parser.parseOperand(scratch) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(from) || parser.parseArrow() || parser.parseType(to) ||
      parser.parseComma() || parser.parseType(slot))
    return parser.emitError(loc)
           << "jfa.convert_layout is written `jfa.convert_layout %tile, "
              "%scratch : tensor<S, #from> -> tensor<S, #to>, !jfa.slot<S>`";
  result.addTypes(to);
  return parser.resolveOperands({value, scratch}, {from, slot}, loc,
                                result.operands);
}

void ConvertLayoutOp::print(OpAsmPrinter &p) {
  p << ' ' << getValue() << ", " << getScratch();
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : " << getValue().getType() << " -> " << getType() << ", "
    << getScratch().getType();
}

LogicalResult ConvertLayoutOp::verify() {
  auto from = getValue().getType(), to = getType();
  if (from.getShape() != to.getShape() ||
      from.getElementType() != to.getElementType())
    return emitOpError() << "converts between layouts of one tile; " << from
                         << " and " << to << " differ in shape or type";
  for (RankedTensorType tile : {from, to})
    if (failed(verifyTileLayout(*this, tile)))
      return failure();
  SlotType scratch = getScratch().getType();
  if (failed(verifyNotTransposed(*this, scratch)) ||
      failed(verifyNotBlocked(*this, scratch, "the scratch slot")))
    return failure();
  if (scratch.getShape() != from.getShape() ||
      scratch.getElementType() != from.getElementType())
    return emitOpError() << "scratch slot " << scratch << " must hold the tile "
                         << from;
  return success();
}

//===----------------------------------------------------------------------===//
// Debug mode
//===----------------------------------------------------------------------===//

LogicalResult DebugTrapOp::verify() {
  // vprintf reads one argument per conversion: a mismatch prints garbage or
  // reads past the argument buffer.
  StringRef format = getFormat();
  size_t conversions = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%')
      continue;
    if (i + 1 < format.size() && format[i + 1] == '%') {
      ++i;
      continue;
    }
    ++conversions;
  }
  if (conversions != getArgs().size())
    return emitOpError() << "format has " << conversions << " conversions but "
                         << getArgs().size() << " arguments are given";
  return success();
}

//===----------------------------------------------------------------------===//
// Row vectors to and from global memory
//===----------------------------------------------------------------------===//

/// A row vector (`#jfa.rows_of<L>`) of the pointer's element type, or the
/// distributed form with everything its lowering needs.
static LogicalResult
verifyRowVectorAccess(Operation *op, Type type, GlobalPtrType ptr, Value thread,
                      std::optional<uint32_t> threads, Attribute layout,
                      std::optional<ArrayRef<int64_t>> shape) {
  auto tile = dyn_cast<RankedTensorType>(type);
  if (!tile) {
    if (!thread || !threads || !isa_and_nonnull<RowsOfLayoutAttr>(layout) ||
        !shape)
      return op->emitOpError() << "in distributed form needs the thread, the "
                                  "thread count, a #jfa.rows_of layout and "
                                  "the shape";
    return success();
  }
  if (!isa_and_nonnull<RowsOfLayoutAttr>(tile.getEncoding()))
    return op->emitOpError()
           << "moves row vectors (tensor<M x T, #jfa.rows_of<L>>, as "
              "jfa.reduce_rows makes them), got "
           << tile;
  if (failed(verifyTileLayout(op, tile)))
    return failure();
  if (tile.getElementType() != ptr.getElementType())
    return op->emitOpError() << "row vector " << tile << " and pointer " << ptr
                             << " differ in element type";
  return success();
}

LogicalResult StoreRowsOp::verify() {
  return verifyRowVectorAccess(*this, getValue().getType(), getPtr().getType(),
                               getThread(), getThreads(), getLayoutAttr(),
                               getShape());
}

LogicalResult LoadRowsOp::verify() {
  return verifyRowVectorAccess(*this, getType(), getPtr().getType(),
                               getThread(), getThreads(), getLayoutAttr(),
                               getShape());
}

static LogicalResult verifyScalarSlot(Operation *op, SlotType slot,
                                      Type element);

LogicalResult LoadColsOp::verify() {
  // A constant offset must not start before the source; a slot read without
  // a bound must lie inside it (nothing else bounds the read on the GPU).
  std::optional<int64_t> offset;
  APInt constant;
  if (matchPattern(getOffset(), m_ConstantInt(&constant)))
    offset = constant.getSExtValue();
  if (offset && *offset < 0)
    return emitOpError() << "offset " << *offset
                         << " is negative: the read would start before the "
                            "source";
  Type element;
  std::optional<int64_t> slotElements;
  if (auto slot = dyn_cast<SlotType>(getSource().getType())) {
    element = slot.getElementType();
    if (failed(verifyScalarSlot(*this, slot, element)))
      return failure();
    slotElements = 1;
    for (int64_t d : slot.getShape())
      *slotElements *= d;
  } else {
    if (!getCount())
      return emitOpError() << "from global memory needs cols(%count): the "
                              "columns past it are never read";
    element = cast<GlobalPtrType>(getSource().getType()).getElementType();
  }
  auto tile = dyn_cast<RankedTensorType>(getType());
  if (!tile) {
    auto fragment = dyn_cast<VectorType>(getType());
    TileLayoutAttrInterface layout = getLayoutAttr();
    if (!fragment || !getThread() || !getThreads() || !layout || !getShape())
      return emitOpError() << "in distributed form needs the thread, the "
                              "thread count, the layout and the shape";
    if (isa<RowsOfLayoutAttr>(layout) || getShape()->size() != 2)
      return emitOpError() << "in distributed form loads a fragment of a 2-d "
                              "tile, got layout "
                           << layout;
    return verifyFragmentSize(*this, fragment, layout, *getShape(),
                              *getThreads());
  }
  if (isa_and_nonnull<RowsOfLayoutAttr>(tile.getEncoding()))
    return emitOpError() << "loads 2-d tiles (one value per column); use "
                            "jfa.load_rows for the row vector "
                         << tile;
  if (tile.getRank() != 2)
    return emitOpError() << "loads 2-d tiles, got " << tile;
  if (failed(verifyTileLayout(*this, tile)))
    return failure();
  if (tile.getElementType() != element)
    return emitOpError() << "tile " << tile << " and source "
                         << getSource().getType() << " differ in element type";
  int64_t cols = tile.getShape()[1];
  if (slotElements && !getCount() && offset.value_or(0) + cols > *slotElements)
    return emitOpError() << "reads elements [" << offset.value_or(0) << ", "
                         << offset.value_or(0) + cols << ") of "
                         << getSource().getType() << ", which has "
                         << *slotElements
                         << "; bound the columns with cols(%count)";
  return success();
}

LogicalResult StoreTileOp::verify() {
  GlobalPtrType ptr = getPtr().getType();
  if (getAdd() && !ptr.getElementType().isF32())
    return emitOpError() << "adds atomically to f32 memory only, got " << ptr;
  auto tile = dyn_cast<RankedTensorType>(getValue().getType());
  if (!tile) {
    if (!getThread() || !getThreads() || !getLayoutAttr() || !getShape())
      return emitOpError() << "in distributed form needs the thread, the "
                              "thread count, the layout and the shape";
    return success();
  }
  if (isa_and_nonnull<RowsOfLayoutAttr>(tile.getEncoding()))
    return emitOpError() << "stores 2-d tiles; use jfa.store_rows for the row "
                            "vector "
                         << tile;
  if (tile.getRank() != 2)
    return emitOpError() << "stores 2-d tiles, got " << tile;
  if (failed(verifyTileLayout(*this, tile)))
    return failure();
  if (tile.getElementType() != ptr.getElementType())
    return emitOpError() << "tile " << tile << " and pointer " << ptr
                         << " differ in element type";
  return success();
}

//===----------------------------------------------------------------------===//
// Scalars and rings
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  Type element = getPtr().getType().getElementType();
  if (getType() != element)
    return emitOpError() << "loads " << element << " from "
                         << getPtr().getType() << ", not " << getType();
  return success();
}

LogicalResult StoreOp::verify() {
  Type element = getPtr().getType().getElementType();
  if (getValue().getType() != element)
    return emitOpError() << "stores " << getValue().getType() << " to "
                         << getPtr().getType() << ", not " << element;
  return success();
}

/// A slot read or written element by element: unswizzled, as stored.
static LogicalResult verifyScalarSlot(Operation *op, SlotType slot,
                                      Type element) {
  if (slot.getSwizzle() != 0 || slot.getTransposed())
    return op->emitOpError()
           << "needs an unswizzled, untransposed slot for element access, "
              "got "
           << slot;
  if (slot.getElementType() != element)
    return op->emitOpError() << "accesses " << element << " in " << slot;
  return success();
}

LogicalResult AtomicFetchAddOp::verify() {
  Type element = getCounter().getType().getElementType();
  if (!element.isInteger(32))
    return emitOpError() << "needs an i32 counter, got "
                         << getCounter().getType();
  if (failed(verifyPeerCta(*this, getCta(), "with `and cta` writes into",
                           "writes into")))
    return failure();
  return verifyScalarSlot(*this, getSlot().getType(), element);
}

LogicalResult LoadScalarOp::verify() {
  return verifyScalarSlot(*this, getSlot().getType(), getType());
}

LogicalResult RingPositionOp::verify() {
  int64_t stages = asWritten(getStagesAttr());
  if (stages < 1 || stages > 64)
    return emitOpError() << "stages must be in [1, 64], got " << stages;
  return success();
}
