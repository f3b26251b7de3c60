#!/usr/bin/env python3
"""The Gradescope zip names its commit, refuses uncommitted edits, and the GPU host's is compared with it.

Usage: test_zip_commit.py SOURCE_DIR BUILD_DIR WORK_DIR

A copy of the repository's files is committed in a git repository of its
own (WORK_DIR/lab), and its tools/make-gradescope-autograder run there:
  - on the clean tree, the zip records the commit (spmv-lab/COMMIT: `git
    describe --always --dirty` and the full commit), not -dirty; a file git
    does not track does not count;
  - with the default policy edited and not committed, it refuses (exit 2),
    listing the file, and writes no zip; with --allow-dirty it packs it,
    lists it, and the recorded commit ends in -dirty;
  - a tree that is not a git checkout (a release tarball, or a folder
    lying untracked inside another repository) is refused with a message
    saying so, not a traceback.
Then the clean zip's autograder.py run, against a stand-in GPU host (an
`ssh` on PATH that answers a fixed results.json), says in the staff's
output and in extra_data.commit_note when the host's grader is at another
commit, has uncommitted changes or does not say, and nothing when it is
the zip's commit. The host's side (lab_commit, which serve reports as
grader_commit) reads a checkout's git state and a zip's record.
"""
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

failures = []
GIT = ["git", "-c", "user.name=SpMV Lab test", "-c", "user.email=test@example.invalid", "-c", "init.defaultBranch=main",
       "-c", "commit.gpgsign=false"]


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def git(repository, *arguments):
    return subprocess.run([*GIT, "-C", str(repository), *arguments], capture_output=True, text=True, check=True).stdout


def source_files(source):
    """The repository's files: git's tracked ones, or (not a checkout) every file but builds and dot-folders."""
    listed = subprocess.run(["git", "-C", str(source), "ls-files", "-z"], capture_output=True, text=True)
    if listed.returncode == 0 and listed.stdout:
        return [name for name in listed.stdout.split("\0") if name and (source / name).is_file()]
    names = []
    for path in sorted(source.rglob("*")):
        top = path.relative_to(source).parts[0]
        if path.is_file() and not top.startswith(("build", ".")):
            names.append(str(path.relative_to(source)))
    return names


def copy_tree(source, target, names):
    for name in names:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / name, target / name)


def make_zip(lab, build, hidden, seed, output, *extra):
    return subprocess.run([sys.executable, str(lab / "tools/make-gradescope-autograder"), "--hidden", str(hidden),
                           "--secret-seed-file", str(seed), "--output", str(output),
                           "--grader", str(build / "bin/spmv-grade"), *extra], capture_output=True, text=True)


