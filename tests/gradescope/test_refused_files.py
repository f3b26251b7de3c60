#!/usr/bin/env python3
"""The Gradescope autograder refuses a submission holding links or special files, on the host path.

Usage: test_refused_files.py SOURCE_DIR WORK_DIR

A submission uploaded to Gradescope whose coo.cu is a symbolic link to the
autograder's secret seed, whose include/helpers.cuh links to it, or whose
ell.cu is a FIFO: autograder.py run (no GPU host configured) refuses it
before anything is built or sent, with 0 points and a message naming the
file and what it is, and the results hold neither the seed nor the link's
target; it does not hang on the FIFO. The GPU host's side (serve) refuses a
tar holding a link the same way, before grading anything.
"""
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def main():
    source, work = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    shutil.rmtree(work, ignore_errors=True)
    root = work / "autograder"
    (root / "source").mkdir(parents=True)
    seed_text = "refused-files-test-seed-93b1"
    seed = root / "source/secret-seed"
    seed.write_text(seed_text + "\n")
    autograder = source / "tools/gradescope/autograder.py"

    def submission_with(make):
        submission = root / "submission"
        shutil.rmtree(submission, ignore_errors=True)
        submission.mkdir()
        for kernel in ("coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"):
            shutil.copy(source / "student" / f"{kernel}.cu", submission)
        make(submission)

    def link_kernel(submission):
        (submission / "coo.cu").unlink()
        (submission / "coo.cu").symlink_to(seed)

    def link_header(submission):
        (submission / "include").mkdir()
        (submission / "include/helpers.cuh").symlink_to(seed)

    def fifo_kernel(submission):
        (submission / "ell.cu").unlink()
        os.mkfifo(submission / "ell.cu")

    for label, make, named in (("a linked kernel file", link_kernel, "coo.cu is a symbolic link"),
                               ("a linked header", link_header, "include/helpers.cuh is a symbolic link"),
                               ("a FIFO", fifo_kernel, "ell.cu is a FIFO")):
        submission_with(make)
        (root / "results/results.json").unlink(missing_ok=True)
        try:
            run = subprocess.run([sys.executable, str(autograder), "run"], capture_output=True, text=True, timeout=300,
                                 env=dict(os.environ, SPMV_AUTOGRADER_ROOT=str(root)))
        except subprocess.TimeoutExpired:
            check(False, f"{label}: run_autograder did not finish in 300 s")
            continue
        path = root / "results/results.json"
        results = json.loads(path.read_text()) if path.is_file() else {}
        text = json.dumps(results) + run.stdout + run.stderr
        check(run.returncode == 0 and results.get("score") == 0
              and results.get("extra_data", {}).get("status") == "refused",
              f"{label}: not refused with 0 points (exit {run.returncode}): {results} {run.stderr[-500:]}")
        check(named in results.get("output", ""), f"{label}: the results do not say {named!r}: "
                                                  f"{results.get('output')!r}")
        check(seed_text not in text and str(seed) not in text,
              f"{label}: the results or the output show the seed or the link's target")

    # serve, the GPU host's side: a tar holding a link is refused before any grading.
    hidden = work / "hidden"
    hidden.mkdir()
    request = io.BytesIO()
    with tarfile.open(fileobj=request, mode="w") as archive:
        link = tarfile.TarInfo("coo.cu")
        link.type, link.linkname = tarfile.SYMTYPE, str(seed)
        archive.addfile(link)
    run = subprocess.run([sys.executable, str(autograder), "serve", "--hidden", str(hidden), "--secret-seed-file",
                          str(seed), "--grader", str(work / "no-grader-needed"), "--lock", str(work / "lock")],
                         input=request.getvalue(), capture_output=True, timeout=300)
    said = (run.stdout + run.stderr).decode(errors="replace")
    check(run.returncode == 1 and "coo.cu" in said and "not a plain file" in said and seed_text not in said,
          f"serve, a tar holding a link: exit {run.returncode}: {said[-500:]}")

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
