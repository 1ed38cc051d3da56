jfa.import "cycle_a.mlir"
