#!/usr/bin/env python3
"""tools/grade-class (and tools/class-report) on what a real class folder
and machine hold (no GPU needed).

Usage: test_class_folder.py SOURCE_DIR BUILD_DIR WORK_DIR CHECK [--grade-class PATH]

CHECK is one of:
  machine_faults      a full disk while the plugin is copied, a build sandbox
                      that cannot start, a build that leaves no plugin, a
                      report that cannot be written: each is the machine's
                      fault, not the student's (grader_error, no score, exit 3,
                      nothing cached), and once the machine is fixed the next
                      run grades those students; a compile error stays
                      build_failed and is not built again.
  no_gpu              a device plugin graded where there is no GPU is
                      "not graded: no GPU" (no_gpu, no score, exit 3; exit 0
                      with --host-only, graded again by the next run); --gpus
                      naming a GPU nvidia-smi does not list is a usage error;
                      class-report counts such a student apart.
  submissions_folder  __MACOSX, an archive, a stray file, a dot-folder and a
                      dot-file beside the students are each named on the
                      console and in skipped.json with why, never graded;
                      the archive's command unpacks it into a student graded
                      by the next run; class-report lists them for review.
  output_lock         a second grade-class into the same --output is refused
                      at once (exit 2, one line naming the first's pid) and
                      writes nothing; another writer's class.csv.tmp is not
                      in the way; the tasks of a Slurm array share the output
                      (two at once), and a run is refused while they grade.
--grade-class runs another copy of the tool (to see a check fail on an older one).
"""
import csv
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)
    return condition


class Lab:
    """The paths of one check: the tool, the build, a fresh work folder."""

    def __init__(self, argv):
        self.source, self.build, self.work = (Path(a).resolve() for a in argv[:3])
        self.check = argv[3]
        self.tool = Path(argv[argv.index("--grade-class") + 1]).resolve() if "--grade-class" in argv \
            else self.source / "tools/grade-class"
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir(parents=True)
        self.grader = self.build / "bin/spmv-grade"
        self.host_reference = self.build / "plugins/libspmv_host_reference.so"

    def grade_class(self, submissions, output, *more, tool=None, env=None, timeout=900):
        command = [str(tool or self.tool), str(submissions), "--output", str(output),
                   "--cases", str(self.source / "testcases/edge"), "--prebuilt", "--allow-unisolated",
                   "--timeout", "20", *map(str, more)]
        if "--grader" not in command:
            command += ["--grader", str(self.grader)]
        run = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
        print(f"$ grade-class ... {' '.join(map(str, more))}: exit {run.returncode}\n{run.stdout}{run.stderr}")
        check("Traceback" not in run.stdout + run.stderr, "a Python traceback")
        return run

    def student(self, submissions, name, plugin=None, sources=False):
        folder = submissions / name
        folder.mkdir(parents=True)
        if plugin is not None:
            shutil.copy(plugin, folder)
        if sources:
            for kernel in ("coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"):
                (folder / f"{kernel}.cu").write_text(f"// {name}'s {kernel}\n")
        return folder


