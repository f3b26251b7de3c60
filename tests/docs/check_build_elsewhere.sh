#!/usr/bin/env bash
# docs_commands against a build that is not the source tree's build/: the
# doc-test blocks, and the tools they run, must use the build under test.
#
#   check_build_elsewhere.sh <build dir>
#
# Makes a stand-in build folder elsewhere: every entry of <build dir>
# linked, but bin/, whose programs are wrappers that log each call and run
# the real one. Runs run_doc_commands.sh with it on a page of its own whose
# blocks call the tools (make-gradescope-autograder, grade-class) without
# naming a grader; each tool's call of spmv-grade must reach the stand-in's
# log. A tool that takes the source tree's build/ instead leaves no line
# there, and the check fails naming it.
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 <build dir>" >&2; exit 2; }
build_dir="$(cd "$1" && pwd)" || exit 2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/spmv-build-elsewhere.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

elsewhere="$scratch/elsewhere"
mkdir -p "$elsewhere/bin"
for entry in "$build_dir"/* "$build_dir"/.[!.]*; do
  [ -e "$entry" ] || continue
  [ "$(basename "$entry")" = bin ] && continue
  ln -s "$entry" "$elsewhere/$(basename "$entry")"
done
calls="$scratch/calls.log"
for program in "$build_dir"/bin/*; do
  [ -f "$program" ] && [ -x "$program" ] || continue
  printf '#!/bin/sh\necho "%s $*" >> "%s"\nexec "%s" "$@"\n' "$(basename "$program")" "$calls" "$program" \
    >"$elsewhere/bin/$(basename "$program")"
  chmod +x "$elsewhere/bin/$(basename "$program")"
done

page="$scratch/page.md"
cat >"$page" <<'PAGE'
```sh doc-test
mkdir -p spmv-results && echo "a-seed" > spmv-results/seed
tools/make-gradescope-autograder --hidden testcases/hidden.example --secret-seed-file spmv-results/seed \
    --output spmv-results/autograder.zip --allow-dirty > /dev/null 2>&1 || true
echo "make-gradescope-autograder done" >> "$SPMV_BUILD_DIR/../calls.log"
mkdir -p spmv-results/class
tools/grade-class spmv-results/class --output spmv-results/graded > /dev/null 2>&1 || true
echo "grade-class done" >> "$SPMV_BUILD_DIR/../calls.log"
```
PAGE

status=0
bash "$here/run_doc_commands.sh" "$elsewhere" "$page" || status=1
# Each tool called spmv-grade (its checks of the set-up) before it ended.
in_git=0
git -C "$here/../.." rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=1
IN_GIT=$in_git python3 - "$calls" <<'CHECK' || status=1
import sys
import os
lines = open(sys.argv[1]).read().splitlines() if os.path.exists(sys.argv[1]) else []
failed = False
start = 0
# make-gradescope-autograder packs a git checkout only (its page's block
# is `sh doc-test git`): elsewhere it refuses before it calls anything.
tools = ["grade-class"]
if os.environ.get("IN_GIT") == "1":
    tools.insert(0, "make-gradescope-autograder")
for tool in tools:
    end = lines.index(f"{tool} done") if f"{tool} done" in lines else None
    if end is None:
        print(f"FAIL the block calling tools/{tool} did not run to its end")
        failed = True
        continue
    if not any(line.startswith("spmv-grade ") for line in lines[start:end]):
        print(f"FAIL tools/{tool} did not run the build under test's spmv-grade (it took another build's)")
        failed = True
    start = end + 1
print("calls of the build under test:", *lines, sep="\n  ")
sys.exit(1 if failed else 0)
CHECK
exit $status
