// Jagged attention backward, step 3 (both targets): dq from the f32
// workspace the backward kernel added its partial sums into, rounded to
// bf16 (to nearest even, as torch's .to(torch.bfloat16)).
//
//   dq[t * dq_stride + c] = bf16(dq_accum[t * dq_accum_stride + c]),  c < cols
//
// cols = H * D. Grid: T x ceil(cols / 512) CTAs of 128 threads; each thread
// converts 4 columns 128 apart, loading all four before it stores (four
// loads in flight), a warp reading 128 contiguous bytes and writing 64.
// Columns past the end are clamped to the last one: those threads convert
// it again and write the same value, no branch on the thread id.
jfa.kernel @attention_bwd_dq_convert(%dq_accum: !jfa.ptr<f32>,
                                     %dq_accum_stride: i32,
                                     %dq: !jfa.ptr<bf16>, %dq_stride: i32,
                                     %cols: i32) warps(4) {
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %c384 = arith.constant 384 : i32
  %c512 = arith.constant 512 : i32
  %token = jfa.program_id x
  %chunk = jfa.program_id y
  %tid = jfa.thread_id
  %chunk0 = arith.muli %chunk, %c512 : i32
  %col0 = arith.addi %chunk0, %tid : i32
  %last = arith.subi %cols, %c1 : i32
  %in_row = arith.muli %token, %dq_accum_stride : i32
  %out_row = arith.muli %token, %dq_stride : i32

  %u0 = arith.minsi %col0, %last : i32
  %col1u = arith.addi %col0, %c128 : i32
  %u1 = arith.minsi %col1u, %last : i32
  %col2u = arith.addi %col0, %c256 : i32
  %u2 = arith.minsi %col2u, %last : i32
  %col3u = arith.addi %col0, %c384 : i32
  %u3 = arith.minsi %col3u, %last : i32

  %i0 = arith.addi %in_row, %u0 : i32
  %i1 = arith.addi %in_row, %u1 : i32
  %i2 = arith.addi %in_row, %u2 : i32
  %i3 = arith.addi %in_row, %u3 : i32
  %x0 = jfa.load %dq_accum[%i0] : !jfa.ptr<f32> -> f32
  %x1 = jfa.load %dq_accum[%i1] : !jfa.ptr<f32> -> f32
  %x2 = jfa.load %dq_accum[%i2] : !jfa.ptr<f32> -> f32
  %x3 = jfa.load %dq_accum[%i3] : !jfa.ptr<f32> -> f32
  %y0 = arith.truncf %x0 : f32 to bf16
  %y1 = arith.truncf %x1 : f32 to bf16
  %y2 = arith.truncf %x2 : f32 to bf16
  %y3 = arith.truncf %x3 : f32 to bf16
  %o0 = arith.addi %out_row, %u0 : i32
  %o1 = arith.addi %out_row, %u1 : i32
  %o2 = arith.addi %out_row, %u2 : i32
  %o3 = arith.addi %out_row, %u3 : i32
  jfa.store %y0, %dq[%o0] : bf16, !jfa.ptr<bf16>
  jfa.store %y1, %dq[%o1] : bf16, !jfa.ptr<bf16>
  jfa.store %y2, %dq[%o2] : bf16, !jfa.ptr<bf16>
  jfa.store %y3, %dq[%o3] : bf16, !jfa.ptr<bf16>
}
