//===- LLVMBuilder.cpp - index arithmetic in the LLVM dialect -------------===//
#include "JFA/LLVMBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace jfa {

Value LLVMBuilder::i32(int64_t v) {
  return LLVM::ConstantOp::create(*this, getI32Type(), getI32IntegerAttr(v));
}
Value LLVMBuilder::i64(int64_t v) {
  return LLVM::ConstantOp::create(*this, getI64Type(), getI64IntegerAttr(v));
}
Value LLVMBuilder::constLike(Value x, int64_t v) {
  return x.getType().isInteger(64) ? i64(v) : i32(v);
}
Value LLVMBuilder::add(Value x, Value y) {
  return LLVM::AddOp::create(*this, x, y);
}
Value LLVMBuilder::add(Value x, int64_t y) { return add(x, constLike(x, y)); }
Value LLVMBuilder::mul(Value x, Value y) {
  return LLVM::MulOp::create(*this, x, y);
}
Value LLVMBuilder::mul(Value x, int64_t y) { return mul(x, constLike(x, y)); }
Value LLVMBuilder::udiv(Value x, int64_t y) {
  return LLVM::UDivOp::create(*this, x, constLike(x, y));
}
Value LLVMBuilder::urem(Value x, int64_t y) {
  return LLVM::URemOp::create(*this, x, constLike(x, y));
}
Value LLVMBuilder::lshr(Value x, int64_t y) {
  return LLVM::LShrOp::create(*this, x, constLike(x, y));
}
Value LLVMBuilder::element(Value vector, int64_t i) {
  return LLVM::ExtractElementOp::create(*this, vector, i32(i));
}
Value LLVMBuilder::insert(Value vector, Value value, int64_t i) {
  return LLVM::InsertElementOp::create(*this, vector, value, i32(i));
}

} // namespace jfa
