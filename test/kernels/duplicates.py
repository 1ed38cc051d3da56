"""Fails when a region of 12 or more lines appears twice in kernels/.

    duplicates.py KERNELS_DIR ALLOWLIST

Compares every kernels/**/*.mlir (kernels and kernels/lib libraries) with
itself and with every other: a region of MIN_LINES or more consecutive
significant lines that appears twice, within a file or across files, is
reported with both places. Code written twice drifts apart; write it once
as a helper (`jfa.func`) in kernels/lib/ and `jfa.import` it
(docs/EXTENDING.md, "A helper shared by several kernels"), or, for code in
one kernel, in a helper or a replicated task.

What is compared: each line with its `//` comment removed and its
whitespace collapsed. Not counted (they neither make nor break a region):
  - blank lines and comment lines: prose is not code;
  - lines made only of closing brackets, `} else {`, and a bare `jfa.return`
    or `scf.yield`: every block ends with them;
  - `%name = arith.constant ...` lines: every task and helper declares its
    constants (`%c0`, `%c128`, ...) at its top, and the same few lines in
    different orders and sets would otherwise join unrelated regions.
So a region is 12 lines that compute something.

Known duplicates waiting for their rewrite (issue 18) are listed in
ALLOWLIST, one per line: `FILE_A FILE_B HASH  reason`, the files relative to
KERNELS_DIR and HASH the region's first 12 hex digits of SHA-1 (this script
prints the line to add). A listed region that is no longer duplicated is an
error too: remove its line, so the list only shrinks.
"""
import hashlib
import pathlib
import re
import sys

MIN_LINES = 12

TRIVIAL = re.compile(
    r"^(?:[})\]]+[;,]?|\} else \{|jfa\.return|scf\.yield|"
    r"%[\w#]+ = arith\.constant .*)$")


def significant_lines(path):
    """[(normalized text, line number)] of the lines that count."""
    out = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        if raw.lstrip().startswith("//"):
            continue
        if '"' in raw:
            # A string may hold `//`: cut only a comment after the last quote.
            head, quote, tail = raw.rpartition('"')
            line = head + quote + tail.split("//", 1)[0]
        else:
            line = raw.split("//", 1)[0]
        line = " ".join(line.split())
        if not line or TRIVIAL.match(line):
            continue
        out.append((line, number))
    return out


def find_duplicates(kernels_dir):
    """{(file_a, file_b, hash): (a_first, a_last, b_first, b_last, n)}."""
    files = {p.relative_to(kernels_dir).as_posix(): significant_lines(p)
             for p in sorted(kernels_dir.rglob("*.mlir"))}
    windows = {}
    for name, lines in files.items():
        texts = [t for t, _ in lines]
        for i in range(len(texts) - MIN_LINES + 1):
            windows.setdefault(tuple(texts[i:i + MIN_LINES]), []).append((name, i))
    # Each pair of places sharing a window, extended to the longest region
    # both hold (found once, from the region's first window).
    regions = {}
    for places in windows.values():
        for x in range(len(places)):
            for y in range(x + 1, len(places)):
                (fa, i), (fb, j) = places[x], places[y]
                a, b = files[fa], files[fb]
                if i > 0 and j > 0 and a[i - 1][0] == b[j - 1][0]:
                    continue  # not the region's start
                n = 0
                while (i + n < len(a) and j + n < len(b) and a[i + n][0] == b[j + n][0]
                       and (fa != fb or i + n < j)):
                    n += 1
                if n < MIN_LINES:
                    continue
                if (fb, j) < (fa, i):
                    fa, i, fb, j, a, b = fb, j, fa, i, b, a
                text = "\n".join(t for t, _ in a[i:i + n])
                digest = hashlib.sha1(text.encode()).hexdigest()[:12]
                regions[(fa, fb, digest)] = (a[i][1], a[i + n - 1][1],
                                             b[j][1], b[j + n - 1][1], n)
    return regions


def read_allowlist(path):
    allowed = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(None, 3)
        if len(parts) < 4:
            sys.exit(f"{path}:{number}: expected 'FILE_A FILE_B HASH reason'")
        allowed[tuple(parts[:3])] = number
    return allowed


def main():
    kernels_dir, allowlist = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    regions = find_duplicates(kernels_dir)
    allowed = read_allowlist(allowlist)
    errors = 0
    for key, (a0, a1, b0, b1, n) in sorted(regions.items()):
        if key in allowed:
            continue
        errors += 1
        fa, fb, digest = key
        print(f"error: kernels/{fa}:{a0}-{a1} and kernels/{fb}:{b0}-{b1} are the "
              f"same {n} lines (of code; comments, blank lines and trivial "
              f"lines not counted)")
    for key, number in sorted(allowed.items(), key=lambda kv: kv[1]):
        if key not in regions:
            errors += 1
            print(f"error: {allowlist}:{number}: {' '.join(key)} is no longer "
                  f"duplicated: remove the line")
    if errors:
        new = [key for key in sorted(regions) if key not in allowed]
        print(f"\n{errors} problem(s).")
        if new:
            print(f"Write the code once: a helper (jfa.func) in kernels/lib/ "
                  f"that the kernels jfa.import, a helper in the kernel's "
                  f"file, or a replicated task (docs/EXTENDING.md). A known "
                  f"duplicate that must stay for now goes in {allowlist} "
                  f"with a reason, as:")
            for key in new:
                print(f"  {' '.join(key)}  <reason>")
        sys.exit(1)
    print(f"no unlisted duplicate regions of {MIN_LINES}+ lines "
          f"({len(allowed)} listed)")


if __name__ == "__main__":
    main()
