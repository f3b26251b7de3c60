#!/usr/bin/env bash
# Runs the commands the documentation shows, so the docs cannot drift from
# the programs.
#
#   run_doc_commands.sh <build dir> <file.md>...
#
# In each Markdown file, a fenced block whose info string is exactly
# `sh doc-test` (or `sh doc-test git`: commands that need the source tree
# to be a git checkout, skipped and said where it is not) holds commands written for a fresh quick-start checkout: run
# from the repository root, with the build in build/. Each such block runs
# under `bash -e -o pipefail` in a fresh temporary folder that stands in for
# the repository root: every top-level entry of the source tree is linked
# into it and `build` links to <build dir>, so the commands find the real
# programs and cases while whatever they write stays in the temporary
# folder. SPMV_BUILD_DIR is <build dir> too: the tools (tools/grade-class,
# build-submission, make-gradescope-autograder), which find the source tree
# through their own real path, take the build under test from it, not
# whatever is in the source tree's build/. Only commands that need no GPU and take seconds belong in such
# blocks.
#
# What a block leaves in that folder must be ignored by git (.gitignore of
# the source tree), as it would be in a fresh clone: a block that leaves a
# file git would offer to commit (a secret seed, a results folder) fails,
# naming it. Skipped where the source tree is not a git checkout.
#
# A failing block is reported as <file>:<line of its opening fence>, with
# its commands and output; every block is run, and the exit status is 1 if
# any failed (2 for a usage error).
set -uo pipefail

usage() {
  echo "usage: $0 <build dir> <file.md>..." >&2
  exit 2
}

[ $# -ge 2 ] || usage
build_dir="$(cd "$1" 2>/dev/null && pwd)" || { echo "$0: $1: not a folder" >&2; exit 2; }
shift
export SPMV_BUILD_DIR="$build_dir"
source_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/spmv-doc-test.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

# A folder that looks like a checkout with its build in build/.
make_root() {
  local root="$1" entry
  mkdir -p "$root"
  for entry in "$source_root"/* "$source_root"/.[!.]*; do
    [ -e "$entry" ] || continue
    case "$(basename "$entry")" in
      build | .git) continue ;;
    esac
    ln -s "$entry" "$root/$(basename "$entry")"
  done
  ln -s "$build_dir" "$root/build"
}

# The entries a block left in `root` (not the links make_root made) that
# git would not ignore in the source tree, space-separated.
unignored_entries() {
  local root="$1" entry name path left=""
  git -C "$source_root" rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
  for entry in "$root"/* "$root"/.[!.]*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    [ -L "$entry" ] && continue
    name="$(basename "$entry")"
    path="$name"
    [ -d "$entry" ] && path="$name/"
    if ! git -C "$source_root" check-ignore -q --no-index -- "$path"; then
      left="$left $path"
    fi
  done
  printf '%s' "${left# }"
}

# Prints "<line>\t<git or any>\t<command text with \x1f for newlines>" per doc-test block.
# A fence opens with ``` or ~~~ (three or more) and closes with the same
# character, at least as many, and nothing after it.
extract_blocks() {
  awk '
    BEGIN { in_block = 0; tested = 0 }
    {
      if (!in_block) {
        if (match($0, /^ ? ? ?(```+|~~~+)/)) {
          fence = substr($0, RSTART, RLENGTH); sub(/^ +/, "", fence)
          info = substr($0, RSTART + RLENGTH)
          sub(/^[ \t]+/, "", info); sub(/[ \t]+$/, "", info)
          in_block = 1; tested = (info == "sh doc-test" || info == "sh doc-test git"); start = NR; text = ""
          needs_git = (info == "sh doc-test git")
        }
        next
      }
      line = $0
      sub(/^ +/, "", line)
      if (index(line, substr(fence, 1, 1)) == 1 && line ~ /^(```+|~~~+)[ \t]*$/ && length(line) >= length(fence) &&
          substr(line, 1, length(fence)) == fence) {
        if (tested) printf "%d\t%s\t%s\n", start, (needs_git ? "git" : "any"), text
        in_block = 0
        next
      }
      if (tested) text = text $0 "\037"
    }
    END { if (in_block && tested) printf "%d\tany\tUNCLOSED\n", start }
  ' "$1"
}

blocks=0
failures=0
for file in "$@"; do
  if [ ! -f "$file" ]; then
    echo "FAIL $file: no such file" >&2
    failures=$((failures + 1))
    continue
  fi
  while IFS=$'\t' read -r line needs text; do
    blocks=$((blocks + 1))
    if [ "$needs" = git ] && ! git -C "$source_root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
      echo "skip $file:$line: needs a git checkout, and $source_root is not one"
      continue
    fi
    if [ "$text" = UNCLOSED ]; then
      echo "FAIL $file:$line: the sh doc-test block is never closed" >&2
      failures=$((failures + 1))
      continue
    fi
    commands="${text//$'\037'/$'\n'}"
    root="$scratch/block$blocks"
    make_root "$root"
    if output="$(cd "$root" && bash -e -o pipefail -c "$commands" 2>&1 </dev/null)"; then
      left="$(unignored_entries "$root")"
      if [ -n "$left" ]; then
        failures=$((failures + 1))
        {
          echo "FAIL $file:$line: the block left what git does not ignore in the repository root: $left"
          echo "     (write under an ignored folder such as spmv-results/, or add it to .gitignore)"
        } >&2
      else
        echo "ok   $file:$line"
      fi
    else
      status=$?
      failures=$((failures + 1))
      {
        echo "FAIL $file:$line: the block exited with status $status"
        echo "---- commands"
        printf '%s\n' "$commands"
        echo "---- output (last 60 lines)"
        printf '%s\n' "$output" | tail -n 60
        echo "----"
      } >&2
    fi
    rm -rf "$root"
  done < <(extract_blocks "$file")
done

echo "$blocks doc-test block(s) run, $failures failed"
if [ "$blocks" -eq 0 ]; then
  echo "no sh doc-test block found in: $*" >&2
  exit 1
fi
[ "$failures" -eq 0 ]
