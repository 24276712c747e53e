#!/usr/bin/env bash
# tools/lint.sh: metaattn's lint checks, run by CI as the ctest test `lint`.
#   1. clang-format-22 on C++ sources (*.cpp *.h *.cuh *.cu): differences are warnings unless
#      LINT_STRICT=1, which makes them failures (much of today's code is hand-wrapped).
#   2. trailing whitespace in text files (failure).
#   3. FileCheck directives without their colon in tests/lit (`// CHECK-NEXT foo`), which
#      check nothing (failure). Prefixes: CHECK plus any --check-prefix(es) in the file.
#   4. tab characters in C++ sources (failure).
#   5. generated headers (runtime/device/metaattn/wgmma_ops.cuh) stale against their generator
#      (failure).
# Files: those git tracks plus untracked ones git does not ignore (what would be committed).
# Exits non-zero when a failing check finds something.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
CLANG_FORMAT=${CLANG_FORMAT:-clang-format-22}
STRICT=${LINT_STRICT:-0}

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t ALL < <(git ls-files --cached --others --exclude-standard | sort -u |
                     while IFS= read -r f; do [[ -f "$f" ]] && printf '%s\n' "$f"; done)
else
  mapfile -t ALL < <(find . -path ./.git -prune -o -path './build*' -prune -o -type f -print |
                     sed 's|^\./||' | sort)
fi

CXX=() LIT=() TEXT=()
for f in "${ALL[@]}"; do
  case "$f" in
    runtime/device/metaattn/wgmma_ops.cuh) ;; # generated (tools/scripts/gen_wgmma.py --check)
    *.cpp | *.h | *.cuh | *.cu) CXX+=("$f") ;;
  esac
  case "$f" in
    tests/lit/*.mlir) LIT+=("$f") ;;
  esac
  case "$f" in
    *.cpp | *.h | *.cuh | *.cu | *.td | *.mlir | *.py | *.in | *.cmake | CMakeLists.txt | \
      */CMakeLists.txt | *.md | *.sh | *.txt | *.yml | *.yaml | *.json | .ci/* | .clang-format | \
      .gitignore) TEXT+=("$f") ;;
  esac
done

failures=()
warnings=()

# 1. clang-format.
if ! command -v "$CLANG_FORMAT" >/dev/null; then
  msg="format: $CLANG_FORMAT not found (run ./setup.sh)"
  if [[ "$STRICT" == 1 ]]; then failures+=("$msg"); else warnings+=("$msg"); fi
elif ((${#CXX[@]})); then
  mapfile -t unformatted < <("$CLANG_FORMAT" --dry-run "${CXX[@]}" 2>&1 |
    sed -nE 's/^(.+):[0-9]+:[0-9]+: (warning|error): code should be clang-formatted.*/\1/p' |
    sort -u)
  if ((${#unformatted[@]})); then
    echo "== format: ${#unformatted[@]} of ${#CXX[@]} C++ files differ from $CLANG_FORMAT" \
         "(see: $CLANG_FORMAT --dry-run FILE; fix: $CLANG_FORMAT -i FILE):"
    printf '  %s\n' "${unformatted[@]}"
    msg="format: ${#unformatted[@]} file(s) not clang-formatted"
    if [[ "$STRICT" == 1 ]]; then failures+=("$msg"); else warnings+=("$msg (LINT_STRICT=1 fails)"); fi
  fi
fi

# 2. Trailing whitespace.
if ((${#TEXT[@]})); then
  trailing=$(grep -HInE '[[:space:]]+$' -- "${TEXT[@]}" | cut -d: -f1,2)
  if [[ -n "$trailing" ]]; then
    echo "== trailing whitespace (file:line):"
    sed 's/^/  /' <<<"$trailing"
    failures+=("trailing whitespace: $(wc -l <<<"$trailing") line(s)")
  fi
fi

# 3. FileCheck directives without a colon.
if ((${#LIT[@]})); then
  nocolon=$(python3 - "${LIT[@]}" <<'PY'
import re, sys
suffix = r"(?:-NEXT|-SAME|-LABEL|-DAG|-NOT|-EMPTY|-COUNT-\d+)?"
for path in sys.argv[1:]:
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    prefixes = {"CHECK"}
    for line in lines:
        for m in re.finditer(r"--?check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)", line):
            prefixes.update(p for p in m.group(1).split(",") if p)
    alt = "|".join(sorted(map(re.escape, prefixes), key=len, reverse=True))
    # `// PREFIX[-SUFFIX]` followed by anything but `:` (end of line included).
    bad = re.compile(r"//\s*(?:" + alt + ")" + suffix + r"(?![\w:-])")
    for n, line in enumerate(lines, 1):
        if "RUN:" in line:
            continue
        if bad.search(line):
            print(f"{path}:{n}: {line.strip()}")
PY
)
  if [[ -n "$nocolon" ]]; then
    echo "== FileCheck directives without ':' (they check nothing):"
    sed 's/^/  /' <<<"$nocolon"
    failures+=("check lines without colon: $(wc -l <<<"$nocolon") line(s)")
  fi
fi

# 4. Tabs in C++ sources.
if ((${#CXX[@]})); then
  tabs=$(grep -HnP '\t' -- "${CXX[@]}" | cut -d: -f1,2)
  if [[ -n "$tabs" ]]; then
    echo "== tabs in C++ sources (file:line):"
    sed 's/^/  /' <<<"$tabs"
    failures+=("tabs: $(wc -l <<<"$tabs") line(s)")
  fi
fi

# 5. Generated device headers up to date with their generators.
if [[ -f tools/scripts/gen_wgmma.py ]] && ! python3 tools/scripts/gen_wgmma.py --check; then
  failures+=("runtime/device/metaattn/wgmma_ops.cuh differs from tools/scripts/gen_wgmma.py")
fi

echo "== lint: ${#ALL[@]} files (${#CXX[@]} C++, ${#LIT[@]} lit tests)"
for w in "${warnings[@]}"; do echo "  warning: $w"; done
for f in "${failures[@]}"; do echo "  FAILED: $f"; done
if ((${#failures[@]})); then
  exit 1
fi
echo "  OK"
