// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// The element parameter's errors (docs/DIALECT.md, "A helper for every
// element type"): not a type, a type that is no element, one no argument or
// result holds, a call whose types disagree with the bound signature, and a
// bound element that a signature type's rows do not divide into.

// expected-error @below {{element_parameter must be a type (a shared-memory element, e.g. bf16), got 3 : i64}}
jfa.func @number(%a: !jfa.smem<1 x 64x64xbf16>) attributes {element_parameter = 3} {
  jfa.return
}

// -----

// expected-error @below {{'jfa.func' op element parameter must be an integer or float type of whole bytes (a shared-memory element, e.g. bf16), got 'index'}}
jfa.func @index(%a: !jfa.smem<1 x 64x64xbf16>) attributes {element_parameter = index} {
  jfa.return
}

// -----

// expected-error @below {{'jfa.func' op element parameter must be an integer or float type of whole bytes (a shared-memory element, e.g. bf16), got 'i4'}}
jfa.func @nibble(%a: !jfa.smem<1 x 64x64xbf16>) attributes {element_parameter = i4} {
  jfa.return
}

// -----

// expected-error @below {{'jfa.func' op names 'f16' its element parameter, but no argument or result is a !jfa.smem, !jfa.slot or !jfa.tma of 'f16'}}
jfa.func @unused(%a: !jfa.smem<1 x 64x64xbf16>, %t: tensor<64x64xf16>) attributes {element_parameter = f16} {
  jfa.return
}

// -----

jfa.func @pair(%a: !jfa.tma<64x64xbf16, swizzle 128>, %b: !jfa.smem<1 x 64x64xbf16, swizzle 128>)
    attributes {element_parameter = bf16} {
  jfa.return
}
jfa.kernel @k(%a: !jfa.tma<64x128xf8E4M3FN, swizzle 128>) warps(4) {
  %b = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  // expected-error @below {{'jfa.call' op has type '(!jfa.tma<64x128xf8E4M3FN, swizzle 128>, !jfa.smem<1 x 64x64xbf16, swizzle 128>) -> ()' but @pair is '(!jfa.tma<64x128xf8E4M3FN, swizzle 128>, !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>) -> ()' (its element parameter 'bf16' bound to 'f8E4M3FN')}}
  jfa.call @pair(%a, %b) : (!jfa.tma<64x128xf8E4M3FN, swizzle 128>, !jfa.smem<1 x 64x64xbf16, swizzle 128>) -> ()
}

// -----

jfa.func @odd(%a: !jfa.smem<1 x 8x16xbf16>, %b: !jfa.smem<1 x 8x3xbf16>)
    attributes {element_parameter = bf16} {
  jfa.return
}
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 8x8xf32>
  %b = jfa.local_alloc : !jfa.smem<1 x 8x3xbf16>
  // expected-error @below {{'jfa.call' op binds the element parameter 'bf16' of @odd to 'f32', but !jfa.smem<1 x 8x3xbf16> does not scale: its rows of 3 bf16 (48 bits) are no whole number of f32 (32 bits each)}}
  jfa.call @odd(%a, %b) : (!jfa.smem<1 x 8x8xf32>, !jfa.smem<1 x 8x3xbf16>) -> ()
}
