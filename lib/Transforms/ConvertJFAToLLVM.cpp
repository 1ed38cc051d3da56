//===- ConvertJFAToLLVM.cpp - JFA to the LLVM and NVVM dialects
//-------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Transforms/DialectConversion.h"

namespace jfa {
#define GEN_PASS_DEF_JFACONVERTTOLLVM
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {

constexpr StringLiteral kSharedWindow = "jfa_smem";
/// A CUtensorMap is 128 bytes and must be 64-byte aligned.
constexpr int64_t kTensorMapBytes = 128;
/// How long one mbarrier probe may suspend the thread (ns) before retrying.
constexpr int64_t kWaitSuspendTimeHint = 10000000;

Type sharedPtr(MLIRContext *ctx) { return LLVM::LLVMPointerType::get(ctx, 3); }

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                  b.getI32IntegerAttr(v));
}

Value toI32(OpBuilder &b, Location loc, Value v) {
  auto type = cast<IntegerType>(v.getType());
  if (type.getWidth() == 32)
    return v;
  if (type.getWidth() > 32)
    return LLVM::TruncOp::create(b, loc, b.getI32Type(), v);
  return LLVM::ZExtOp::create(b, loc, b.getI32Type(), v);
}

/// Address `offset` bytes into the kernel's dynamic shared-memory window.
Value sharedAddress(OpBuilder &b, Location loc, int64_t offset) {
  MLIRContext *ctx = b.getContext();
  Value base = LLVM::AddressOfOp::create(b, loc, sharedPtr(ctx), kSharedWindow);
  if (offset == 0)
    return base;
  return LLVM::GEPOp::create(b, loc, sharedPtr(ctx), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

struct JFATypeConverter : LLVMTypeConverter {
  explicit JFATypeConverter(MLIRContext *ctx) : LLVMTypeConverter(ctx) {
    addConversion([ctx](SharedBufferType) { return sharedPtr(ctx); });
    addConversion([ctx](SlotType) { return sharedPtr(ctx); });
    addConversion([ctx](BarrierArrayType) { return sharedPtr(ctx); });
    addConversion([ctx](BarrierType) { return sharedPtr(ctx); });
    // A __grid_constant__ parameter is used through its generic address.
    addConversion(
        [ctx](TensorDescType) { return LLVM::LLVMPointerType::get(ctx); });
    addConversion(
        [ctx](GlobalPtrType) { return LLVM::LLVMPointerType::get(ctx, 1); });
  }
};

template <typename Op> struct JFAPattern : ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
};

struct LocalAllocLowering : JFAPattern<LocalAllocOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOffset())
      return op.emitOpError()
             << "has no shared-memory offset; run jfa-allocate-shared-memory";
    rewriter.replaceOp(op,
                       sharedAddress(rewriter, op.getLoc(), *op.getOffset()));
    return success();
  }
};

struct AllocBarriersLowering : JFAPattern<AllocBarriersOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(AllocBarriersOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOffset())
      return op.emitOpError()
             << "has no shared-memory offset; run jfa-allocate-shared-memory";
    Location loc = op.getLoc();
    Value base = sharedAddress(rewriter, loc, *op.getOffset());
    // Thread 0 initializes every barrier; the fence and the CTA barrier make
    // the initialization visible to all threads and to the async proxy.
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value leader = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                        tid, constI32(rewriter, loc, 0));
    Value count = constI32(rewriter, loc, op.getArriveCount());
    for (int64_t i = 0, e = op.getType().getSize(); i < e; ++i) {
      Value bar = LLVM::GEPOp::create(rewriter, loc, sharedPtr(getContext()),
                                      rewriter.getI64Type(), base,
                                      ArrayRef<LLVM::GEPArg>{int32_t(i)});
      NVVM::MBarrierInitOp::create(rewriter, loc, bar, count, leader);
    }
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    NVVM::Barrier0Op::create(rewriter, loc);
    rewriter.replaceOp(op, base);
    return success();
  }
};

