#!/usr/bin/env bash
# check_student_kit.sh REPOSITORY BUILD
#
# The test kit.student_kit: makes the student kit in BUILD (the student-kit
# target), unpacks the archive into a new temporary folder (removed when
# the test passes, kept and named when it fails), checks that it
# holds no solution (check_kit_contents.py), then runs the kit's README quick
# start there as a student would on a machine without a GPU
# (tools/quickstart with CI=true: warnings are errors, sm_90 only; then
# ctest --preset dev), and grades student/ and the prebuilt host reference
# through the kit's own grader. Each step says what it runs; the first that
# fails ends the test.
set -euo pipefail

repository="$1"
build="$2"
work="$(mktemp -d "${TMPDIR:-/tmp}/spmv-student-kit.XXXXXX")"
# The runners run as another uid (the sandbox's full level, as root): they
# must be able to reach the kit's build/bin.
chmod 755 "$work"
trap 'status=$?; if [ $status -eq 0 ]; then rm -rf "$work"; else echo "the unpacked kit is kept in $work" >&2; fi' EXIT

step() { printf '\n== %s\n' "$*"; }

step "making the kit: cmake --build $build --target student-kit"
cmake --build "$build" --target student-kit

step "unpacking it into an empty folder, $work"
tar -xzf "$build/student-kit/spmv-lab-student-kit.tar.gz" -C "$work"
kit="$work/spmv-lab-student-kit"
test -f "$kit/README.md"

step "no reference source, tuning constant, CPU walker or fake submission in it"
python3 "$repository/tests/kit/check_kit_contents.py" "$repository" "$kit"

cd "$kit"
# The quick start installs what is missing with apt. Where something is
# missing and the distribution's archive cannot be reached (a machine
# without a network), the test is skipped, not failed.
missing=()
for package in $(sed -n 's/^packages=(\(.*\))$/\1/p' tools/quickstart); do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] &&
   ! timeout 120 apt-get update -qq --error-on=any >/dev/null 2>&1; then
  echo "kit.student_kit: skipped: the quick start would install ${missing[*]}, and apt cannot reach its archive"
  exit 77
fi
step "the README's quick start, first command: CI=true tools/quickstart"
CI=true tools/quickstart
test -s build/grade-public/results.json
test -s build/grade-public/summary.md
test -f build/plugins/libspmv_reference.so
test -f build/plugins/libspmv_host_reference.so
# The kit builds as the kit (cmake/StudentKit.cmake): its own prebuilt plugins.
grep -qx "SPMV_KIT:BOOL=ON" build/CMakeCache.txt
grep -qx "SPMV_REFERENCE_PLUGIN:FILEPATH=$kit/prebuilt/libspmv_reference.so" build/CMakeCache.txt

step "the README's quick start, second command: ctest --preset dev"
ctest --preset dev

# Rows of student/: skipped without a GPU, not implemented on one (the stubs).
verdicts_in() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1] + "/rows.jsonl")]
allowed = set(sys.argv[2].split(","))
wrong = [f'{r["kernel"]}/{r["case"]}: {r["verdict"]}' for r in rows if r["verdict"] not in allowed]
print(f"{len(rows)} rows, verdicts {sorted({r['verdict'] for r in rows})}")
if not rows or wrong:
    sys.exit("unexpected verdicts (allowed: " + sys.argv[2] + "): " + "; ".join(wrong[:10]))
EOF
}

step "grading student/ through the kit: build/bin/spmv-grade"
status=0
build/bin/spmv-grade --output-dir student-results --quiet || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
  echo "spmv-grade of student/ exited $status" >&2
  exit 1
fi
verdicts_in student-results skipped,not_implemented,not_applicable

step "grading the prebuilt host reference through the kit, on the edge cases"
build/bin/spmv-grade --submission build/plugins/libspmv_host_reference.so --cases testcases/edge \
  --min-runs 3 --min-time-ms 1 --output-dir host-reference-results --quiet
verdicts_in host-reference-results pass,not_applicable

step "the student kit builds, tests and grades with no reference source present"
