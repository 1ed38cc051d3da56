// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// The stage parameter's errors: a count no ring of the signature has, one
// out of range, and a call whose rings disagree with the bound count.

// expected-error @below {{'jfa.func' op names 2 its stage parameter, but no argument or result is a !jfa.smem or !jfa.mbarriers of 2 slots}}
jfa.func @no_ring(%full: !jfa.mbarriers<3>) attributes {stage_parameter = 2} {
  jfa.return
}

// -----

// expected-error @below {{'jfa.func' op stage parameter must be in [1, 64], got 0}}
jfa.func @zero(%full: !jfa.mbarriers<3>) attributes {stage_parameter = 0} {
  jfa.return
}

// -----

jfa.func @ring(%ring: !jfa.smem<3 x 64x64xbf16>, %full: !jfa.mbarriers<3>)
    attributes {stage_parameter = 3} {
  jfa.return
}
jfa.kernel @k() warps(4) {
  %ring = jfa.local_alloc : !jfa.smem<4 x 64x64xbf16>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  // expected-error @below {{'jfa.call' op has type '(!jfa.smem<4 x 64x64xbf16>, !jfa.mbarriers<2>) -> ()' but @ring is '(!jfa.smem<4 x 64x64xbf16>, !jfa.mbarriers<4>) -> ()' (its stage parameter 3 bound to 4)}}
  jfa.call @ring(%ring, %full) : (!jfa.smem<4 x 64x64xbf16>, !jfa.mbarriers<2>) -> ()
}

// -----

// expected-error @below {{stage_parameter must be an integer (a ring's slot count), got "three"}}
jfa.func @string(%full: !jfa.mbarriers<3>) attributes {stage_parameter = "three"} {
  jfa.return
}

// -----

// expected-error @below {{layout_parameter must be a tile layout (e.g. #jfa.wgmma_acc), got 3 : i64}}
jfa.func @number(%full: !jfa.mbarriers<3>) attributes {layout_parameter = 3} {
  jfa.return
}