/// slot/barrier: base + index * element size.
struct SlotLowering : JFAPattern<SlotOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(SlotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t bytes = op.getBuffer().getType().getSlotBytes();
    Type slotType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), bytes);
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, sharedPtr(getContext()), slotType, adaptor.getBuffer(),
        ArrayRef<LLVM::GEPArg>{adaptor.getIndex()});
    return success();
  }
};

struct BarrierLowering : JFAPattern<BarrierOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, sharedPtr(getContext()), rewriter.getI64Type(),
        adaptor.getBarriers(), ArrayRef<LLVM::GEPArg>{adaptor.getIndex()});
    return success();
  }
};

/// Thread t of T owns the chunks t, t+T, ... of `chunk` elements (16 bytes
/// or less) of the row-major slot.
struct FragmentGeometry {
  int64_t chunk;     // elements per vector access
  int64_t numChunks; // accesses per thread
};

FragmentGeometry fragmentGeometry(VectorType fragment) {
  int64_t elementBytes = getElementBytes(fragment.getElementType());
  int64_t perThread = fragment.getNumElements();
  int64_t chunk = std::max<int64_t>(1, 16 / elementBytes);
  while (perThread % chunk != 0)
    chunk /= 2;
  return {chunk, perThread / chunk};
}

/// Address of chunk `j` of thread `thread`'s fragment.
Value chunkAddress(OpBuilder &b, Location loc, Value slot, Value thread,
                   int64_t j, int64_t threads, FragmentGeometry g,
                   Type elementType) {
  // element = (j * threads + thread) * chunk
  Value index =
      LLVM::AddOp::create(b, loc, thread, constI32(b, loc, j * threads));
  index = LLVM::MulOp::create(b, loc, index, constI32(b, loc, g.chunk));
  return LLVM::GEPOp::create(b, loc, slot.getType(), elementType, slot,
                             ArrayRef<LLVM::GEPArg>{index});
}

