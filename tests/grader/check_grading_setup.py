#!/usr/bin/env python3
"""Checks that a staff mistake in the CTest grading's set-up stops the configuration.

Usage: check_grading_setup.py SOURCE_DIR SCRATCH_DIR [CMAKE_ARGS...]

Configures SOURCE_DIR in SCRATCH_DIR (no test suite) with a good set-up,
then with each mistake, and checks (cmake/SpmvGrading.cmake):

- an SPMV_CASES entry that is not a folder, a list written with commas, an
  empty list, a folder holding no case, a folder listed twice, a case name
  in two folders, and a policy that grades no kernel are each a FATAL_ERROR
  whose message names the variable (they used to warn, or to register no
  grading test, so that `ctest --preset grade` printed "No tests were
  found!!!" and exited 0);
- a good set-up prints the case sets it grades, and says so when no hidden
  set is among them;
- the `grade` test preset turns "no tests" into an error (noTestsAction).
"""
import json
import os
import shutil
import subprocess
import sys


def configure(source_dir, build_dir, cmake_args, *extra):
    return subprocess.run(["cmake", "-S", source_dir, "-B", build_dir, "-DSPMV_BUILD_TESTS=OFF", *cmake_args, *extra],
                          capture_output=True, text=True)


def main():
    source_dir, scratch_dir, cmake_args = sys.argv[1], sys.argv[2], sys.argv[3:]
    shutil.rmtree(scratch_dir, ignore_errors=True)
    os.makedirs(scratch_dir)
    build_dir = os.path.join(scratch_dir, "build")
    empty = os.path.join(scratch_dir, "empty-hidden")
    os.makedirs(empty)
    with open(os.path.join(empty, "README.md"), "w") as readme:
        readme.write("the cases were never copied here\n")
    twin = os.path.join(scratch_dir, "twin")
    os.makedirs(twin)
    shutil.copy(os.path.join(source_dir, "testcases", "public", "textbook_fig14_1.mtx"), twin)
    no_kernels = os.path.join(scratch_dir, "no-kernels.ini")
    with open(no_kernels, "w") as policy:
        policy.write("[kernels]\ncoo = 0\ncsr_scalar = 0\n")
    public = os.path.join(source_dir, "testcases", "public")
    edge = os.path.join(source_dir, "testcases", "edge")

    problems = []
    good = configure(source_dir, build_dir, cmake_args, f"-DSPMV_CASES={public}")
    if good.returncode != 0:
        print("the good set-up failed to configure:\n" + good.stdout[-2000:] + good.stderr[-2000:])
        return 1
    if "ctest -L grade grades" not in good.stdout or "no hidden case set" not in good.stdout:
        problems.append("a set-up grading testcases/public alone does not say what it grades and that no "
                        "hidden set is among them:\n" + good.stdout[-1500:])

    mistakes = [
        (f"-DSPMV_CASES={public},{edge}", "SPMV_CASES", "holds a comma"),
        (f"-DSPMV_CASES={public};{os.path.join(scratch_dir, 'hiddne')}", "SPMV_CASES", "is not a folder"),
        (f"-DSPMV_CASES={public};{os.path.join(source_dir, 'README.md')}", "SPMV_CASES", "is a file"),
        ("-DSPMV_CASES=", "SPMV_CASES", "is empty"),
        (f"-DSPMV_CASES={public};{empty}", "SPMV_CASES", "holds no case"),
        (f"-DSPMV_CASES={public};{public}", "SPMV_CASES", "listed twice"),
        (f"-DSPMV_CASES={public};{twin}", "SPMV_CASES", "textbook_fig14_1"),
    ]
    for define, variable, words in mistakes:
        run = configure(source_dir, build_dir, cmake_args, define)
        message = " ".join(run.stderr.split())
        if run.returncode == 0:
            problems.append(f"{define} configured without error")
        elif variable not in message or words not in message:
            problems.append(f"{define} failed without naming {variable} ({words}):\n{run.stderr[-1500:]}")
    run = configure(source_dir, build_dir, cmake_args, f"-DSPMV_CASES={public}", f"-DSPMV_POLICY={no_kernels}")
    if run.returncode == 0 or "SPMV_POLICY" not in run.stderr:
        problems.append("a policy that grades no kernel configured, or failed without naming SPMV_POLICY:\n" +
                        run.stderr[-1500:])
    run = configure(source_dir, build_dir, cmake_args, f"-DSPMV_CASES={public};{edge}",
                    f"-DSPMV_POLICY={os.path.join(source_dir, 'grader', 'policy', 'default-policy.ini')}")
    if run.returncode != 0:
        problems.append("a good set-up after the mistakes failed:\n" + run.stderr[-1500:])
    elif "(hidden, " not in run.stdout or "no hidden case set" in run.stdout:
        problems.append("a set-up with a hidden set does not name it:\n" + run.stdout[-1500:])

    with open(os.path.join(source_dir, "CMakePresets.json")) as presets:
        for preset in json.load(presets)["testPresets"]:
            includes = preset.get("filter", {}).get("include", {}).get("label")
            if includes == "^grade$" and preset.get("execution", {}).get("noTestsAction") != "error":
                problems.append(f"test preset {preset['name']} grades but lets a run without tests succeed")

    for problem in problems:
        print(problem)
    print(f"{len(mistakes) + 1} set-up mistakes tried: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
