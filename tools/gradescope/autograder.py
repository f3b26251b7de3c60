#!/usr/bin/env python3
"""The Gradescope autograder's two halves (tools/make-gradescope-autograder).

    autograder.py run
        Gradescope's run_autograder: grades /autograder/submission and writes
        /autograder/results/results.json. With a GPU host configured in the
        zip (gpu-host/host.ini), the submission goes there over SSH and its
        results.json comes back; without one, or when it cannot be reached,
        the submission is built and checked here, without a GPU, and the
        results say so: rows that need a GPU are listed without points.

    autograder.py serve --hidden DIR --secret-seed-file FILE [--cases DIR ...]
                        [--policy FILE] [--grader PATH] [--lock FILE]
        The GPU host's side, run by sshd as the forced command of the
        autograder's key: reads a tar of the submission's files on stdin,
        builds and grades it (tools/grade-class, the public cases and DIR)
        and writes its results.json on stdout, its extra_data naming the
        commit this grader is at (grader_commit). One grading at a time (the
        lock), so timings never share the GPU. Exit 0 with the results;
        otherwise a line on stderr says why (no GPU here, the grader failed).

run compares the GPU host's commit with the zip's (spmv-lab/COMMIT,
written by tools/make-gradescope-autograder) and says, in its output (a
WARNING: line) and in extra_data.commit_note, when they differ, when either
has uncommitted changes, or when the host does not say.

The root of the autograder is $SPMV_AUTOGRADER_ROOT (default /autograder);
the grader's build is $SPMV_AUTOGRADER_BUILD (default
<root>/source/spmv-lab/build-release).

For the project's own tests only: with SPMV_AUTOGRADER_PREBUILT=1 a
submission folder holding one *.so and no .cu file is graded as that plugin
(tools/grade-class --prebuilt), so host-path plugins, which run without a
GPU, can go through the whole path. Never set it for a course.
"""
import argparse
import csv
import fcntl
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

LAB = Path(__file__).resolve().parent.parent.parent
SUBMISSION_BYTES = 4 * 1024 * 1024    # as build-submission's copy
SUBMISSION_FILES = 256
RESULTS_BYTES = 8 * 1024 * 1024       # the most a GPU host may answer
OUTPUT_CAP = 16 * 1024


class Refused(RuntimeError):
    """A request or an answer that cannot be used; the message says why."""


def prebuilt_allowed():
    return os.environ.get("SPMV_AUTOGRADER_PREBUILT") == "1"


# -- Which commit -----------------------------------------------------------------------------------

def lab_commit(lab=LAB):
    """{'describe': ..., 'commit': ...} of the SpMV Lab tree `lab`: its git state when it is a checkout of its
    own (the GPU host's), else the record of the zip it came from (spmv-lab/COMMIT); None when neither."""
    def git(*arguments):
        try:
            # The host's checkout may belong to another user than the root that serves.
            run = subprocess.run(["git", "-c", f"safe.directory={lab}", "-C", str(lab), *arguments],
                                 capture_output=True, text=True)
        except OSError:
            return None
        return run.stdout.strip() if run.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    if top and Path(top).resolve() == lab.resolve():
        commit = git("rev-parse", "--verify", "HEAD")
        if commit:
            return {"describe": git("describe", "--always", "--dirty") or commit[:12], "commit": commit}
    try:
        lines = (lab / "COMMIT").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    record = dict(line.split("=", 1) for line in lines if "=" in line)
    if not record.get("commit"):
        return None
    return {"describe": record.get("describe") or record["commit"][:12], "commit": record["commit"]}


