#!/usr/bin/env python3
"""The Gradescope autograder zip, end to end, with a local sshd as the GPU host.

Usage: test_autograder.py SOURCE_DIR BUILD_DIR WORK_DIR

tools/make-gradescope-autograder zips a hidden folder (two cases of
testcases/edge, renamed) and a fresh secret seed; the zip is unpacked into
a stand-in for /autograder (SPMV_AUTOGRADER_ROOT) and setup.sh's steps run
there without installing (the grader built in BUILD_DIR is used). Then
run_autograder grades:
  (a) host-path plugins (they run without a GPU) through the GPU host: an
      sshd started here, whose key may run autograder.py serve and nothing
      else; the results agree with spmv-grade run directly on the same
      plugin, cases and seed, and a plugin that prints a forged score does
      not get it;
  (b) kernels that do not compile, through the GPU host: the compiler's
      message comes back, capped; a submission holding a link is refused
      before it is sent;
  (c) with a GPU host whose answers are malformed or too large: they are
      refused, and the submission is graded here instead;
  (d) the student stubs with the GPU host gone: built and checked here, no
      GPU, no score of 0 for the rows that need one, and the results say so.
Every results.json is validated against Gradescope's format
(results.schema.json). Exits 77 (skipped) where sshd or python3-jsonschema
is missing or this is not root (CI installs them and refuses the skip).
"""
import io
import json
import os
import random
import re
import shutil
import socket
import stat
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

SKIP = 77
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def skip_unless_ready():
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        # Debian's python3-jsonschema serves the system's Python, which may not be this one.
        system = "/usr/bin/python3"
        if sys.executable != system and Path(system).exists() and \
                subprocess.run([system, "-c", "import jsonschema"], capture_output=True).returncode == 0:
            os.execv(system, [system, *sys.argv])
        print("skipped: python3-jsonschema is not installed")
        sys.exit(SKIP)
    if not Path("/usr/sbin/sshd").exists() or shutil.which("ssh") is None:
        print("skipped: openssh-server and openssh-client are not installed")
        sys.exit(SKIP)
    if os.geteuid() != 0:
        print("skipped: the GPU host's grading runs as root (the grader's full isolation)")
        sys.exit(SKIP)


def validator(source):
    import jsonschema
    schema = json.loads((source / "tests/gradescope/results.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def make_key(path):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return path


def start_sshd(work, port, forced_commands):
    """An sshd on 127.0.0.1:port where root logs in by key only, each key (client key path ->
    command) running its forced command; known_hosts for it in work/known_hosts."""
    host_key = make_key(work / "ssh_host_ed25519_key")
    authorized = work / "authorized_keys"
    authorized.write_text("".join(f'command="{command}",restrict {Path(str(key) + ".pub").read_text().strip()}\n'
                                  for key, command in forced_commands.items()))
    os.chmod(authorized, 0o600)
    config = work / "sshd_config"
    config.write_text("\n".join([
        f"Port {port}", "ListenAddress 127.0.0.1", f"HostKey {host_key}", f"AuthorizedKeysFile {authorized}",
        "PermitRootLogin forced-commands-only", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
        "UsePAM no", "StrictModes no", f"PidFile {work}/sshd.pid", "LogLevel VERBOSE", ""]))
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation folder
    process = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(config)],
                               stdout=open(work / "sshd.log", "w"), stderr=subprocess.STDOUT)
    for _ in range(100):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    else:
        process.kill()
        print("skipped: sshd did not start:", (work / "sshd.log").read_text())
        sys.exit(SKIP)
    public_host = Path(str(host_key) + ".pub").read_text().split()
    (work / "known_hosts").write_text(f"[127.0.0.1]:{port} {public_host[0]} {public_host[1]}\n")
    return process


def unpack_zip(path, target):
    """As unzip does: the files with their modes."""
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            archive.extract(info, target)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(target / info.filename, mode)


def run_autograder(root, submission_files, environment, schema, label, says=""):
    """run_autograder on these files as the submission: its results.json, checked against
    Gradescope's format; its output for the staff must hold `says`."""
    submission = root / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    submission.mkdir(parents=True)
    for path in submission_files:
        shutil.copy(path, submission / path.name)
    (root / "results/results.json").unlink(missing_ok=True)
    run = subprocess.run([str(root / "source/run_autograder")], capture_output=True, text=True,
                         env=environment, timeout=1200)
    print(f"--- run_autograder, {label}:", run.stdout[-2000:], run.stderr[-2000:], sep="\n")
    check(run.returncode == 0, f"{label}: run_autograder exited {run.returncode}")
    check(says in run.stdout, f"{label}: run_autograder's output does not say {says!r}")
    if not (root / "results/results.json").is_file():
        check(False, f"{label}: run_autograder wrote no results.json")
        return {"tests": []}
    results = json.loads((root / "results/results.json").read_text())
    errors = [f"{'/'.join(map(str, error.path))}: {error.message}" for error in schema.iter_errors(results)]
    check(not errors, f"{label}: results.json is not Gradescope's format: {errors[:3]}")
    return results


