#!/usr/bin/env python3
"""tools/grade-class and tools/build-submission against the course staff's
mistakes (no GPU needed).

Usage: test_setup_errors.py SOURCE_DIR BUILD_DIR WORK_DIR

Each set-up mistake (a policy typo, a policy without points, a case folder
that is empty, missing, or holds a broken cases.ini or matrix, a bad
--timeout, --gpus or --concurrent, an --output that is a file or lies inside
the submissions folder, --slurm without Slurm, a missing grader, an empty
secret seed) must end grade-class at once: exit 2, the reason on stderr
naming the option or file, no Python traceback, and no student built or
graded. Then, on a class whose set-up is right:
  - a grading that the grader could not finish (a grader that exits 3 for
    one student) leaves that student's score out of class.csv, and shows
    it out of the policy's total_points as spmv-grade reads them; the run
    exits 3 (a student not graded) and names the student;
  - students whose folder names hold quotes, '$', spaces and a backquote are
    graded like any other;
  - a submission with the stubs one folder deeper, a 5 MB data file and a
    build/ folder of 300 files beside them builds (no build_failed, no
    stray "cat:" message), and its report says it was found deeper.
"""
import csv
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def run_tool(source, arguments, env=None, timeout=900):
    run = subprocess.run([str(source / "tools/grade-class"), *map(str, arguments)],
                         capture_output=True, text=True, timeout=timeout, env=env)
    return run