def recorded(zip_path):
    with zipfile.ZipFile(zip_path) as archive:
        if "spmv-lab/COMMIT" not in archive.namelist():
            return {}
        lines = archive.read("spmv-lab/COMMIT").decode().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def check_zip_maker(source, build, work):
    """The lab repository and the clean zip made from it, after checking the refusals."""
    lab = work / "lab"
    lab.mkdir()
    copy_tree(source, lab, source_files(source))
    git(lab, "init", "-q")
    git(lab, "add", "-A")
    git(lab, "commit", "-q", "-m", "the course's tree")
    head = git(lab, "rev-parse", "HEAD").strip()
    describe = git(lab, "describe", "--always", "--dirty").strip()
    hidden = work / "hidden"
    hidden.mkdir()
    shutil.copy(source / "testcases/edge/one_row.mtx", hidden / "secret_one_row.mtx")
    seed = work / "secret-seed"
    seed.write_text("zip-commit-test-seed\n")
    (lab / "notes-not-tracked.txt").write_text("a file git does not track\n")

    clean = work / "clean.zip"
    made = make_zip(lab, build, hidden, seed, clean)
    print(made.stdout, made.stderr)
    check(made.returncode == 0, f"the clean tree: exit {made.returncode}: {made.stderr[-800:]}")
    record = recorded(clean) if clean.is_file() else {}
    check(record.get("commit") == head and record.get("describe") == describe and "dirty" not in describe,
          f"the clean zip records {record}, not commit={head} describe={describe}")
    check(describe in made.stdout, f"make-gradescope-autograder does not say the commit {describe}: {made.stdout}")

    policy = lab / "grader/policy/default-policy.ini"
    policy.write_text(policy.read_text() + "\n; edited in place, not committed\n")
    refused_zip = work / "dirty.zip"
    refused = make_zip(lab, build, hidden, seed, refused_zip)
    check(refused.returncode == 2, f"an uncommitted edit: exit {refused.returncode}, not 2: {refused.stderr[-800:]}")
    check("grader/policy/default-policy.ini" in refused.stderr and "--allow-dirty" in refused.stderr,
          f"the refusal does not list the edited policy and the override: {refused.stderr[-800:]}")
    check("notes-not-tracked.txt" not in refused.stderr, "an untracked file is listed as a change")
    check(not refused_zip.exists(), "a zip was written from a dirty tree")
    check("Traceback" not in refused.stderr, "a traceback for a dirty tree")

    allowed = make_zip(lab, build, hidden, seed, refused_zip, "--allow-dirty")
    check(allowed.returncode == 0, f"--allow-dirty: exit {allowed.returncode}: {allowed.stderr[-800:]}")
    check("grader/policy/default-policy.ini" in allowed.stderr,
          f"--allow-dirty does not list the changes it packs: {allowed.stderr[-800:]}")
    record = recorded(refused_zip) if refused_zip.is_file() else {}
    check(record.get("commit") == head and record.get("describe", "").endswith("-dirty"),
          f"the --allow-dirty zip records {record}: not {head}, -dirty")
    if refused_zip.is_file():
        with zipfile.ZipFile(refused_zip) as archive:
            packed = archive.read("spmv-lab/grader/policy/default-policy.ini").decode()
        check("edited in place" in packed, "--allow-dirty did not pack the edited policy")
    git(lab, "checkout", "-q", "--", "grader/policy/default-policy.ini")

    tarball = work / "release-tarball"
    tarball.mkdir()
    copy_tree(lab, tarball, source_files(source))
    outer = work / "outer-repository"
    outer.mkdir()
    git(outer, "init", "-q")
    inside = outer / "spmv-lab"
    inside.mkdir()
    copy_tree(lab, inside, source_files(source))
    for tree in (tarball, inside):
        run = make_zip(tree, build, hidden, seed, work / "no-git.zip")
        check(run.returncode == 2 and "not a git checkout" in run.stderr and "Traceback" not in run.stderr,
              f"{tree.name}: exit {run.returncode}, not 2 with 'not a git checkout': {run.stderr[-800:]}")
        check(not (work / "no-git.zip").exists(), f"{tree.name}: a zip was written")
    return lab, clean, record_of(clean)


def record_of(zip_path):
    record = recorded(zip_path) if zip_path.is_file() else {}
    return {"describe": record.get("describe", ""), "commit": record.get("commit", "")}


def lab_commit(lab, python_lab=None):
    """autograder.lab_commit of `lab`, as the GPU host's serve reports it."""
    code = ("import json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); import autograder; "
            "print(json.dumps(autograder.lab_commit(Path(sys.argv[2]))))")
    tools = (python_lab or lab) / "tools/gradescope"
    run = subprocess.run([sys.executable, "-c", code, str(tools), str(lab)], capture_output=True, text=True)
    check(run.returncode == 0, f"lab_commit({lab}) failed: {run.stderr[-800:]}")
    return json.loads(run.stdout) if run.returncode == 0 else "failed"