def class_lines(output):
    path = output / "class.csv"
    if not path.is_file():
        return {}
    with open(path, newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def executable(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def class_report(lab, output, *more):
    run = subprocess.run([str(lab.source / "tools/class-report"), str(output), "--output", str(lab.work / "report"),
                          *map(str, more)], capture_output=True, text=True, timeout=600)
    print(f"$ class-report: exit {run.returncode}\n{run.stdout}{run.stderr}")
    check(run.returncode == 0, f"class-report exited {run.returncode}")
    page = lab.work / "report/staff-only/index.html"
    return run.stdout, page.read_text() if page.is_file() else ""


def section(page, anchor):
    """The page's text from the heading `anchor` to the next heading."""
    start = page.find(f'id="{anchor}"')
    if start < 0:
        return ""
    end = page.find("<h3", start)
    return page[start:end if end > 0 else len(page)]


# -- machine_faults --------------------------------------------------------------------------------

FAKE_BUILD = """#!/bin/sh
# Stands in for tools/build-submission: [--name N] [--sandbox S] DIR OUT. What
# it does for a student is in $FAKE_FAULTS/<student>, else it "builds" the
# host reference.
while [ $# -gt 2 ]; do shift; done
dir="$1"; out="$2"
fault="$(cat "$FAKE_FAULTS/$(basename "$dir")" 2>/dev/null || true)"
case "$fault" in
  disk)    head -c 4096 "$FAKE_PLUGIN" > "$out"
           echo "cp: error writing '$out': No space left on device" >&2; exit 1 ;;
  compile) echo "coo.cu(1): error: expected a declaration" >&2
           echo "build-submission: the build of $dir failed (exit 1)" >&2; exit 1 ;;
  sandbox) echo "spmv-sandbox: cannot make a user namespace: Operation not permitted" >&2
           echo "build-submission: the build sandbox could not be set up on this machine" >&2; exit 3 ;;
  silent)  exit 0 ;;
  *)       cp "$FAKE_PLUGIN" "$out" ;;
esac
"""


def machine_faults(lab):
    # The tool in a tree of its own, beside a build-submission that fails as told.
    tree = lab.work / "tree/tools"
    tree.mkdir(parents=True)
    shutil.copy(lab.tool, tree / "grade-class")
    executable(tree / "build-submission", FAKE_BUILD)
    faults = lab.work / "faults"
    faults.mkdir()
    env = dict(os.environ, FAKE_FAULTS=str(faults), FAKE_PLUGIN=str(lab.host_reference))
    submissions, output = lab.work / "submissions", lab.work / "class"
    told = {"ann": None, "col": "compile", "dia": "disk", "sam": "sandbox", "nob": "silent", "wri": "compile"}
    for name, fault in told.items():
        lab.student(submissions, name, sources=True)
        if fault:
            (faults / name).write_text(fault + "\n")
    # wri's report cannot be written: its build.log is in the way (a folder).
    (output / "wri/build.log").mkdir(parents=True)

    first = lab.grade_class(submissions, output, tool=tree / "grade-class", env=env)
    said = first.stdout + first.stderr
    lines = class_lines(output)
    check(first.returncode == 3, f"machine faults: exit {first.returncode}, not 3 (students not graded)")
    check(lines.get("ann", {}).get("status") == "graded", f"ann: {lines.get('ann')}")
    check(lines.get("col", {}).get("status") == "build_failed", f"col (a compile error): {lines.get('col')}")
    for name in ("dia", "sam", "nob", "wri"):
        line = lines.get(name, {})
        check(line.get("status") == "grader_error", f"{name} ({told[name]}): status {line.get('status')}, "
                                                   "not grader_error: the machine's fault became the student's")
        check(line.get("score") == "", f"{name}: a score {line.get('score')!r} though not graded")
        check(any(name in x and "not the submission's" in x for x in said.splitlines()),
              f"{name}: the console does not say it was the machine's fault")
        state = output / name / "grade-class.json"
        recorded = json.loads(state.read_text()).get("status") if state.is_file() else None
        check(recorded in (None, "grader_error"), f"{name}: grade-class.json records {recorded}")
        results = output / name / "results.json"
        check(not results.is_file() or "did not build" not in results.read_text(),
              f"{name}: the report shown to the student says it did not build")
    check(any("dia" in x and "No space left on device" in x for x in said.splitlines()),
          "the console does not quote the full disk")

    # The machine fixed: the same submissions, graded this time.
    for name in ("dia", "sam", "nob"):
        (faults / name).unlink()
    (output / "wri/build.log").rmdir()
    second = lab.grade_class(submissions, output, tool=tree / "grade-class", env=env)
    said = second.stdout + second.stderr
    lines = class_lines(output)
    check(second.returncode == 0, f"after the fix: exit {second.returncode}")
    for name in ("dia", "sam", "nob"):
        check(f"{name}: unchanged" not in said, f"{name}: not graded again once the machine was fixed")
        line = lines.get(name, {})
        check(line.get("status") == "graded" and line.get("score") and float(line["score"]) > 90,
              f"{name} after the fix: {line}")
    check(lines.get("wri", {}).get("status") == "build_failed", f"wri after the fix: {lines.get('wri')}")
    for name in ("ann", "col"):
        check(f"{name}: unchanged, not graded again" in said, f"{name} was graded again though nothing changed")


# -- no_gpu ----------------------------------------------------------------------------------------

FAKE_NVIDIA_SMI = """#!/bin/sh
# Stands in for nvidia-smi --query-gpu=index: the GPUs of $FAKE_GPUS.
if [ -z "$FAKE_GPUS" ]; then
  echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
  exit 9
fi
for gpu in $(echo "$FAKE_GPUS" | tr ',' ' '); do echo "$gpu"; done
"""


def fake_gpus(lab, gpus):
    """An environment whose nvidia-smi lists `gpus` (a list of indices) and
    where CUDA sees no GPU, whatever this machine has."""
    folder = lab.work / "fake-bin"
    if not folder.is_dir():
        folder.mkdir()
        executable(folder / "nvidia-smi", FAKE_NVIDIA_SMI)
    return dict(os.environ, PATH=f"{folder}:{os.environ['PATH']}", FAKE_GPUS=",".join(gpus), CUDA_VISIBLE_DEVICES="")


def no_gpu(lab):
    submissions, output = lab.work / "submissions", lab.work / "class"
    lab.student(submissions, "ann", lab.host_reference)  # host memory: graded on the host
    lab.student(submissions, "dev", lab.build / "plugins/libspmv_student.so")  # device memory: needs a GPU
    none = fake_gpus(lab, [])

    first = lab.grade_class(submissions, output, env=none)
    said = first.stdout + first.stderr
    lines = class_lines(output)
    check(first.returncode == 3, f"no GPU, no --host-only: exit {first.returncode}, not 3")
    check(lines.get("ann", {}).get("status") == "graded", f"ann: {lines.get('ann')}")
    dev = lines.get("dev", {})
    check(dev.get("status") == "no_gpu", f"dev graded without a GPU: status {dev.get('status')}, not no_gpu")
    check(all(dev.get(column) == "" for column in ("score", "coo", "jds", "geomean_speedup")),
          f"dev was not graded, yet class.csv shows {dev}")
    check("(dev: not graded: no GPU)" in said, "the console does not say dev was not graded for want of a GPU")
    check("--host-only" in said, "the run does not name --host-only")

    # What class-report makes of it; and of the same class as an older
    # grade-class wrote it (graded, 0.00 for everyone).
    secret = lab.work / "secret"
    secret.write_text("a pseudonym secret\n")
    secret.chmod(0o600)
    for label in ("no_gpu", "written as graded"):
        if label != "no_gpu":
            with open(output / "class.csv", newline="") as handle:
                records = list(csv.reader(handle))
            header = records[0]
            for record in records[1:]:
                if record[0] == "dev":
                    record[1:-2] = ["0.00" if header[i] != "max_score" else record[i]
                                    for i in range(1, len(record) - 2)]
                    record[-2] = "graded"
            with open(output / "class.csv", "w", newline="") as handle:
                csv.writer(handle).writerows(records)
        console, page = class_report(lab, output, "--pseudonym-secret-file", secret)
        check("1 graded" in console and "1 not graded: no GPU" in console,
              f"{label}: class-report does not count dev apart: {console.strip()}")
        not_graded = section(page, "not-graded")
        check("dev" in not_graded and "not graded: no GPU" in not_graded,
              f"{label}: the page's not-graded table does not show dev as not graded: no GPU")
        pseudonyms = (lab.work / "report/staff-only/pseudonyms.csv").read_text()
        board = (lab.work / "report/leaderboard/leaderboard.csv").read_text()
        dev_name = next((line.split(",")[1] for line in pseudonyms.splitlines() if line.startswith("dev,")), None)
        check(dev_name is not None and dev_name not in board, f"{label}: dev is on the leaderboard")

    # A host-only dry run: the same outcome, exit 0; dev graded again (never cached).
    dry = lab.grade_class(submissions, output, "--host-only", env=none)
    said = dry.stdout + dry.stderr
    check(dry.returncode == 0, f"--host-only: exit {dry.returncode}, not 0")
    check("dev: unchanged" not in said and "(dev: not graded: no GPU)" in said,
          "--host-only: dev was not taken up again")
    check(class_lines(output).get("dev", {}).get("status") == "no_gpu", "--host-only: dev is not no_gpu")

    # --gpus against the GPUs nvidia-smi lists.
    for label, gpus, option, named in [("a GPU not here", ["0"], ["--gpus", "1"], "nvidia-smi lists 0"),
                                       ("no GPU at all", [], ["--gpus", "0"], "no GPU"),
                                       ("a GPU named twice", ["0", "1"], ["--gpus", "1,1"], "twice"),
                                       ("--gpus with --host-only", ["0"], ["--gpus", "0", "--host-only"],
                                        "--host-only")]:
        fresh = lab.work / f"class-{label.replace(' ', '-')}"
        run = lab.grade_class(submissions, fresh, *option, env=fake_gpus(lab, gpus))
        check(run.returncode == 2, f"{label}: exit {run.returncode}, not 2 (a usage error)")
        check("--gpus" in run.stderr and named in run.stderr, f"{label}: the message names neither --gpus nor "
                                                               f"{named!r}: {run.stderr.strip()}")
        check(not fresh.exists(), f"{label}: grade-class wrote {fresh} before refusing")


# -- submissions_folder ----------------------------------------------------------------------------

def submissions_folder(lab):
    submissions, output = lab.work / "submissions", lab.work / "class"
    lab.student(submissions, "ann", lab.host_reference)
    # What unzipping on a Mac leaves: __MACOSX/<student>/._<file>.
    mac = submissions / "__MACOSX/ann"
    mac.mkdir(parents=True)
    for kernel in ("coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"):
        (mac / f"._{kernel}.cu").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ")
    with zipfile.ZipFile(submissions / "carol.zip", "w") as archive:
        archive.write(lab.host_reference, lab.host_reference.name)
    (submissions / "stray.cu").write_text("__global__ void coo() {}\n")
    lab.student(submissions, ".git", lab.host_reference)
    (submissions / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    others = ["__MACOSX", "carol.zip", "stray.cu", ".git", ".DS_Store"]

    first = lab.grade_class(submissions, output)
    said = (first.stdout + first.stderr).splitlines()
    check(first.returncode == 0, f"exit {first.returncode}")
    check(sorted(class_lines(output)) == ["ann"], f"class.csv's students: {sorted(class_lines(output))}")
    for entry in others:
        check(any(f"not graded: {entry}:" in line for line in said), f"the console does not name {entry}")
    skipped_path = output / "skipped.json"
    skipped = json.loads(skipped_path.read_text())["skipped"] if skipped_path.is_file() else []
    by_entry = {item["entry"]: item for item in skipped}
    check(sorted(by_entry) == sorted(others), f"skipped.json lists {sorted(by_entry)}, not {sorted(others)}")
    check(all(item["why"] for item in skipped), "an entry of skipped.json without its reason")
    command = (by_entry.get("carol.zip") or {}).get("command") or ""
    check(str(submissions / "carol.zip") in command and str(submissions / "carol") in command,
          f"carol.zip's command does not unpack it into a folder beside it: {command!r}")

    _, page = class_report(lab, output, "--no-leaderboard")
    listed = section(page, "skipped")
    for entry in others:
        check(f">{entry}<" in listed, f"the page's list of entries not graded lacks {entry}")
    check("unzip" in listed, "the page does not give carol.zip's command")
    check("Every submission built and was graded" not in page, "the page says every submission was graded")

    # Following the command grades carol.
    if command.startswith("unzip ") and shutil.which("unzip"):
        subprocess.run(command, shell=True, check=True)
    else:
        words = shlex.split(command)
        zipfile.ZipFile(submissions / "carol.zip").extractall(words[words.index("-d") + 1])
    second = lab.grade_class(submissions, output)
    lines = class_lines(output)
    check(second.returncode == 0, f"after unpacking: exit {second.returncode}")
    check(lines.get("carol", {}).get("status") == "graded", f"carol after unpacking: {lines.get('carol')}")
    skipped = json.loads(skipped_path.read_text())["skipped"] if skipped_path.is_file() else []
    carol = [item for item in skipped if item["entry"] == "carol.zip"]
    check(carol and not carol[0]["command"] and "carol/" in carol[0]["why"],
          f"carol.zip beside its folder: {carol}")


# -- output_lock -----------------------------------------------------------------------------------

WAITING_GRADER = """#!/bin/sh
# spmv-grade, except that a grading marks $MARKERS/<student> and waits for
# $RELEASE (two minutes at most) first.
case "$*" in *--output-dir*)
  previous=""
  for argument in "$@"; do
    [ "$previous" = "--output-dir" ] && touch "$MARKERS/$(basename "$argument")"
    previous="$argument"
  done
  waited=0
  while [ ! -e "$RELEASE" ] && [ $waited -lt 1200 ]; do sleep 0.1; waited=$((waited + 1)); done ;;
esac
exec {grader} "$@"
"""


def wait_for(paths, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if all(path.exists() for path in paths):
            return True
        time.sleep(0.1)
    return False


def output_lock(lab):
    submissions, output = lab.work / "submissions", lab.work / "class"
    for name in ("ann", "bo"):
        lab.student(submissions, name, lab.host_reference)
    # A grader whose gradings wait to be let go, beside the build's programs.
    grader = lab.work / "bin/spmv-grade"
    grader.parent.mkdir()
    (lab.work / "plugins").symlink_to(lab.build / "plugins")
    for program in ("spmv-runner", "spmv-reference-runner", "spmv-sandbox", "spmv-cases"):
        if (lab.build / "bin" / program).exists():
            (grader.parent / program).symlink_to(lab.build / "bin" / program)
    executable(grader, WAITING_GRADER.format(grader=shlex.quote(str(lab.grader))))
    markers = lab.work / "markers"
    markers.mkdir()
    env = dict(os.environ, MARKERS=str(markers), RELEASE=str(lab.work / "release-first"))
    command = [str(lab.tool), str(submissions), "--output", str(output), "--cases", str(lab.source / "testcases/edge"),
               "--prebuilt", "--allow-unisolated", "--timeout", "20", "--grader", str(grader),
               "--gradings-per-gpu", "1"]
    # Another writer's temporary class.csv, in the way of a name shared by every run.
    (output / "class.csv.tmp").mkdir(parents=True)

    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        check(wait_for([markers / "ann"]) or wait_for([markers / "bo"], 1), "the first run never started grading")
        before = sorted(str(p.relative_to(output)) for p in output.rglob("*"))
        try:
            second = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
            told = [line for line in second.stderr.splitlines() if line.strip()]
            print(f"second run: exit {second.returncode}\n{second.stdout}{second.stderr}")
            check(second.returncode == 2, f"a second run into the same --output: exit {second.returncode}, not 2")
            check(len(told) == 1 and str(first.pid) in told[0] and str(output) in told[0],
                  f"the refusal is not one line naming --output and the first run's pid {first.pid}: {told}")
            check("Traceback" not in second.stderr, "the second run: a Python traceback")
        except subprocess.TimeoutExpired:
            check(False, "a second run into the same --output was not refused (it ran beside the first)")
        after = sorted(str(p.relative_to(output)) for p in output.rglob("*"))
        check(before == after, f"the refused run changed the output: {sorted(set(after) ^ set(before))}")
    finally:
        (lab.work / "release-first").touch()
        said, _ = first.communicate(timeout=900)
    print(f"first run: exit {first.returncode}\n{said}")
    check(first.returncode == 0, f"the first run: exit {first.returncode}")
    lines = class_lines(output)
    check(all(lines.get(name, {}).get("status") == "graded" for name in ("ann", "bo")), f"class.csv: {lines}")

    # The tasks of a Slurm array: both grade at once, and a run is refused meanwhile.
    listing = lab.work / "students.txt"
    listing.write_text("ann\tany\nbo\tany\n")
    for marker in markers.iterdir():
        marker.unlink()
    env["RELEASE"] = str(lab.work / "release-tasks")
    tasks = [subprocess.Popen(command + ["--slurm-task", str(listing)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, env=dict(env, SLURM_ARRAY_TASK_ID=str(index)))
             for index in range(2)]
    try:
        together = wait_for([markers / "ann", markers / "bo"])
        check(together, "the two tasks of one array did not grade at once (one held the other back)")
        if together:
            try:
                meanwhile = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
                check(meanwhile.returncode == 2 and "Slurm" in meanwhile.stderr,
                      f"a run while the tasks grade: exit {meanwhile.returncode}: {meanwhile.stderr.strip()}")
            except subprocess.TimeoutExpired:
                check(False, "a run while the array's tasks grade was not refused")
    finally:
        (lab.work / "release-tasks").touch()
        for task in tasks:
            said, _ = task.communicate(timeout=900)
            print(f"task: exit {task.returncode}\n{said}")
            check(task.returncode == 0, f"a task exited {task.returncode}")
    written = subprocess.run(command + ["--write-csv"], capture_output=True, text=True, timeout=300, env=env)
    check(written.returncode == 0, f"--write-csv: exit {written.returncode}: {written.stderr.strip()}")
    lines = class_lines(output)
    check(all(lines.get(name, {}).get("status") == "graded" for name in ("ann", "bo")), f"class.csv: {lines}")


CHECKS = {"machine_faults": machine_faults, "no_gpu": no_gpu, "submissions_folder": submissions_folder,
          "output_lock": output_lock}


def main():
    if len(sys.argv) < 5 or sys.argv[4] not in CHECKS:
        sys.exit(__doc__)
    lab = Lab(sys.argv[1:])
    CHECKS[lab.check](lab)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
