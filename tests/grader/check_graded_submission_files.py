#!/usr/bin/env python3
"""Checks that the CTest grading refuses a submission folder holding links or special files.

Usage: check_graded_submission_files.py SOURCE_DIR SCRATCH_DIR [CMAKE_ARGS...]

`cmake -DSPMV_SUBMISSION=<folder>` compiles a student's folder where it is
(cmake/SpmvGrading.cmake, spmv_add_submission_plugin(... UNTRUSTED)), and
so does cmake/submission/ when configured by hand. A kernel file or a
header that is a symbolic link (here to a stand-in for the course's secret
seed), or a FIFO, would have the compiler read what it points at and quote
it in its errors; each must stop the configuration with a message naming
the file and what it is, never the secret's text or where the link points.
A folder of regular files (the stubs) configures.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

KERNELS = ["coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"]


def configure(source_dir, build_dir, cmake_args, *extra):
    shutil.rmtree(build_dir, ignore_errors=True)
    return subprocess.run(["cmake", "-S", str(source_dir), "-B", str(build_dir), *cmake_args, *extra],
                          capture_output=True, text=True)


def stubs(source_dir, folder):
    folder.mkdir(parents=True)
    for kernel in KERNELS:
        shutil.copy(source_dir / "student" / f"{kernel}.cu", folder)
    return folder


def main():
    source_dir, scratch = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    cmake_args = sys.argv[3:]
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    secret_text = "course-secret-seed-4d8e2b6a"
    secrets = scratch / "staff-only"
    secrets.mkdir()
    secret = secrets / "secret-seed-of-the-course"
    secret.write_text(secret_text + "\n")

    link = stubs(source_dir, scratch / "link")
    (link / "coo.cu").unlink()
    (link / "coo.cu").symlink_to(secret)
    header = stubs(source_dir, scratch / "linked-header")
    (header / "include").mkdir()
    (header / "include" / "helpers.cuh").symlink_to(secret)
    (header / "coo.cu").write_text('#include "include/helpers.cuh"\n' + (header / "coo.cu").read_text())
    fifo = stubs(source_dir, scratch / "fifo")
    (fifo / "ell.cu").unlink()
    os.mkfifo(fifo / "ell.cu")
    clean = stubs(source_dir, scratch / "clean")

    problems = []
    project = ["-DSPMV_BUILD_TESTS=OFF", *cmake_args]
    standalone = [argument for argument in cmake_args if not argument.startswith(("-DBoost_DIR", "-Dnlohmann"))]
    for folder, named, kind in ((link, "coo.cu", "a symbolic link"), (header, "include/helpers.cuh", "a symbolic link"),
                                (fifo, "ell.cu", "a FIFO")):
        runs = [("-DSPMV_SUBMISSION", configure(source_dir, scratch / "build", project,
                                                f"-DSPMV_SUBMISSION={folder}")),
                ("cmake/submission", configure(source_dir / "cmake/submission", scratch / "build-submission",
                                               standalone, f"-DSPMV_SUBMISSION_DIR={folder}"))]
        for how, run in runs:
            said = " ".join((run.stdout + run.stderr).split())
            if run.returncode == 0:
                problems.append(f"{how}={folder.name}: {named} is {kind}, and it configured")
            elif f"{named} is {kind}" not in said:
                problems.append(f"{how}={folder.name}: the error does not say that {named} is {kind}:\n"
                                f"{run.stderr[-1500:]}")
            if secret_text in said or secret.name in said or secrets.name in said:
                problems.append(f"{how}={folder.name}: the output shows the secret or where the link points")
    run = configure(source_dir, scratch / "build", project, f"-DSPMV_SUBMISSION={clean}")
    if run.returncode != 0:
        problems.append(f"a folder of regular files failed to configure:\n{run.stdout[-1500:]}{run.stderr[-1500:]}")

    for problem in problems:
        print("FAIL:", problem)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