struct LoadFragmentLowering : JFAPattern<LoadFragmentOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(LoadFragmentOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    VectorType fragment = op.getType();
    Type element = fragment.getElementType();
    FragmentGeometry g = fragmentGeometry(fragment);
    auto chunkType = VectorType::get({g.chunk}, element);
    int64_t align = g.chunk * getElementBytes(element);
    Value result = LLVM::PoisonOp::create(rewriter, loc, fragment);
    for (int64_t j = 0; j < g.numChunks; ++j) {
      Value addr =
          chunkAddress(rewriter, loc, adaptor.getSlot(), adaptor.getThread(), j,
                       op.getThreads(), g, element);
      Value chunk = LLVM::LoadOp::create(rewriter, loc, chunkType, addr, align);
      for (int64_t v = 0; v < g.chunk; ++v) {
        Value x = LLVM::ExtractElementOp::create(rewriter, loc, chunk,
                                                 constI32(rewriter, loc, v));
        result = LLVM::InsertElementOp::create(
            rewriter, loc, result, x, constI32(rewriter, loc, j * g.chunk + v));
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StoreFragmentLowering : JFAPattern<StoreFragmentOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(StoreFragmentOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    VectorType fragment = op.getValue().getType();
    Type element = fragment.getElementType();
    FragmentGeometry g = fragmentGeometry(fragment);
    auto chunkType = VectorType::get({g.chunk}, element);
    int64_t align = g.chunk * getElementBytes(element);
    for (int64_t j = 0; j < g.numChunks; ++j) {
      Value chunk = LLVM::PoisonOp::create(rewriter, loc, chunkType);
      for (int64_t v = 0; v < g.chunk; ++v) {
        Value x = LLVM::ExtractElementOp::create(
            rewriter, loc, adaptor.getValue(),
            constI32(rewriter, loc, j * g.chunk + v));
        chunk = LLVM::InsertElementOp::create(rewriter, loc, chunk, x,
                                              constI32(rewriter, loc, v));
      }
      Value addr =
          chunkAddress(rewriter, loc, adaptor.getSlot(), adaptor.getThread(), j,
                       op.getThreads(), g, element);
      LLVM::StoreOp::create(rewriter, loc, chunk, addr, align);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierExpectLowering : JFAPattern<BarrierExpectOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::MBarrierArriveExpectTxOp::create(
        rewriter, loc, rewriter.getI64Type(), adaptor.getBarrier(),
        constI32(rewriter, loc, op.getBytes()), NVVM::MemScopeKind::CTA,
        /*relaxed=*/false, /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierArriveLowering : JFAPattern<BarrierArriveOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::MBarrierArriveOp::create(rewriter, op.getLoc(), rewriter.getI64Type(),
                                   adaptor.getBarrier(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierWaitLowering : JFAPattern<BarrierWaitOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<NVVM::MBarrierTryWaitParityOp>(
        op, adaptor.getBarrier(), adaptor.getPhase(),
        constI32(rewriter, loc, kWaitSuspendTimeHint));
    return success();
  }
};

/// TMA coordinates are innermost first; JFA's are outermost first.
SmallVector<Value> tmaCoordinates(ValueRange coords) {
  return llvm::to_vector(llvm::reverse(coords));
}

struct TMALoadLowering : JFAPattern<TMALoadOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMALoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        rewriter, op.getLoc(), adaptor.getSlot(), adaptor.getDesc(),
        tmaCoordinates(adaptor.getCoords()), adaptor.getBarrier(), ValueRange{},
        /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
        NVVM::TMALoadMode::TILE, /*isCTAOnly=*/true,
        /*group=*/NVVM::CTAGroupKindAttr(), /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreLowering : JFAPattern<TMAStoreOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMAStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        rewriter, op.getLoc(), adaptor.getDesc(), adaptor.getSlot(),
        tmaCoordinates(adaptor.getCoords()), /*l2CacheHint=*/Value(),
        NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreWaitLowering : JFAPattern<TMAStoreWaitOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMAStoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, op.getPending(), rewriter.getUnitAttr());
    return success();
  }
};

struct FenceAsyncSharedLowering : JFAPattern<FenceAsyncSharedOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(getContext(),
                                   NVVM::SharedSpace::shared_cta));
    return success();
  }
};

struct NamedBarrierSyncLowering : JFAPattern<NamedBarrierSyncOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierSyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::BarrierOp::create(rewriter, loc, Type(),
                            constI32(rewriter, loc, op.getId()),
                            constI32(rewriter, loc, op.getThreads()),
                            NVVM::BarrierReductionAttr(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct NamedBarrierArriveLowering : JFAPattern<NamedBarrierArriveOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<NVVM::BarrierArriveOp>(
        op, constI32(rewriter, loc, op.getId()),
        constI32(rewriter, loc, op.getThreads()));
    return success();
  }
};

