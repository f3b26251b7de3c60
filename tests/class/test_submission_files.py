#!/usr/bin/env python3
"""What tools/build-submission stages for a build, and how it says no (no GPU needed).

Usage: test_submission_files.py SOURCE_DIR BUILD_DIR WORK_DIR

A submission folder comes from a student (unpacked from an LMS): a kernel
file or an included header may be a symbolic link to a secret of the
grading machine (the secret seed, the hidden cases), a FIFO, a device or a
folder. Each is refused with exit 1 (the submission's fault), its message
naming the file and what it is, never the secret's text or where a link
points; nothing is compiled or written, and a FIFO does not hang the
build. tools/grade-class, which builds through it, records such a student
as build_failed with that message in build.log, results.json and
summary.md, the files the student is shown, and no trace of the secret.
A regular header in a subfolder is still staged and built.

Every usage error of build-submission (an invalid --name such as my-sub,
an unknown option, a malformed -D, a folder that is not there, an output
that is a folder, no sandbox) exits 2, not 1, which scripts read as the
submission's fault; its --help says what each exit status means.
"""
import csv
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

KERNELS = ["coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def stubs(source, folder):
    folder.mkdir(parents=True)
    for kernel in KERNELS:
        shutil.copy(source / "student" / f"{kernel}.cu", folder)
    return folder


def nvcc_environment():
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else None)
    if nvcc is None:
        return None
    return dict(os.environ, PATH=f"{Path(nvcc).parent}:{os.environ['PATH']}")