def commit_note(ours, host):
    """Why the GPU host's grading may not be the zip's (their commits, each a lab_commit() or None), or None
    when both are the same commit without uncommitted changes."""
    def named(commit):
        return f"{commit['describe']} ({commit['commit']})"

    def valid(commit):
        return isinstance(commit, dict) and all(isinstance(commit.get(key), str) and commit[key]
                                                for key in ("describe", "commit"))
    if not valid(ours):
        return ("this autograder's spmv-lab names no commit (no spmv-lab/COMMIT: a zip made before "
                "make-gradescope-autograder recorded it?), so the GPU host's grader cannot be compared with it")
    if host is None:
        return (f"the GPU host did not say which commit its grader is at (a grader older than this zip's, "
                f"{named(ours)}?): set the host up at the zip's commit")
    if not valid(host):
        return (f"the GPU host's grader is not at a known commit (not a git checkout?), this zip is at "
                f"{named(ours)}: set the host up at the zip's commit")
    if host["commit"] != ours["commit"]:
        return (f"the GPU host grades with spmv-lab {named(host)}, this zip holds {named(ours)}: they differ, so "
                "the host's grading (grader, policy, cases) may not be this zip's; set the host up at the zip's commit")
    dirty = [who for who, commit in (("this zip", ours), ("the GPU host's grader", host))
             if commit["describe"].endswith("-dirty")]
    if dirty:
        return (f"the GPU host and this zip are both at {ours['commit']}, but {' and '.join(dirty)} "
                f"{'has' if len(dirty) == 1 else 'have'} uncommitted changes: their gradings may differ")
    return None


# -- The submission's files ------------------------------------------------------------------------

def submission_folder(root):
    """The folder of the kernel files: the submission's top, or the one folder below it that
    holds them (an upload of a zipped folder)."""
    if any(root.glob("*.cu")) or (prebuilt_allowed() and any(root.glob("*.so"))):
        return root
    holding = sorted({path.parent for path in root.rglob("*.cu")})
    if len(holding) == 1:
        return holding[0]
    return root  # build-submission names what is missing


def irregular_kind(path):
    """What `path` itself is (a link not followed) when it is neither a regular file nor a folder."""
    if path.is_symlink():
        return "a symbolic link"
    if path.is_fifo():
        return "a FIFO"
    if path.is_socket():
        return "a socket"
    return "a device"


def pack(folder):
    """A tar of the folder's regular files (no links, no special files), within the caps."""
    buffer = io.BytesIO()
    total, count = 0, 0
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_symlink() or not (path.is_file() or path.is_dir()):
                # Named, never followed: what a link points at is not the student's to see.
                raise Refused(f"{path.relative_to(folder)} is {irregular_kind(path)}: only folders and regular "
                              "files are accepted (replace it by the file itself)")
            if path.is_dir():
                continue
            count += 1
            total += path.stat().st_size
            if count > SUBMISSION_FILES or total > SUBMISSION_BYTES:
                raise Refused(f"the submission is larger than {SUBMISSION_FILES} files or "
                              f"{SUBMISSION_BYTES // (1024 * 1024)} MiB")
            archive.add(path, arcname=str(path.relative_to(folder)), recursive=False)
    return buffer.getvalue()


def unpack(data, target):
    """Extracts a tar made by pack(): regular files and folders only, inside `target`."""
    if len(data) > SUBMISSION_BYTES + 512 * (SUBMISSION_FILES + 16):
        raise Refused("the submission sent is too large")
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
            members = archive.getmembers()
            if len(members) > SUBMISSION_FILES:
                raise Refused("the submission sent has too many files")
            for member in members:
                name = Path(member.name)
                if name.is_absolute() or ".." in name.parts or not (member.isfile() or member.isdir()):
                    raise Refused(f"the submission sent holds {member.name!r}, which is not a plain file")
            archive.extractall(target, members=members, filter="data")
    except tarfile.TarError as error:
        raise Refused(f"the submission sent is not a tar archive: {error}") from None


# -- results.json ----------------------------------------------------------------------------------

RESULT_KEYS = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
               "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format", "tags",
             "visibility", "extra_data"}


def check_results(data):
    """The results.json in `data` (bytes) as a dict, if it has Gradescope's shape (the documented
    keys only, each of its type); raises Refused."""
    if len(data) > RESULTS_BYTES:
        raise Refused(f"the results are larger than {RESULTS_BYTES // (1024 * 1024)} MiB")
    try:
        results = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise Refused(f"the results are not JSON: {error}") from None
    if not isinstance(results, dict):
        raise Refused("the results are not a JSON object")
    unknown = set(results) - RESULT_KEYS
    if unknown:
        raise Refused(f"the results hold keys Gradescope does not know: {', '.join(sorted(unknown))}")
    tests = results.get("tests", [])
    if not isinstance(tests, list) or not all(isinstance(test, dict) for test in tests):
        raise Refused("the results' tests are not a list of objects")
    number = (int, float)
    if "score" in results and not isinstance(results["score"], number):
        raise Refused("the results' score is not a number")
    if "score" not in results and not all(isinstance(test.get("score"), number) for test in tests):
        raise Refused("the results have no score, neither overall nor on every test")
    for key, kind in (("output", str), ("extra_data", dict), ("leaderboard", list)):
        if key in results and not isinstance(results[key], kind):
            raise Refused(f"the results' {key} is not a {kind.__name__}")
    for test in tests:
        unknown = set(test) - TEST_KEYS
        if unknown:
            raise Refused(f"a test holds keys Gradescope does not know: {', '.join(sorted(unknown))}")
        for key in ("score", "max_score"):
            if key in test and not isinstance(test[key], number):
                raise Refused(f"a test's {key} is not a number")
        for key, kind in (("name", str), ("output", str), ("extra_data", dict), ("tags", list)):
            if key in test and not isinstance(test[key], kind):
                raise Refused(f"a test's {key} is not a {kind.__name__}")
        if test.get("status", "passed") not in ("passed", "failed"):
            raise Refused("a test's status is neither passed nor failed")
    return results


