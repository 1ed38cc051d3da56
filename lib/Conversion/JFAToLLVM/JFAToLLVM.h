//===- JFAToLLVM.h - JFA to the LLVM and NVVM dialects ----------*- C++ -*-===//
//
// The conversion, one file per hardware concept, each adding its patterns:
//
//   SharedMemoryToLLVM.cpp  buffers, slots, fragments of register tiles
//   BarrierToLLVM.cpp       mbarriers and named barriers
//   TMAToLLVM.cpp           TMA copies and the async-proxy fence
//   WGMMAToLLVM.cpp         wgmma (targets with the wgmma feature)
//   TensorMemoryToLLVM.cpp  tensor memory and tcgen05 (the tcgen05 feature)
//   RowOpsToLLVM.cpp        row reductions, row broadcasts, index tiles
//   KernelToLLVM.cpp        the kernel signature and grid/thread ids
//   MathToLLVM.cpp          logarithms (lg2.approx), which NVPTX lacks
//   DebugToLLVM.cpp         the --debug-barriers probes and reports
//
// The files whose ops exist on some targets only take a TargetInfo (Utils.h)
// and add their patterns where the target has the feature.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_CONVERSION_JFATOLLVM_JFATOLLVM_H
#define JFA_CONVERSION_JFATOLLVM_JFATOLLVM_H

#include "lib/Conversion/JFAToLLVM/Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace jfa {

void populateSharedMemoryToLLVMPatterns(JFATypeConverter &converter,
                                        mlir::RewritePatternSet &patterns);
void populateBarrierToLLVMPatterns(JFATypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
void populateTMAToLLVMPatterns(JFATypeConverter &converter,
                               mlir::RewritePatternSet &patterns,
                               const TargetInfo &targetInfo);
void populateWGMMAToLLVMPatterns(JFATypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 const TargetInfo &targetInfo);
void populateTensorMemoryToLLVMPatterns(JFATypeConverter &converter,
                                        mlir::RewritePatternSet &patterns,
                                        const TargetInfo &targetInfo);
void populateRowOpsToLLVMPatterns(JFATypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
/// Marks the tcgen05 ops (jfa.tc_commit, jfa.tmem_alloc, jfa.tmem_dealloc)
/// of a kernel of CTA-pair products before the conversion, which the
/// kernel's signature conversion would otherwise hide: they lower to
/// cta_group::2.
constexpr llvm::StringLiteral kCtaPairAttrName = "jfa.cta_pair";

/// The number of CTAs in the cluster of an op whose kernel has become an
/// llvm.func (the signature is converted first): from its nvvm.cluster_dim
/// (KernelOp::getClusterSize before).
int64_t convertedClusterSize(mlir::Operation *op);
/// `threadIndexAtUse`: jfa.thread_id reads %tid.x where it is (see the
/// pass's thread-index-at-use option), not through the hoistable intrinsic.
void populateKernelToLLVMPatterns(JFATypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  bool threadIndexAtUse = false);
void populateMathToLLVMPatterns(JFATypeConverter &converter,
                                mlir::RewritePatternSet &patterns);
void populateGlobalMemoryToLLVMPatterns(JFATypeConverter &converter,
                                        mlir::RewritePatternSet &patterns);
/// math.exp2 with fastmath<afn>: the conversion lowers it to ex2.approx.ftz.
bool isFastExp2(mlir::math::Exp2Op op);
void populateDebugToLLVMPatterns(JFATypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);

/// Replaces a jfa.kernel by an llvm.func carrying the NVVM launch facts.
mlir::LogicalResult convertKernelSignature(KernelOp kernel,
                                           const JFATypeConverter &converter);

} // namespace jfa

#endif // JFA_CONVERSION_JFATOLLVM_JFATOLLVM_H
