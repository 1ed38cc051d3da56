// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm --verify-diagnostics
// The conversion takes the target from the module (`jfa.target`, recorded by
// jfa-check-target) and adds only the patterns of the features it has
// (TargetInfo, lib/Conversion/JFAToLLVM/Utils.h): tensor memory does not
// lower for sm_90a, wgmma does not lower for sm_100a. (jfa-check-target
// rejects such ops with a reason first; this is the conversion alone.)

module attributes {jfa.target = "sm_90a"} {
  jfa.kernel @tmem_on_sm90() warps(4) {
    // expected-error @+1 {{failed to legalize operation 'jfa.tmem_alloc'}}
    %acc = jfa.tmem_alloc {offset = 0 : i64} : !jfa.tmem<128x32xf32>
    jfa.tmem_dealloc %acc : !jfa.tmem<128x32xf32>
  }
}

// -----

// On sm_100a the same kernel lowers.
module attributes {jfa.target = "sm_100a"} {
  jfa.kernel @tmem_on_sm100() warps(4) {
    %acc = jfa.tmem_alloc {offset = 0 : i64} : !jfa.tmem<128x32xf32>
    jfa.tmem_dealloc %acc : !jfa.tmem<128x32xf32>
  }
}
