#!/bin/sh
# A stand-in for `jfac compile MLIR --arch ARCH [-P NAME=VALUE]... -o OUT
# --quiet` in the tests of the kernel embedding: writes OUT (an ELF magic and
# then every byte value) and OUT.meta; fails, as jfac does on a broken
# kernel, when MLIR's name contains "broken".
mlir=$2
shift 2
while [ $# -gt 0 ]; do
  case $1 in
  --arch) arch=$2; shift 2 ;;
  -o) out=$2; shift 2 ;;
  *) shift ;;
  esac
done
case $mlir in
*broken*) echo "$mlir:1:1: error: this kernel is broken" >&2; exit 1 ;;
esac
{
  printf '\177ELF'
  i=0
  while [ $i -lt 256 ]; do
    printf "\\$(printf %o $i)"
    i=$((i + 1))
  done
} > "$out"
printf '{"format": "jfa-metadata", "version": 2, "kernels": [{"name": "fake", "arch": "%s", "threads": 128, "cluster": [1, 1, 1], "shared_bytes": 0, "arguments": []}]}\n' "$arch" > "$out.meta"
