jfa.import "nowhere.mlir"