def write_results(results_dir, results):
    results_dir.mkdir(parents=True, exist_ok=True)
    temporary = results_dir / "results.json.tmp"
    temporary.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    temporary.replace(results_dir / "results.json")


def without_gpu(results, reason):
    """`results` of a grading here, without a GPU, for publishing: every row that needed a GPU
    loses its points and its status (it was not graded: no score of 0 for it), the others keep
    theirs, and the text begins by saying that no GPU graded the submission."""
    published = dict(results)
    tests = []
    skipped = 0
    for test in results.get("tests", []):
        if test.get("extra_data", {}).get("cause") != "no_gpu":
            tests.append(test)
            continue
        skipped += 1
        kept = {key: value for key, value in test.items() if key not in ("score", "max_score", "status")}
        kept["output"] = "Not graded yet: this row needs a GPU, and no GPU graded this submission."
        tests.append(kept)
    published["tests"] = tests
    if skipped:
        # Gradescope needs an overall score; it counts the rows that were graded (none of those
        # that need a GPU), and the text says plainly that it is not the grade.
        published["score"] = sum(test.get("score", 0) for test in tests)
        published.pop("leaderboard", None)  # no figures without a GPU
        what = (f"It was built and its host-side checks ran; the {skipped} rows that need a GPU are "
                "listed without points, and the score shown is not your grade: your marks come "
                "when the course's GPU host grades it.")
    elif results.get("extra_data", {}).get("status") == "build_failed":
        what = "It was built here and did not build (the compiler's message is below); a GPU would not change that."
    else:
        what = "Every row it holds was graded here: none needed a GPU."
    extra = dict(results.get("extra_data", {}))
    extra.update(gpu_graded=False, rows_not_graded=skipped)
    published["extra_data"] = extra
    published["output"] = (f"NO GPU GRADED THIS SUBMISSION ({reason}).\n{what}\n\n"
                           + results.get("output", ""))
    return published


# -- Grading (tools/grade-class on a class of one) -------------------------------------------------

def grade_here(submission, cases, secret_seed_file, policy, grader, work, host_only=False):
    """Builds and grades one submission in `work`; (results dict, status).
    `host_only`: without a GPU, on purpose (grade-class --host-only: rows
    that need a GPU are not graded, and that is no failure)."""
    students = work / "class"
    shutil.rmtree(students, ignore_errors=True)
    students.mkdir(parents=True)
    shutil.copytree(submission, students / "submission", symlinks=True)
    output = work / "graded"
    # The cases were validated when the autograder was set up (setup.sh, the GPU host's set-up):
    # grade-class still reads them through spmv-grade --list, but does not validate them per submission.
    command = [sys.executable, str(LAB / "tools/grade-class"), str(students), "--output", str(output),
               "--grader", str(grader), "--cases-validated"]
    for folder in cases:
        command += ["--cases", str(folder)]
    if secret_seed_file:
        command += ["--secret-seed-file", str(secret_seed_file)]
    if policy:
        command += ["--policy", str(policy)]
    if prebuilt_allowed():
        command.append("--prebuilt")
    if host_only:
        command.append("--host-only")
    graded = subprocess.run(command, capture_output=True, text=True)
    report = output / "submission"
    status = "grader_error"
    if (output / "class.csv").is_file():
        with open(output / "class.csv", newline="", encoding="utf-8") as handle:
            for line in csv.DictReader(handle):
                status = line["status"]
    if status == "no_gpu" and not host_only:
        raise Refused("this grading host has no usable GPU")
    if graded.returncode != 0 or status == "grader_error" or not (report / "results.json").is_file():
        log = report / "grade-class.log"
        detail = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
        raise Refused(f"the grading could not finish (grade-class exit {graded.returncode}): "
                      + (detail or graded.stderr)[-OUTPUT_CAP:])
    return json.loads((report / "results.json").read_text(encoding="utf-8")), status


