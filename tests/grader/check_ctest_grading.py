#!/usr/bin/env python3
"""Checks how this build's CTest grading tests (cmake/SpmvGrading.cmake) are wired.

Usage: check_ctest_grading.py BUILD_DIR

- `ctest -L grade` selects the grading tests and nothing else;
- the rows are graded by runs over several kernels (grade.run-all, or
  grade.run-part<N> with several GPUs), every kernel in exactly one of them;
- each kernel's own run grade.run.<kernel> comes after the run holding its
  kernel and sets up the fixture its row tests need;
- a filtered `ctest -L <kernel>` runs that kernel's own run, its rows,
  grade.setup and grade.results, and no run over several kernels.
"""
import json
import subprocess
import sys


def selected(build_dir, *ctest_args):
    listing = subprocess.run(["ctest", "--show-only=json-v1", *ctest_args], cwd=build_dir,
                             check=True, capture_output=True, text=True).stdout
    tests = {}
    for test in json.loads(listing)["tests"]:
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        tests[test["name"]] = (test.get("command", []), props)
    return tests


def option_value(command, option):
    return command[command.index(option) + 1] if option in command else None


def main():
    build_dir = sys.argv[1]
    problems = []
    graded = selected(build_dir, "-L", "grade")
    if not graded:
        print("no grading tests in this build")
        return 1
    for name in graded:
        if not name.startswith("grade."):
            problems.append(f"`ctest -L grade` selects {name}, which is no grading test")

    parts = {name: cp for name, cp in graded.items() if name.startswith("grade.run-")}
    own_runs = {name[len("grade.run."):]: cp for name, cp in graded.items() if name.startswith("grade.run.")}
    if not parts:
        problems.append("no run over several kernels (grade.run-all or grade.run-part<N>)")
    part_of = {}
    for name, (command, _) in parts.items():
        for kernel in (option_value(command, "--kernel") or "").split(","):
            if kernel in part_of:
                problems.append(f"{kernel} is graded by both {part_of[kernel]} and {name}")
            part_of[kernel] = name
    if set(part_of) != set(own_runs):
        problems.append(f"the runs over several kernels grade {sorted(part_of)}, "
                        f"the kernels' own runs are {sorted(own_runs)}")
    for kernel, (command, props) in own_runs.items():
        if part_of.get(kernel) not in props.get("DEPENDS", []):
            problems.append(f"grade.run.{kernel} does not come after {part_of.get(kernel)}")
        if props.get("FIXTURES_SETUP") != [f"spmv_grading_{kernel}"]:
            problems.append(f"grade.run.{kernel} sets up {props.get('FIXTURES_SETUP')}")
        if option_value(command, "--journal") != option_value(parts[part_of[kernel]][0], "--journal"):
            problems.append(f"grade.run.{kernel} writes to another journal folder than {part_of[kernel]}")
        rows = [n for n in graded if n.startswith("grade.") and n.split(".")[2:3] == [kernel]
                and n.split(".")[1] in ("public", "hidden")]
        if not rows:
            problems.append(f"{kernel} has no row tests")
        for row in rows:
            if f"spmv_grading_{kernel}" not in graded[row][1].get("FIXTURES_REQUIRED", []):
                problems.append(f"{row} does not need grade.run.{kernel}'s fixture")

    for kernel in sorted(own_runs):
        alone = selected(build_dir, "-L", f"^{kernel}$")
        wanted = {f"grade.run.{kernel}", "grade.setup", "grade.results"}
        if not wanted <= set(alone):
            problems.append(f"`ctest -L {kernel}` lacks {sorted(wanted - set(alone))}")
        for name in alone:
            if name.startswith("grade.run-"):
                problems.append(f"`ctest -L {kernel}` runs {name}, which grades every kernel")
            if name.startswith("grade.") and name.count(".") >= 3 and name.split(".")[2] != kernel:
                problems.append(f"`ctest -L {kernel}` runs {name}")

    for problem in problems:
        print(problem)
    print(f"{len(graded)} grading tests, {len(parts)} run(s) over several kernels, "
          f"{len(own_runs)} kernels: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