def grade_directly(build, plugin, cases, seed_file, output, schema):
    """spmv-grade's own results for the plugin (exit 0: every row passed, 1: some failed)."""
    graded = subprocess.run([str(build / "bin/spmv-grade"), "--submission", str(plugin),
                             *[argument for folder in cases for argument in ("--cases", str(folder))],
                             "--secret-seed-file", str(seed_file), "--output-dir", str(output), "--quiet"],
                            capture_output=True, text=True)
    check(graded.returncode in (0, 1), f"the direct grading of {plugin.name} exited {graded.returncode}: "
                                  f"{graded.stderr[-2000:]}")
    results = json.loads((output / "results.json").read_text())
    check(not list(schema.iter_errors(results)), f"spmv-grade's own results.json of {plugin.name} is not "
                                                 "Gradescope's format")
    return results


def check_agrees(label, published, direct, correctness_share):
    """The published results are the direct grading's: the same rows, verdicts, points possible
    and statuses; a row's score is the direct one where time does not enter it, and otherwise
    between its correctness share and its points possible."""
    rows = [(t["name"], t["extra_data"]["verdict"], t.get("status"), t.get("max_score")) for t in published["tests"]]
    expected = [(t["name"], t["extra_data"]["verdict"], t.get("status"), t.get("max_score")) for t in direct["tests"]]
    check(rows == expected, f"{label}: the rows differ from a direct grading's")
    for test, reference in zip(published["tests"], direct["tests"]):
        if reference["extra_data"]["verdict"] != "pass":
            check(test.get("score") == reference.get("score"),
                  f"{label}: {test['name']} scored {test.get('score')}, directly {reference.get('score')}")
        else:
            low = correctness_share * reference["max_score"] - 0.01
            check(low <= test["score"] <= reference["max_score"],
                  f"{label}: {test['name']} scored {test['score']} of {reference['max_score']}")
    total = sum(test.get("score", 0) for test in published["tests"])
    check(abs(published.get("score", -1) - total) <= 0.01 * len(published["tests"]) + 0.01,
          f"{label}: score {published.get('score')} is not the sum of its rows ({total:.2f})")
    check(published["extra_data"].get("seed") == direct["extra_data"].get("seed"),
          f"{label}: not the same seed as the direct grading")


def check_refused(maker, arguments, named, label):
    """The tool refuses these arguments with exit status 2, its message holding every `named`."""
    refused = subprocess.run([maker, *arguments], capture_output=True, text=True)
    check(refused.returncode == 2 and all(part in refused.stderr for part in named),
          f"{label}: exit {refused.returncode}, not all of {named} in: {refused.stderr.strip()[-300:]}")


