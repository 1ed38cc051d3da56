# Sourced by the scripts that compile kernel variants. variant_args "k=v k=v"
# sets `params` (jfac's -P flags) and `suffix` (".k=v.k=v": the tail of the
# cubin's name that the runtime looks up, kernels/jagged_attention/README.md).
variant_args() {
  params=() suffix=
  local pair
  for pair in $1; do
    params+=(-P "$pair")
    suffix+=".$pair"
  done
}
