jfa.import "cycle_b.mlir"