def needs_gpu(results):
    return any(test.get("extra_data", {}).get("cause") == "no_gpu" for test in results.get("tests", []))


# -- serve: the GPU host ---------------------------------------------------------------------------

def serve(args):
    data = sys.stdin.buffer.read(SUBMISSION_BYTES + 512 * (SUBMISSION_FILES + 16) + 1)
    grader = args.grader or LAB / "build-release/bin/spmv-grade"
    with tempfile.TemporaryDirectory(prefix="spmv-gpu-host-") as temporary:
        work = Path(temporary)
        submission = work / "submission"
        submission.mkdir()
        unpack(data, submission)
        args.lock.parent.mkdir(parents=True, exist_ok=True)
        with open(args.lock, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one grading at a time: timings never share the GPU
            results, _ = grade_here(submission_folder(submission), [*args.cases, args.hidden],
                                    args.secret_seed_file, args.policy, grader, work)
        if needs_gpu(results):
            raise Refused("this grading host has no usable GPU")
        # {} when this grader's commit is unknown (not a git checkout, no COMMIT): said apart from an older
        # grader's answer, which has no grader_commit at all.
        results.setdefault("extra_data", {})["grader_commit"] = lab_commit() or {}
        sys.stdout.write(json.dumps(results) + "\n")
    return 0


# -- run: Gradescope's side ------------------------------------------------------------------------

def show_ini(grader, kind, path):
    """An INI file of the project as the grader reads it (spmv-grade --show-ini KIND PATH, JSON: its
    sections, their keys with values and lines, and for a host.ini "values", defaults filled in), so
    the file means here what it means to the grader. Raises Refused with the grader's message
    (file:line: key "k": expected ..., found ...) when it is not a valid one."""
    try:
        done = subprocess.run([str(grader), "--show-ini", kind, str(path)], capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise Refused(f"{path}: {grader} could not read it ({error})") from None
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit status {done.returncode}"
        raise Refused(said.removeprefix("spmv-grade: ").removesuffix(" (see spmv-grade --help)"))
    return json.loads(done.stdout)


def read_host_config(folder, grader):
    """gpu-host/host.ini's [gpu-host] keys (defaults filled in) as a dict, or None when the zip has
    none; raises Refused naming the file, line and key of a malformed one."""
    path = folder / "host.ini"
    if not path.is_file():
        return None
    return dict(show_ini(grader, "host", path)["values"]["gpu-host"])


def bounded_run(command, data, timeout, cap):
    """Runs `command` with `data` on stdin: (exit status, at most cap + 1 bytes of its stdout, the
    end of its stderr). It is killed when its stdout passes the cap or the time runs out."""
    with tempfile.TemporaryFile() as request:
        request.write(data)
        request.seek(0)
        process = subprocess.Popen(command, stdin=request, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    error_tail = bytearray()

    def keep_error_tail():
        for chunk in iter(lambda: process.stderr.read(4096), b""):
            error_tail.extend(chunk)
            del error_tail[:-OUTPUT_CAP]

    reader = threading.Thread(target=keep_error_tail, daemon=True)
    reader.start()
    timed_out = threading.Event()
    timer = threading.Timer(timeout, lambda: (timed_out.set(), process.kill()))
    timer.start()
    answer = bytearray()
    try:
        for chunk in iter(lambda: process.stdout.read(65536), b""):
            answer.extend(chunk)
            if len(answer) > cap:
                process.kill()
                break
        status = process.wait()
    finally:
        timer.cancel()
        process.stdout.close()
    reader.join(timeout=5)
    if timed_out.is_set():
        raise Refused(f"the GPU host did not answer within {timeout:.0f} s")
    return status, bytes(answer), bytes(error_tail).decode("utf-8", "replace").strip()


def ask_gpu_host(config, folder, data):
    """The GPU host's results for the packed submission `data`; raises Refused."""
    key, known_hosts = folder / "key", folder / "known_hosts"
    command = ["ssh", "-F", "/dev/null", "-T", "-i", str(key), "-p", config.get("port", "22"),
               "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=yes",
               "-o", f"UserKnownHostsFile={known_hosts}", "-o", "ConnectTimeout=20",
               "-o", "ServerAliveInterval=30", f"{config['user']}@{config['host']}", "grade"]
    status, answer, errors = bounded_run(command, data, float(config.get("timeout", "1800")), RESULTS_BYTES)
    if status == 255:
        raise Refused("the GPU host could not be reached: " + errors[-500:])
    if status != 0 and len(answer) <= RESULTS_BYTES:
        raise Refused("the GPU host could not grade it: " + errors[-2000:])
    try:
        return check_results(answer)
    except Refused as error:
        raise Refused(f"the GPU host's answer was refused: {error}") from None


def run(_args):
    started = time.monotonic()
    root = Path(os.environ.get("SPMV_AUTOGRADER_ROOT", "/autograder"))
    source = root / "source"
    build = Path(os.environ.get("SPMV_AUTOGRADER_BUILD", source / "spmv-lab/build-release"))
    results_dir = root / "results"
    policy = source / "policy.ini" if (source / "policy.ini").is_file() else None
    submission = submission_folder(root / "submission")
    try:
        packed = pack(submission)  # the same limits as the build's copy, checked once for both ways
    except Refused as error:
        write_results(results_dir, {"score": 0, "output": f"The submission was not graded: {error}.",
                                    "output_format": "text", "stdout_visibility": "hidden", "tests": [],
                                    "extra_data": {"status": "refused"}})
        print("refused:", error)
        return 0
    why_local = "the autograder has no GPU host configured"
    try:
        config = read_host_config(source / "gpu-host", build / "bin/spmv-grade")
    except Refused as error:
        print("the GPU host's configuration is broken:", error)
        config, why_local = None, "the autograder's GPU host configuration is broken"
    if config is not None:
        try:
            results = ask_gpu_host(config, source / "gpu-host", packed)
            extra = results.setdefault("extra_data", {})
            extra.update(graded_on="the course's GPU host", gpu_graded=True)
            ours = lab_commit()
            note = commit_note(ours, extra.get("grader_commit"))
            extra["autograder_commit"] = ours
            if note:
                extra["commit_note"] = note
            results["execution_time"] = round(time.monotonic() - started)
            write_results(results_dir, results)
            print("graded on the GPU host", config["host"])
            if note:
                print("WARNING:", note)
            return 0
        except Refused as error:
            # The whole reason for the staff (stdout, which students do not see); its first
            # clause for the student.
            print("the GPU host did not grade it:", error)
            why_local = str(error).split(":")[0]
    with tempfile.TemporaryDirectory(prefix="spmv-autograder-") as temporary:
        results, status = grade_here(submission, [source / "spmv-lab/testcases/public", source / "hidden"],
                                     source / "secret-seed", policy, build / "bin/spmv-grade", Path(temporary),
                                     host_only=True)
    results = without_gpu(results, why_local)
    results["execution_time"] = round(time.monotonic() - started)
    results["stdout_visibility"] = "hidden"  # this script's diagnostics, for the staff
    write_results(results_dir, results)
    print(f"graded here ({status}); {why_local}")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("run", help="Gradescope's run_autograder")
    served = commands.add_parser("serve", help="the GPU host's forced command")
    served.add_argument("--hidden", type=Path, required=True, help="the hidden cases, on this host")
    served.add_argument("--secret-seed-file", type=Path, required=True, help="the secret seed, on this host")
    served.add_argument("--cases", type=Path, action="append",
                        help="the public cases (repeatable; default: testcases/public)")
    served.add_argument("--policy", type=Path, help="the scoring policy (default: the built-in one)")
    served.add_argument("--grader", type=Path, help="the spmv-grade to use (default: build-release's)")
    served.add_argument("--lock", type=Path, default=Path("/tmp/spmv-gpu-host.lock"),
                        help="the lock that keeps gradings one at a time")
    args = parser.parse_args(argv)
    if args.command == "serve" and not args.cases:
        args.cases = [LAB / "testcases/public"]
    try:
        return serve(args) if args.command == "serve" else run(args)
    except Refused as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
