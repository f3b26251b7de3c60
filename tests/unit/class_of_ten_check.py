#!/usr/bin/env python3
"""Checks of tools/make-class-of-ten: the ten students are what
docs/grading.md says they are (kernels compared with their sources), the
cases are the ten named, readable by spmv-cases, and the seed is private;
a folder that exists is refused. Usage: class_of_ten_check.py SPMV_CASES
SPMV_GRADE (both of the build under test; cases.ini read by spmv-grade
--show-ini cases, as the tool reads it)."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "make-class-of-ten"
KERNELS = ("coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds")


def check(condition, what):
    if not condition:
        sys.exit(f"FAILED: {what}")
    print(f"ok: {what}")


def same(a: Path, b: Path) -> bool:
    return a.read_bytes() == b.read_bytes()


spmv_cases, spmv_grade = sys.argv[1:3]
# The tool takes the grader from the build under test.
environment = dict(os.environ, SPMV_BUILD_DIR=str(Path(spmv_grade).resolve().parent.parent))
with tempfile.TemporaryDirectory() as scratch:
    folder = Path(scratch) / "ten"
    made = subprocess.run([str(TOOL), str(folder)], capture_output=True, text=True, env=environment)
    check(made.returncode == 0, f"the class is made ({made.stderr.strip()})")
    submissions = folder / "submissions"
    students = sorted(p.name for p in submissions.iterdir())
    check(students == ["alice", "bob", "carol", "dave", "eve", "frank", "grace", "heidi", "ivan", "judy"],
          f"ten students: {students}")
    for name in students:
        check((submissions / name / "CMakeLists.txt").is_file(), f"{name} has the template's CMakeLists.txt")
        check(all((submissions / name / f"{k}.cu").is_file() for k in KERNELS), f"{name} has the six kernels")
    written = ROOT / "tests/similarity/submissions"
    for name in ("alice", "bob", "carol"):
        check(all(same(submissions / name / f"{k}.cu", written / name / f"{k}.cu") for k in KERNELS),
              f"{name}'s kernels are the ones written for it")
    for name in ("dave", "eve"):
        check(same(submissions / name / "csr_vector.cu", written / name / "csr_vector.cu"),
              f"{name}'s csr_vector is its own")
        check(all(same(submissions / name / f"{k}.cu", ROOT / "student" / f"{k}.cu") for k in KERNELS
                  if k != "csr_vector"), f"{name}'s other kernels are the stubs")
    for name in ("frank", "grace"):
        check(all(same(submissions / name / f"{k}.cu", ROOT / "reference" / f"{k}.cu") for k in KERNELS),
              f"{name}'s kernels are the reference's")
    check(all(same(submissions / "heidi" / f"{k}.cu", ROOT / "student" / f"{k}.cu") for k in KERNELS),
          "heidi's kernels are the stubs")
    ivan = {k: same(submissions / "ivan" / f"{k}.cu", ROOT / "student" / f"{k}.cu") for k in KERNELS}
    check(ivan == {"coo": True, "csr_scalar": False, "csr_vector": False, "ell": True, "hyb": False, "jds": True},
          f"ivan has stubs for coo, ell and jds only: {ivan}")
    check("this line is not C++" in (submissions / "judy" / "ell.cu").read_text(), "judy's ell does not compile")
    shown = subprocess.run([spmv_grade, "--show-ini", "cases", str(folder / "cases" / "cases.ini")],
                           capture_output=True, text=True)
    check(shown.returncode == 0, f"spmv-grade reads the cases.ini ({shown.stderr.strip()})")
    cases = {s["name"]: {k["name"]: k["value"] for k in s["keys"]} for s in json.loads(shown.stdout)["sections"]
             if s["name"]}
    check(len(cases) == 10, f"ten cases: {list(cases)}")
    files = [cases[s]["file"] for s in cases if "file" in cases[s]]
    generated = [s for s in cases if "generator" in cases[s]]
    check(len(files) == 5 and len(generated) == 5, f"five files {files}, five generated {generated}")
    check(all((folder / "cases" / f).is_file() for f in files), "each file is copied beside cases.ini")
    check(all(cases[s].get("why") for s in cases), "each case keeps its why")
    check((folder / "seed").stat().st_mode & 0o077 == 0, "the seed is readable by its owner only")
    listed = subprocess.run([spmv_cases, "validate", "--no-kernels", str(folder / "cases")], capture_output=True,
                            text=True)
    check(listed.returncode == 0, f"spmv-cases validates the cases ({listed.stdout[-300:]}{listed.stderr[-300:]})")
    again = subprocess.run([str(TOOL), str(folder)], capture_output=True, text=True, env=environment)
    check(again.returncode != 0 and "exists already" in again.stderr, "a folder that exists is refused")