def build_submission(source, build, arguments, env=None, timeout=600):
    try:
        return subprocess.run([str(source / "tools/build-submission"), "--sandbox", str(build / "bin/spmv-sandbox"),
                               *map(str, arguments)], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(arguments, 124, "", f"timed out after {timeout} s")


def check_usage_errors(source, build, work):
    folder = stubs(source, work / "usage" / "sub")
    output = work / "usage" / "out.so"
    a_file = work / "usage" / "a-file"
    a_file.write_text("not a folder\n")
    a_folder = work / "usage" / "a-folder"
    a_folder.mkdir()
    mistakes = [
        (["--name", "my-sub", folder, output], "--name my-sub"),
        (["--name", "two words", folder, output], "--name two words"),
        (["--name"], ""),
        (["--frobnicate", folder, output], "--frobnicate"),
        ([], ""),
        ([folder, output, "third"], ""),
        (["-DNO_VALUE", folder, output], "-DNO_VALUE"),
        ([work / "usage" / "not-there", output], "not-there"),
        ([a_file, output], "a-file"),
        ([folder, a_folder], "a-folder"),
        (["--build-dir", a_file, folder, output], "a-file"),
    ]
    for arguments, named in mistakes:
        run = build_submission(source, build, arguments, timeout=120)
        words = " ".join(map(str, arguments)) or "(no arguments)"
        check(run.returncode == 2, f"build-submission {words}: exit {run.returncode}, not 2 (a usage error): "
                                   f"{run.stderr[-400:]}")
        check(named in run.stderr, f"build-submission {words}: the message does not name {named!r}: {run.stderr[-400:]}")
        check(not output.exists(), f"build-submission {words} wrote {output}")
    run = subprocess.run([str(source / "tools/build-submission"), "--sandbox", str(work / "usage" / "no-sandbox"),
                          folder, output], capture_output=True, text=True, timeout=120)
    check(run.returncode == 2 and "no-sandbox" in run.stderr,
          f"a missing spmv-sandbox: exit {run.returncode}, not 2: {run.stderr[-400:]}")
    # The submission's own fault stays 1.
    lacking = work / "usage" / "lacking"
    lacking.mkdir()
    shutil.copy(source / "student/coo.cu", lacking)
    run = build_submission(source, build, [lacking, output], timeout=120)
    check(run.returncode == 1 and "csr_scalar.cu" in run.stderr,
          f"a submission lacking kernel files: exit {run.returncode}, not 1: {run.stderr[-400:]}")
    shown = subprocess.run([str(source / "tools/build-submission"), "--help"], capture_output=True, text=True)
    text = " ".join(shown.stdout.split())
    check(shown.returncode == 0 and all(status in text for status in ("0 the plugin", "1 the submission",
                                                                              "2 a usage error", "3 the machine")),
          f"--help does not say what each exit status means:\n{shown.stdout[-1500:]}")


def hostile_folders(source, work, secret):
    """(name, folder, the file the message must name, the words saying what it is)."""
    cases = []

    def case(name, named, kind, make):
        folder = stubs(source, work / "hostile" / name)
        make(folder)
        cases.append((name, folder, named, kind))

    def link_kernel(folder):
        (folder / "coo.cu").unlink()
        (folder / "coo.cu").symlink_to(secret)

    def relative_link(folder):
        (folder / "csr_vector.cu").unlink()
        (folder / "csr_vector.cu").symlink_to(os.path.relpath(secret, folder))

    def fifo_kernel(folder):
        (folder / "ell.cu").unlink()
        os.mkfifo(folder / "ell.cu")

    def folder_kernel(folder):
        (folder / "hyb.cu").unlink()
        (folder / "hyb.cu").mkdir()
        (folder / "hyb.cu" / "inside.cu").write_text("// a folder is not a kernel file\n")

    def dangling_link(folder):
        (folder / "jds.cu").unlink()
        (folder / "jds.cu").symlink_to(secret.parent / "no-such-secret")

    def linked_header(folder):
        (folder / "include").mkdir()
        (folder / "include" / "helpers.cuh").symlink_to(secret)
        text = (folder / "coo.cu").read_text()
        (folder / "coo.cu").write_text('#include "include/helpers.cuh"\n' + text)

    def linked_folder(folder):
        elsewhere = secret.parent / "elsewhere"
        elsewhere.mkdir(exist_ok=True)
        shutil.copy(secret, elsewhere / "helpers.cuh")
        (folder / "include").symlink_to(elsewhere)
        text = (folder / "csr_scalar.cu").read_text()
        (folder / "csr_scalar.cu").write_text('#include "include/helpers.cuh"\n' + text)

    def device_kernel(folder):
        (folder / "coo.cu").unlink()
        os.mknod(folder / "coo.cu", stat.S_IFCHR | 0o644, os.makedev(1, 3))  # /dev/null's numbers

    case("link", "coo.cu", "is a symbolic link", link_kernel)
    case("relative-link", "csr_vector.cu", "is a symbolic link", relative_link)
    case("fifo", "ell.cu", "is a FIFO", fifo_kernel)
    case("folder", "hyb.cu", "is a folder", folder_kernel)
    case("dangling", "jds.cu", "is a symbolic link", dangling_link)
    case("linked-header", "include/helpers.cuh", "is a symbolic link", linked_header)
    case("linked-folder", "include", "is a symbolic link", linked_folder)
    if os.geteuid() == 0:
        case("device", "coo.cu", "is a device", device_kernel)
    return cases


def check_refusals(source, build, work, secret, secret_text):
    env = nvcc_environment()
    for name, folder, named, kind in hostile_folders(source, work, secret):
        output = work / "hostile" / f"{name}.so"
        run = build_submission(source, build, ["--name", "hostile", folder, output], env=env, timeout=300)
        said = run.stdout + run.stderr
        check(run.returncode == 1, f"{name}: exit {run.returncode}, not 1 (the submission's fault): {said[-600:]}")
        check(f"{folder}/{named} {kind}" in " ".join(said.split()),
              f"{name}: the message does not say that {named} {kind}: {said[-600:]}")
        check(secret_text not in said and secret.name not in said and secret.parent.name not in said,
              f"{name}: the message shows the secret or where the link points: {said[-600:]}")
        check(not output.exists(), f"{name}: a plugin was written")

    # A regular header in a subfolder is still staged and built.
    if env is None:
        print("no nvcc: the build of a submission with a header is not tried")
        return
    folder = stubs(source, work / "with-header")
    (folder / "include").mkdir()
    (folder / "include" / "helpers.cuh").write_text("#pragma once\nconstexpr int kHelperValue = 1;\n")
    text = (folder / "coo.cu").read_text()
    (folder / "coo.cu").write_text('#include "include/helpers.cuh"\nstatic_assert(kHelperValue == 1);\n' + text)
    run = build_submission(source, build, ["--name", "with_header", folder, work / "with-header.so"], env=env)
    if run.returncode == 3:
        print("the build sandbox cannot be set up here: the build of a submission with a header is not tried")
        return
    check(run.returncode == 0 and (work / "with-header.so").is_file(),
          f"a submission with a regular header: exit {run.returncode}: {run.stderr[-1500:]}")


def check_grade_class(source, build, work, secret, secret_text):
    """grade-class as the course runs it: the secret seed is the one the link points at."""
    submissions = work / "class"
    link = stubs(source, submissions / "mallory")
    (link / "coo.cu").unlink()
    (link / "coo.cu").symlink_to(secret)
    output = work / "class-graded"
    run = subprocess.run([sys.executable, str(source / "tools/grade-class"), str(submissions), "--output", str(output),
                          "--grader", str(build / "bin/spmv-grade"), "--secret-seed-file", str(secret),
                          "--allow-unisolated"],
                         capture_output=True, text=True, timeout=900, env=nvcc_environment() or dict(os.environ))
    said = run.stdout + run.stderr
    print(said[-2000:])
    check("Traceback" not in said and run.returncode not in (1, 2), f"grade-class exited {run.returncode}")
    lines = {}
    if (output / "class.csv").is_file():
        with open(output / "class.csv", newline="") as handle:
            lines = {line["student"]: line for line in csv.DictReader(handle)}
    check(lines.get("mallory", {}).get("status") == "build_failed", f"mallory: {lines.get('mallory')}")
    report = output / "mallory"
    for shown in ("build.log", "results.json", "summary.md"):
        path = report / shown
        text = path.read_text(errors="replace") if path.is_file() else ""
        check("coo.cu is a symbolic link" in " ".join(text.split()),
              f"mallory's {shown} does not say that coo.cu is a symbolic link: {text[-600:]}")
        check(secret_text not in text and secret.name not in text,
              f"mallory's {shown} shows the secret seed or its file: {text[-600:]}")
    for path in output.rglob("*"):
        if path.is_file() and not path.is_symlink():
            check(secret_text not in path.read_text(errors="replace"), f"{path} holds the secret seed")


def main():
    source, build, work = (Path(argument).resolve() for argument in sys.argv[1:4])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    secret_text = "course-secret-seed-7f3a9c1e5b"
    secrets = work / "staff-only"
    secrets.mkdir()
    secret = secrets / "secret-seed-of-the-course"
    secret.write_text(secret_text + "\n")

    check_usage_errors(source, build, work)
    check_refusals(source, build, work, secret, secret_text)
    check_grade_class(source, build, work, secret, secret_text)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