def check_comparison(lab, build, clean, ours, work):
    root = work / "autograder"
    with zipfile.ZipFile(clean) as archive:
        archive.extractall(root / "source")
    gpu_host = root / "source/gpu-host"
    gpu_host.mkdir()
    (gpu_host / "host.ini").write_text("[gpu-host]\nhost = gpu.example.invalid\nuser = grader\n")
    (gpu_host / "key").write_text("not used by the stand-in\n")
    (gpu_host / "known_hosts").write_text("not used by the stand-in\n")
    (root / "submission").mkdir(parents=True)
    (root / "submission/coo.cu").write_text("// the submission\n")
    fake_bin = work / "fake-bin"
    fake_bin.mkdir()
    (fake_bin / "ssh").write_text("#!/bin/sh\n# The stand-in GPU host: takes the submission, answers a fixed grading.\n"
                                  "cat >/dev/null\ncat \"$FAKE_HOST_ANSWER\"\n")
    (fake_bin / "ssh").chmod(0o755)

    # The host's side: a checkout's git state; a zip's record; neither.
    for tree in (lab, root / "source/spmv-lab"):
        found = lab_commit(tree)
        check(found == ours, f"lab_commit of {tree} is {found}, not {ours}")
    check(lab_commit(work / "release-tarball", lab) is None,
          "lab_commit of a tree with no git and no record is not None")

    other = {"describe": "v0.9-3-gabcdef0", "commit": "abcdef0" + "1" * 33}
    answers = [("the zip's commit", {"grader_commit": ours}, None),
               ("another commit", {"grader_commit": other}, ["v0.9-3-gabcdef0", ours["describe"], "differ"]),
               ("uncommitted changes", {"grader_commit": {**ours, "describe": ours["describe"] + "-dirty"}},
                ["uncommitted changes"]),
               ("an unknown commit", {"grader_commit": {}}, ["not at a known commit"]),
               ("an older grader", {}, ["did not say which commit"])]
    for label, extra, words in answers:
        answer = work / "answer.json"
        answer.write_text(json.dumps({"score": 1.0, "output": "graded", "tests": [], "extra_data": extra}))
        (root / "results/results.json").unlink(missing_ok=True)
        # The build reads gpu-host/host.ini (spmv-grade --show-ini host), as a zip's build-release does.
        environment = dict(os.environ, SPMV_AUTOGRADER_ROOT=str(root), SPMV_AUTOGRADER_BUILD=str(build),
                           FAKE_HOST_ANSWER=str(answer),
                           PATH=f"{fake_bin}:{os.environ['PATH']}")
        run = subprocess.run([sys.executable, str(root / "source/spmv-lab/tools/gradescope/autograder.py"), "run"],
                             capture_output=True, text=True, env=environment, timeout=300)
        results_path = root / "results/results.json"
        results = json.loads(results_path.read_text()) if results_path.is_file() else {}
        data = results.get("extra_data", {})
        check(run.returncode == 0 and "graded on the GPU host" in run.stdout,
              f"{label}: not graded on the stand-in host: {run.stdout[-500:]} {run.stderr[-500:]}")
        check(data.get("autograder_commit") == ours, f"{label}: extra_data.autograder_commit is "
                                                     f"{data.get('autograder_commit')}, not {ours}")
        if words is None:
            check("WARNING" not in run.stdout and "commit_note" not in data,
                  f"{label}: a difference is reported: {run.stdout[-500:]} {data.get('commit_note')}")
        else:
            note = data.get("commit_note", "")
            check(all(word in note for word in words), f"{label}: extra_data.commit_note {note!r} lacks {words}")
            check("WARNING" in run.stdout and all(word in run.stdout for word in words),
                  f"{label}: the staff's output does not say it: {run.stdout[-800:]}")


def main():
    source, build, work = (Path(argument).resolve() for argument in sys.argv[1:4])
    if shutil.which("git") is None:
        print("skipped: git is not installed")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    lab, clean, ours = check_zip_maker(source, build, work)
    if clean.is_file():
        check_comparison(lab, build, clean, ours, work)
    else:
        check(False, "no clean zip: the comparison with a GPU host's commit is not tried")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
