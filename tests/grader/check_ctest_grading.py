#!/usr/bin/env python3
"""Checks how this build's CTest grading tests (cmake/SpmvGrading.cmake) are wired.

Usage: check_ctest_grading.py BUILD_DIR
       check_ctest_grading.py --configure SOURCE_DIR SCRATCH_DIR [CMAKE_ARGS...]

The second form configures SOURCE_DIR afresh in SCRATCH_DIR as a node with
three GPUs (SPMV_GRADE_GPUS=0;1;2, no test suite), checks that build, and
checks that SPMV_GRADE_GPUS=0;x is refused, naming the option.

- `ctest -L grade` selects the grading tests and nothing else;
- the rows are graded by runs over several kernels (grade.run-all, or
  grade.run-part<N> with several GPUs), every kernel in exactly one of them;
- each kernel's own run grade.run.<kernel> comes after the run holding its
  kernel and sets up the fixture its row tests need;
- a filtered `ctest -L <kernel>` runs that kernel's own run, its rows,
  grade.setup and grade.results, and no run over several kernels;
- every run takes a GPU through CTest's resource groups from
  <build>/grading/gpus.json, which the build's CTestTestfile.cmake names so
  that a plain `ctest` reads it; with several GPUs there is one run over
  several kernels per GPU (at most one per kernel), with one GPU the runs
  also hold the lock spmv_gpu.
"""
import json
import os
import re
import shutil
import subprocess
import sys


def written_commands(build_dir):
    """Each test's command as CTestTestfile.cmake holds it: ctest lists no
    command for a program not built yet."""
    commands = {}
    with open(os.path.join(build_dir, "CTestTestfile.cmake")) as testfile:
        for line in testfile:
            # add_test([=[name]=] "arg" ...) or, by older CMake, add_test("name" "arg" ...)
            found = re.match(r'add_test\((?:\[=\[(.*?)\]=\]|"((?:[^"\\]|\\.)*)") (.*)\)$', line.strip())
            if found:
                name = found.group(1) if found.group(1) is not None else found.group(2)
                commands[name] = re.findall(r'"((?:[^"\\]|\\.)*)"', found.group(3))
    return commands


def selected(build_dir, *ctest_args):
    listing = subprocess.run(["ctest", "--show-only=json-v1", *ctest_args], cwd=build_dir,
                             check=True, capture_output=True, text=True).stdout
    written = written_commands(build_dir)
    tests = {}
    for test in json.loads(listing)["tests"]:
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        tests[test["name"]] = (test.get("command") or written.get(test["name"], []), props)
    return tests


def option_value(command, option):
    return command[command.index(option) + 1] if option in command else None


def spec_file_problems(build_dir, graded, parts, own_runs):
    problems = []
    spec = os.path.join(build_dir, "grading", "gpus.json")
    with open(os.path.join(build_dir, "CTestTestfile.cmake")) as testfile:
        if f'set(CTEST_RESOURCE_SPEC_FILE "{spec}")' not in testfile.read():
            problems.append(f"CTestTestfile.cmake does not name {spec}: a plain ctest would not read it")
    with open(spec) as file:
        gpus = [entry["id"] for entry in json.load(file)["local"][0]["gpus"]]
    expected_parts = min(len(gpus), len(own_runs)) if len(gpus) > 1 else 1
    if len(parts) != expected_parts:
        problems.append(f"{len(gpus)} GPU(s) in {spec} but {len(parts)} run(s) over several kernels")
    for name, (_, props) in graded.items():
        if not name.startswith("grade.run"):
            continue
        if props.get("RESOURCE_GROUPS") != [{"requirements": [{".type": "gpus", "slots": 1}]}]:
            problems.append(f"{name} takes {props.get('RESOURCE_GROUPS')}, not one GPU")
        holds_lock = "spmv_gpu" in props.get("RESOURCE_LOCK", [])
        if holds_lock != (len(gpus) == 1):
            problems.append(f"{name} {'holds' if holds_lock else 'lacks'} the lock spmv_gpu with {len(gpus)} GPU(s)")
    return problems, len(gpus)


def configure_three_gpus(source_dir, scratch_dir, cmake_args):
    shutil.rmtree(scratch_dir, ignore_errors=True)
    common = ["cmake", "-S", source_dir, "-DSPMV_BUILD_TESTS=OFF", *cmake_args]
    bad = subprocess.run([*common, "-B", os.path.join(scratch_dir, "bad"), "-DSPMV_GRADE_GPUS=0;x"],
                         capture_output=True, text=True)
    if bad.returncode == 0 or "SPMV_GRADE_GPUS" not in bad.stderr:
        print("SPMV_GRADE_GPUS=0;x was not refused with the option named:\n" + bad.stderr[-2000:])
        return None
    build_dir = os.path.join(scratch_dir, "three-gpus")
    good = subprocess.run([*common, "-B", build_dir, "-DSPMV_GRADE_GPUS=0;1;2"], capture_output=True, text=True)
    if good.returncode != 0:
        print("configuring with SPMV_GRADE_GPUS=0;1;2 failed:\n" + good.stdout[-2000:] + good.stderr[-2000:])
        return None
    return build_dir


def main():
    if sys.argv[1] == "--configure":
        build_dir = configure_three_gpus(sys.argv[2], sys.argv[3], sys.argv[4:])
        if build_dir is None:
            return 1
        expected_gpus = 3
    else:
        build_dir = sys.argv[1]
        expected_gpus = None
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
        if kernel not in part_of:
            problems.append(f"no run over several kernels grades {kernel}")
            continue
        if part_of[kernel] not in props.get("DEPENDS", []):
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

    spec_problems, gpu_count = spec_file_problems(build_dir, graded, parts, own_runs)
    problems += spec_problems
    if expected_gpus is not None and gpu_count != expected_gpus:
        problems.append(f"SPMV_GRADE_GPUS named {expected_gpus} GPUs, gpus.json lists {gpu_count}")

    for problem in problems:
        print(problem)
    print(f"{len(graded)} grading tests, {gpu_count} GPU(s), {len(parts)} run(s) over several kernels, "
          f"{len(own_runs)} kernels: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