def main():
    skip_unless_ready()
    source, build, work = (Path(a).resolve() for a in sys.argv[1:4])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    schema = validator(source)
    rng = random.Random()
    policy_text = (source / "grader/policy/default-policy.ini").read_text()
    correctness_share = float(re.search(r"^correctness_share = ([0-9.]+)$", policy_text, re.M).group(1))

    # The course's private files: two edge cases under new names, a fresh seed.
    hidden = work / "private/hidden"
    hidden.mkdir(parents=True)
    for name in rng.sample(["one_row", "tall_thin", "short_wide", "arrow_dense_row", "single_nonempty_row"], 2):
        shutil.copy(source / f"testcases/edge/{name}.mtx", hidden / f"secret_{name}.mtx")
    seed_file = work / "private/secret-seed"
    seed = f"{rng.getrandbits(64):016x}"
    seed_file.write_text(seed + "\n")

    # The GPU host: an sshd on localhost. The autograder's key runs serve only; two more keys
    # play a host that answers malformed JSON and one that answers too much.
    client_key = make_key(work / "autograder_ed25519")
    malformed_key = make_key(work / "malformed_ed25519")
    flooding_key = make_key(work / "flooding_ed25519")
    malformed = work / "answer-malformed"
    malformed.write_text("#!/bin/sh\ncat >/dev/null\n"
                         """printf '%s\\n' '{"score": 1000, "tests": [{"name": "forged", "score": "all"}]}'\n""")
    flooding = work / "answer-flooding"
    flooding.write_text("#!/bin/sh\ncat >/dev/null\nhead -c 9000000 /dev/zero | tr '\\0' ' '\n")
    for script in (malformed, flooding):
        script.chmod(0o755)
    port = free_port()
    serve = (f"env SPMV_AUTOGRADER_PREBUILT=1 {sys.executable} {source}/tools/gradescope/autograder.py serve "
             f"--hidden {hidden} --secret-seed-file {seed_file} --cases {source}/testcases/edge "
             f"--grader {build}/bin/spmv-grade --lock {work}/gpu-host.lock")
    sshd = start_sshd(work, port, {client_key: serve, malformed_key: malformed, flooding_key: flooding})
    try:
        host_ini = work / "host.ini"
        host_ini.write_text(f"[gpu-host]\nhost = 127.0.0.1\nuser = root\nport = {port}\n"
                            f"key = {client_key.name}\nknown_hosts = known_hosts\ntimeout = 600\n")

        # Bad input is refused with the option or file named, exit status 2.
        maker = str(source / "tools/make-gradescope-autograder")
        # --allow-dirty: this test runs in working trees too (test_zip_commit.py tests the refusal).
        good = ["--hidden", str(hidden), "--secret-seed-file", str(seed_file), "--output", str(work / "bad.zip"),
                "--grader", str(build / "bin/spmv-grade"), "--allow-dirty"]
        empty_seed = work / "empty-seed"
        empty_seed.write_text("\n")
        broken_ini = work / "broken.ini"
        broken_ini.write_text("[gpu-host]\nhost = 127.0.0.1\nusr = root\n")
        check_refused(maker, ["--hidden", str(work / "missing"), *good[2:]], ["--hidden", "missing"],
                      "a missing hidden folder")
        check_refused(maker, [*good[:2], "--secret-seed-file", str(work / "none"), *good[4:]],
                      ["--secret-seed-file", "none: no such file"], "a missing seed file")
        check_refused(maker, [*good[:2], "--secret-seed-file", str(empty_seed), *good[4:]],
                      ["--secret-seed-file", "empty"], "an empty seed file")
        check_refused(maker, [*good, "--gpu-host", str(broken_ini)], ['broken.ini:3: key "usr": expected one of'],
                      "a bad host.ini")
        check_refused(maker, [*good, "--polcy", "x.ini"], ["--polcy"], "an unknown option")
        # What spmv-grade would refuse on grading day is refused now: a cases.ini typo, a
        # matrix cut short, a folder without cases, a policy typo.
        typo = work / "hidden-typo"
        shutil.copytree(hidden, typo)
        (typo / "cases.ini").write_text((typo / "cases.ini").read_text() + "\n[extra]\nweigth = 2\n"
                                        if (typo / "cases.ini").exists() else "[extra]\nweigth = 2\n")
        check_refused(maker, ["--hidden", str(typo), *good[2:]], ["weigth"], "a hidden cases.ini typo")
        short = work / "hidden-short"
        short.mkdir()
        (short / "cut.mtx").write_text("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.0\n")
        check_refused(maker, ["--hidden", str(short), *good[2:]], ["cut.mtx"], "a hidden matrix cut short")
        no_cases = work / "hidden-none"
        no_cases.mkdir()
        (no_cases / "README.md").write_text("cases come later\n")
        check_refused(maker, ["--hidden", str(no_cases), *good[2:]], ["--hidden", "hidden-none"], "no hidden case")
        policy_typo = work / "policy-typo.ini"
        policy_typo.write_text("total_points = 50\ncorectness_share = 0.5\n")
        check_refused(maker, [*good, "--policy", str(policy_typo)], ["corectness_share"], "a policy typo")
        check(not (work / "bad.zip").exists(), "a refused zip was written")

        made = subprocess.run([maker, "--hidden", str(hidden), "--secret-seed-file", str(seed_file),
                               "--gpu-host", str(host_ini), "--output", str(work / "autograder.zip"),
                               "--grader", str(build / "bin/spmv-grade"), "--allow-dirty"],
                              capture_output=True, text=True)
        print(made.stdout, made.stderr)
        check(made.returncode == 0, f"make-gradescope-autograder exited {made.returncode}")
        with zipfile.ZipFile(work / "autograder.zip") as archive:
            names = set(archive.namelist())
            check(archive.read("secret-seed").decode().strip() == seed, "the zip's secret-seed is not the seed")
        tracked = subprocess.run(["git", "-C", str(source), "ls-files"], capture_output=True, text=True).stdout.split()
        expected_names = {"setup.sh", "run_autograder", "README.md", "secret-seed", "gpu-host/host.ini",
                          "gpu-host/key", "gpu-host/known_hosts", "spmv-lab/COMMIT"}
        expected_names |= {f"hidden/{case.name}" for case in hidden.iterdir()}
        expected_names |= {f"spmv-lab/{name}" for name in tracked if (source / name).is_file()}
        check(names == expected_names, f"the zip's files are not the expected ones: "
                                       f"{sorted(names ^ expected_names)[:5]} differ")

        root = work / "autograder"
        unpack_zip(work / "autograder.zip", root / "source")
        environment = dict(os.environ, SPMV_AUTOGRADER_ROOT=str(root), SPMV_AUTOGRADER_BUILD=str(build),
                           SPMV_AUTOGRADER_PREBUILT="1")
        listed = subprocess.run([str(root / "source/setup.sh"), "--list-packages"], capture_output=True, text=True,
                                env=environment)
        quickstart = re.search(r"^packages=\((.*)\)$", (source / "tools/quickstart").read_text(), re.M).group(1)
        check(listed.returncode == 0 and set(quickstart.split()) | {"openssh-client"} <= set(listed.stdout.split()),
              f"setup.sh installs {listed.stdout.strip()!r}, not the quick start's packages and openssh-client")
        setup = subprocess.run([str(root / "source/setup.sh"), "--no-install"], capture_output=True, text=True,
                               env=environment, timeout=600)
        print(setup.stdout[-3000:], setup.stderr[-3000:])
        check(setup.returncode == 0, f"setup.sh exited {setup.returncode}")
        # The documented build is the one setup.sh runs.
        build_line = "cmake --preset release -DSPMV_BUILD_TESTS=OFF && cmake --build --preset release"
        check(build_line in (root / "source/setup.sh").read_text(), "setup.sh does not run the documented build")
        check(build_line in (root / "source/README.md").read_text(), "the zip's README does not give the build")
        for private, mode in (("hidden", 0o700), ("secret-seed", 0o600), ("gpu-host", 0o700), ("gpu-host/key", 0o600),
                              *((f"hidden/{case.name}", 0o600) for case in hidden.iterdir())):
            info = (root / "source" / private).stat()
            check(stat.S_IMODE(info.st_mode) == mode and info.st_uid == 0,
                  f"{private}: mode {oct(stat.S_IMODE(info.st_mode))}, owner {info.st_uid}; expected {oct(mode)}, root")

        # (a) Plugins that run without a GPU, graded on the GPU host, agree with a direct grading.
        published = {}
        for fake in ("libspmv_host_reference.so", "fakes/libspmv_fake_prints_forged_score.so"):
            plugin = build / "plugins" / fake
            label = f"(a) {plugin.name}"
            results = published[plugin.name] = run_autograder(root, [plugin], environment, schema, label,
                                                              "graded on the GPU host")
            direct = grade_directly(build, plugin, [source / "testcases/edge", hidden], seed_file,
                                    work / f"direct-{plugin.stem}", schema)
            check(results.get("extra_data", {}).get("graded_on") == "the course's GPU host",
                  f"{label}: not graded on the host")
            check(any("secret_" in t["name"] for t in results["tests"]), f"{label}: the hidden cases were not graded")
            check(seed not in json.dumps(results), f"{label}: the secret seed is in the results")
            # The host serves from this tree and the zip was made from it: each names its commit (they are
            # compared in test_zip_commit.py; here the tree may gain a commit while the test runs).
            extra = results.get("extra_data", {})
            check(all(isinstance(extra.get(key), dict) and extra[key].get("commit")
                      for key in ("grader_commit", "autograder_commit")),
                  f"{label}: the results do not name the host's and the zip's commits: {extra.get('grader_commit')}, "
                  f"{extra.get('autograder_commit')}")
            check_agrees(label, results, direct, correctness_share)
        check(all(t["status"] == "passed" for t in published["libspmv_host_reference.so"]["tests"]),
              "(a) the host reference failed a row")
        # This one prints a score of 100 and a results.json of its own when it runs: neither counts.
        forged = published["libspmv_fake_prints_forged_score.so"]
        check(forged.get("score", 100) < 50 and "correctness" not in {t["name"] for t in forged["tests"]}
              and "All tests passed" not in forged.get("output", ""), "(a) the forged score was published")

        # (b) Kernels that do not compile, built on the GPU host: the compiler's message comes back, capped.
        broken = work / "broken"
        broken.mkdir()
        marker = f"unknown_identifier_{rng.getrandbits(32):08x}"
        for kernel in ("coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"):
            (broken / f"{kernel}.cu").write_text(f'#include "spmv/contract/plugin.h"\nint x = {marker};\n'
                                                 f'#error {marker} {"and a long message" * 4000}\n')
        results = run_autograder(root, sorted(broken.iterdir()), environment, schema, "(b)")
        output = results.get("output", "")
        check(results.get("score") == 0 and marker in output,
              f"(b) no build failure with the compiler's message: {output[:300]}")
        check(len(output) < 24 * 1024, f"(b) the compiler's message is not capped: {len(output)} characters")

        # A link in the submission (to the seed) is refused before anything is built or sent.
        submission = root / "submission"
        (submission / "coo.cu").unlink()
        (submission / "coo.cu").symlink_to(root / "source/secret-seed")
        (root / "results/results.json").unlink()
        run = subprocess.run([str(root / "source/run_autograder")], capture_output=True, text=True, env=environment)
        results = json.loads((root / "results/results.json").read_text()) if run.returncode == 0 else {}
        check(not list(schema.iter_errors(results)) and results.get("score") == 0
              and "coo.cu is a symbolic link" in results.get("output", "")
              and seed not in json.dumps(results), f"a link in the submission: {run.stdout[-300:]} {results}")

        # The key runs serve whatever command is asked for, and serve takes plain files only.
        hostile = io.BytesIO()
        with tarfile.open(fileobj=hostile, mode="w") as archive:
            link = tarfile.TarInfo("coo.cu")
            link.type, link.linkname = tarfile.SYMTYPE, str(seed_file)
            archive.addfile(link)
        asked = subprocess.run(["ssh", "-F", "/dev/null", "-T", "-i", str(client_key), "-p", str(port),
                                "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
                                "-o", f"UserKnownHostsFile={work}/known_hosts", "root@127.0.0.1",
                                f"cat {seed_file}"], input=hostile.getvalue(), capture_output=True, timeout=120)
        check(asked.returncode == 1 and b"not a plain file" in asked.stderr,
              f"a link in the submission: exit {asked.returncode}, {asked.stderr[-300:]!r}")
        check(seed.encode() not in asked.stdout + asked.stderr, "the key ran another command than serve")

        # (c) A GPU host whose answer is malformed, or too large: refused; the submission (one
        # that does not build, the quickest) is graded here, and the results say so.
        key_file = root / "source/gpu-host/key"
        autograder_key = key_file.read_bytes()
        for key, why in ((malformed_key, "a test's score is not a number"), (flooding_key, "larger than 8 MiB")):
            key_file.write_bytes(key.read_bytes())
            label = f"(c) {key.stem}"
            results = run_autograder(root, sorted(broken.iterdir()), environment, schema, label, why)
            output = results.get("output", "")
            check(output.startswith("NO GPU GRADED THIS SUBMISSION") and "answer was refused" in output.split("\n")[0],
                  f"{label}: the results do not say the host's answer was refused: {output[:200]!r}")
            check(results.get("score") == 0 and marker in output and "did not build" in output
                  and "forged" not in json.dumps(results["tests"]),
                  f"{label}: not the local grading of a build failure")
            check(results.get("extra_data", {}).get("gpu_graded") is False, f"{label}: gpu_graded is not false")
        key_file.write_bytes(autograder_key)

        # (d) The GPU host gone: the student stubs built and checked here, without a GPU.
        sshd.terminate()
        sshd.wait(timeout=10)
        no_host = dict(environment)
        no_host.pop("SPMV_AUTOGRADER_PREBUILT")
        stubs = sorted((source / "student").glob("*.cu"))
        results = run_autograder(root, stubs, no_host, schema, "(d)", "graded here")
        output = results.get("output", "")
        check(output.startswith("NO GPU GRADED THIS SUBMISSION"), "(d) does not say no GPU graded it")
        check("could not be reached" in output.split("\n")[0], "(d) does not say the GPU host was unreachable")
        check("not your grade" in output, "(d) does not say the score is not the grade")
        check(results.get("extra_data", {}).get("gpu_graded") is False, "(d) extra_data.gpu_graded is not false")
        needing = [t for t in results["tests"] if t.get("extra_data", {}).get("cause") == "no_gpu"]
        check(len(needing) > 0, "(d) no row needing a GPU was listed")
        check(all("score" not in t and "max_score" not in t and "status" not in t for t in needing),
              "(d) a row that needs a GPU got points or a status")
        check(results.get("score") == sum(t.get("score", 0) for t in results["tests"]),
              "(d) the score is not that of the rows graded")
        check("leaderboard" not in results, "(d) a leaderboard without a GPU")
    finally:
        if sshd.poll() is None:
            sshd.terminate()
            sshd.wait(timeout=10)

    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