def main():
    source, build, work = (Path(a).resolve() for a in sys.argv[1:4])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    grader = build / "bin/spmv-grade"
    submissions = work / "submissions"
    for name in ("ann", "bo"):
        (submissions / name).mkdir(parents=True)
        shutil.copy(build / "plugins/libspmv_host_reference.so", submissions / name)
    common = ["--prebuilt", "--allow-unisolated", "--grader", grader]

    # The mistakes, each in a folder of its own.
    empty = work / "empty-cases"
    empty.mkdir()
    typo_ini = work / "typo-cases"
    typo_ini.mkdir()
    shutil.copy(source / "testcases/edge/one_by_one.mtx", typo_ini)
    (typo_ini / "cases.ini").write_text("[one_by_one]\nweigth = 2\n")
    bad_matrix = work / "bad-matrix"
    bad_matrix.mkdir()
    (bad_matrix / "short.mtx").write_text("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.0\n")
    policy_typo = work / "policy-typo.ini"
    policy_typo.write_text("total_points = 50\ncorectness_share = 0.5\n")
    no_points = work / "no-points.ini"
    no_points.write_text("[kernels]\ncoo = 0\ncsr_scalar = 0\n")
    unknown_case = work / "unknown-case.ini"
    unknown_case.write_text("[case.no_such_case]\nweight = 2\n")
    a_file = work / "a-file"
    a_file.write_text("not a folder\n")
    empty_seed = work / "empty-seed"
    empty_seed.write_text("\n")
    edge = ["--cases", source / "testcases/edge"]
    no_slurm_path = dict(os.environ, PATH=str(work / "empty-path"))
    (work / "empty-path").mkdir(exist_ok=True)
    for tool in ("python3", "cmake", "ctest"):
        found = shutil.which(tool)
        if found and not (work / "empty-path" / tool).exists():
            (work / "empty-path" / tool).symlink_to(found)
    slurm_unreachable = dict(os.environ, SLURM_CONF=str(work / "no-slurm.conf"))
    mistakes = [
        ("policy typo", [*edge, "--policy", policy_typo], "corectness_share", None),
        ("policy without points", [*edge, "--policy", no_points], "no-points.ini", None),
        ("policy naming no case", [*edge, "--policy", unknown_case], "no_such_case", None),
        ("empty case folder", ["--cases", empty], "empty-cases", None),
        ("missing case folder", ["--cases", work / "no-such-folder"], "no-such-folder", None),
        ("cases.ini typo", ["--cases", typo_ini], "weigth", None),
        ("broken matrix", ["--cases", bad_matrix], "short.mtx", None),
        ("timeout 0", [*edge, "--timeout", "0"], "--timeout", None),
        ("timeout not a number", [*edge, "--timeout", "ten"], "--timeout", None),
        ("bad --gpus", [*edge, "--gpus", "0;1"], "--gpus", None),
        ("bad --concurrent", [*edge, "--concurrent", "0"], "--concurrent", None),
        ("no gradings a GPU", [*edge, "--gradings-per-gpu", "0"], "--gradings-per-gpu", None),
        ("output is a file", [*edge, "--output", a_file], "a-file", "no-output"),
        ("output inside the submissions", [*edge, "--output", submissions / "class"], "inside", "no-output"),
        ("missing grader", [*edge, "--grader", work / "no-grader"], "no-grader", None),
        ("empty secret seed", [*edge, "--secret-seed-file", empty_seed], "empty-seed", None),
        ("--slurm without sbatch", [*edge, "--slurm"], "sbatch", "no-slurm"),
    ]
    # Where Slurm's client is installed: its controller unreachable.
    if shutil.which("sbatch"):
        mistakes.append(("--slurm with no controller", [*edge, "--slurm"], "Slurm does not answer", "unreachable"))
    else:
        print("--- --slurm with no controller: not tried (no sbatch on PATH here)")
    for label, extra, named, how in mistakes:
        output = work / f"class-{label.replace(' ', '-').replace('/', '-')}"
        arguments = [submissions, *common, *extra]
        if "--output" not in [str(a) for a in extra]:
            arguments += ["--output", output]
        env = {"no-slurm": no_slurm_path, "unreachable": slurm_unreachable}.get(how)
        run = run_tool(source, arguments, env=env)
        print(f"--- {label}: exit {run.returncode}\n{run.stderr.strip()}")
        check(run.returncode == 2, f"{label}: exit {run.returncode}, not 2 (a usage error)")
        check("Traceback" not in run.stderr + run.stdout, f"{label}: a Python traceback")
        check(named in run.stderr, f"{label}: the message does not name {named!r}")
        built = [p for p in output.iterdir()] if output.is_dir() else []
        check(not built, f"{label}: grade-class wrote {sorted(p.name for p in built)} before failing")
        check(not (submissions / "class").exists(), f"{label}: a folder appeared inside the submissions")

    # A grading that cannot finish leaves no score in class.csv.
    wrapper = work / "bin/spmv-grade"
    wrapper.parent.mkdir()
    (work / "plugins").symlink_to(build / "plugins")
    for program in ("spmv-runner", "spmv-reference-runner", "spmv-sandbox", "spmv-cases"):
        if (build / "bin" / program).exists():
            (wrapper.parent / program).symlink_to(build / "bin" / program)
    wrapper.write_text(f"""#!/bin/sh
case "$*" in *submissions/bo/*) echo "the grading broke" >&2; exit 3 ;; esac
exec {grader} "$@"
""")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    odd_names = ["it's", 'say "hi"', "cost $HOME", "back`tick` and space"]
    for name in odd_names:
        (submissions / name).mkdir()
        shutil.copy(build / "plugins/libspmv_host_reference.so", submissions / name)
    output = work / "class"
    # The points a student not graded in full is shown out of: the policy's
    # total_points as spmv-grade reads it (here after a ';' comment).
    total_points = random.randint(150, 250)
    points_policy = work / "points-policy.ini"
    points_policy.write_text(f"# the course's points\ntotal_points = {total_points} ; this term\n")
    run = run_tool(source, [submissions, "--output", output, "--prebuilt", "--allow-unisolated", "--grader", wrapper,
                            "--cases", source / "testcases/edge", "--timeout", "20", "--policy", points_policy])
    print(run.stdout, run.stderr, sep="\n")
    check(run.returncode == 3, f"grade-class exited {run.returncode}, not 3 (a student not graded)")
    check("bo: not graded" in run.stderr and "the grading broke" in run.stderr,
          "the console does not say bo was not graded, and why")
    lines = {}
    if (output / "class.csv").is_file():
        with open(output / "class.csv", newline="") as handle:
            lines = {row["student"]: row for row in csv.DictReader(handle)}
    check(lines.get("bo", {}).get("status") == "grader_error", f"bo: {lines.get('bo')}")
    check(lines.get("bo", {}).get("max_score") == f"{total_points:.2f}",
          f"bo's max_score is not the policy's total_points {total_points}: {lines.get('bo')}")
    kernels = ["coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"]
    check(all(lines.get("bo", {}).get(column) == "" for column in ["score", "geomean_speedup", *kernels]),
          f"bo was not graded, yet class.csv shows {lines.get('bo')}")
    check(lines.get("ann", {}).get("status") == "graded" and float(lines["ann"]["score"]) > 90,
          f"ann: {lines.get('ann')}")
    for name in odd_names:
        line = lines.get(name, {})
        check(line.get("status") == "graded" and line.get("score") and float(line["score"]) > 90,
              f"{name!r}: {line}")

    # A submission one folder deeper, among files the build does not need.
    nvcc = shutil.which("nvcc") or (Path("/usr/local/cuda/bin/nvcc") if Path("/usr/local/cuda/bin/nvcc").exists() else None)
    if nvcc is None or not (build / "bin/spmv-sandbox").exists():
        print("no nvcc or spmv-sandbox: the build of a real submission is not tried")
    else:
        deep = work / "deep-class"
        student = deep / "d'eep $x"
        inner = student / "spmv-lab-main" / "student"
        inner.mkdir(parents=True)
        for kernel in kernels:
            shutil.copy(source / "student" / f"{kernel}.cu", inner)
        (student / "dataset.bin").write_bytes(os.urandom(5 << 20))
        (student / "build").mkdir()
        for number in range(300):
            (student / "build" / f"object{number}.o").write_text("left over\n")
        env = dict(os.environ, PATH=f"{Path(nvcc).parent}:{os.environ['PATH']}")
        result = subprocess.run([str(source / "tools/build-submission"), "--sandbox", str(build / "bin/spmv-sandbox"),
                                 "--name", "deep", str(student), str(work / "deep.so")],
                                capture_output=True, text=True, timeout=900, env=env)
        print(result.stdout, result.stderr[-3000:], sep="\n")
        check(result.returncode == 0 and (work / "deep.so").is_file(), f"build-submission exited {result.returncode}")
        check("spmv-lab-main/student/" in result.stderr, "build-submission did not say where it found the kernels")
        check("cat:" not in result.stderr, "a stray cat: message")
        lacking = work / "lacking"
        lacking.mkdir()
        shutil.copy(source / "student/coo.cu", lacking)
        result = subprocess.run([str(source / "tools/build-submission"), "--sandbox", str(build / "bin/spmv-sandbox"),
                                 str(lacking), str(work / "lacking.so")], capture_output=True, text=True, timeout=300)
        check(result.returncode == 1 and "csr_scalar.cu" in result.stderr and "cat:" not in result.stderr,
              f"a submission lacking files: exit {result.returncode}, {result.stderr[-500:]}")

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