template <typename Op, typename X, typename Y, typename Z>
struct GridIndexLowering : JFAPattern<Op> {
  using JFAPattern<Op>::JFAPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value v;
    switch (op.getDim()) {
    case Dim::x:
      v = X::create(rewriter, op.getLoc(), i32);
      break;
    case Dim::y:
      v = Y::create(rewriter, op.getLoc(), i32);
      break;
    case Dim::z:
      v = Z::create(rewriter, op.getLoc(), i32);
      break;
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

struct ThreadIdLowering : JFAPattern<ThreadIdOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(ThreadIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::ThreadIdXOp>(op, rewriter.getI32Type());
    return success();
  }
};

/// Replaces a jfa.kernel by an llvm.func carrying the NVVM launch facts. The
/// body moves unchanged; its arguments get LLVM types behind casts that the
/// conversion folds away.
LogicalResult convertKernelSignature(KernelOp kernel,
                                     const JFATypeConverter &converter) {
  MLIRContext *ctx = kernel.getContext();
  OpBuilder b(kernel);
  SmallVector<Type> inputs;
  for (Type t : kernel.getFunctionType().getInputs()) {
    Type converted = converter.convertType(t);
    if (!converted)
      return kernel.emitOpError() << "cannot lower parameter type " << t;
    inputs.push_back(converted);
  }
  auto fnType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), inputs);
  auto fn =
      LLVM::LLVMFuncOp::create(b, kernel.getLoc(), kernel.getSymName(), fnType);
  fn->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  int32_t threads = kernel.getNumThreads();
  fn->setAttr("nvvm.reqntid", b.getDenseI32ArrayAttr({threads, 1, 1}));
  if (auto entry = kernel->getAttrOfType<IntegerAttr>("jfa.entry_registers")) {
    // setmaxnreg needs a known register count at entry.
    fn->setAttr("nvvm.maxnreg", b.getI32IntegerAttr(entry.getInt()));
    fn->setAttr("nvvm.minctasm", b.getI32IntegerAttr(1));
  }
  if (auto cluster = kernel.getClusterDims())
    fn->setAttr("nvvm.cluster_dim", b.getDenseI32ArrayAttr(*cluster));

  for (auto [i, t] : llvm::enumerate(kernel.getFunctionType().getInputs())) {
    if (!isa<TensorDescType>(t))
      continue;
    fn.setArgAttr(i, "llvm.byval",
                  TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(),
                                                         kTensorMapBytes)));
    fn.setArgAttr(i, "nvvm.grid_constant", b.getUnitAttr());
    fn.setArgAttr(i, "llvm.align", b.getI64IntegerAttr(64));
  }

  fn.getBody().takeBody(kernel.getBody());
  Block &entry = fn.getBody().front();
  b.setInsertionPointToStart(&entry);
  for (auto [arg, type] : llvm::zip(entry.getArguments(), inputs)) {
    Type original = arg.getType();
    if (original == type)
      continue;
    arg.setType(type);
    auto cast =
        UnrealizedConversionCastOp::create(b, kernel.getLoc(), original, arg);
    arg.replaceAllUsesExcept(cast.getResult(0), cast);
  }
  b.setInsertionPointToEnd(&entry);
  LLVM::ReturnOp::create(b, kernel.getLoc(), ValueRange{});
  kernel.erase();
  return success();
}

struct ConvertJFAToLLVM : jfa::impl::JFAConvertToLLVMBase<ConvertJFAToLLVM> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    JFATypeConverter converter(ctx);

    // The dynamic shared-memory window every buffer and barrier lives in.
    bool usesShared = false;
    module.walk([&](Operation *op) {
      usesShared |= isa<LocalAllocOp, AllocBarriersOp>(op);
    });
    if (usesShared && !module.lookupSymbol(kSharedWindow)) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      LLVM::GlobalOp::create(b, module.getLoc(),
                             LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                             /*isConstant=*/false, LLVM::Linkage::External,
                             kSharedWindow, Attribute(),
                             /*alignment=*/kSharedBufferAlignment,
                             /*addrSpace=*/3);
    }

    for (auto kernel : llvm::make_early_inc_range(module.getOps<KernelOp>()))
      if (failed(convertKernelSignature(kernel, converter)))
        return signalPassFailure();

    {
      RewritePatternSet patterns(ctx);
      patterns.add<LocalAllocLowering, AllocBarriersLowering, SlotLowering,
                   BarrierLowering, LoadFragmentLowering, StoreFragmentLowering,
                   BarrierExpectLowering, BarrierArriveLowering,
                   BarrierWaitLowering, TMALoadLowering, TMAStoreLowering,
                   TMAStoreWaitLowering, FenceAsyncSharedLowering,
                   NamedBarrierSyncLowering, NamedBarrierArriveLowering,
                   ThreadIdLowering,
                   GridIndexLowering<ProgramIdOp, NVVM::BlockIdXOp,
                                     NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
                   GridIndexLowering<NumProgramsOp, NVVM::GridDimXOp,
                                     NVVM::GridDimYOp, NVVM::GridDimZOp>>(
          converter);
      ConversionTarget target(*ctx);
      target.addIllegalDialect<JFADialect>();
      target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }
  }
};
} // namespace
