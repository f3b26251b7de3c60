#!/usr/bin/env python3
"""The Gradescope autograder zip, end to end, with a local sshd as the GPU host.

Usage: test_autograder.py SOURCE_DIR BUILD_DIR WORK_DIR

tools/make-gradescope-autograder zips a hidden folder (two cases of
testcases/edge, renamed) and a fresh secret seed; the zip is unpacked into
a stand-in for /autograder (SPMV_AUTOGRADER_ROOT) and setup.sh's steps run
there without installing (the grader built in BUILD_DIR is used). Then
run_autograder grades:
  (a) a host-path plugin (runs without a GPU) through the GPU host: an sshd
      started here, whose key may run autograder.py serve and nothing else;
      the results agree with spmv-grade run directly on the same plugin,
      cases and seed;
  (b) kernels that do not compile, through the GPU host: the compiler's
      message comes back;
  (c) the student stubs with the GPU host gone: built and checked here, no
      GPU, no score of 0 for the rows that need one, and the results say so.
Every results.json is validated against Gradescope's format
(results.schema.json). Exits 77 (skipped) where sshd or python3-jsonschema
is missing or this is not root (CI installs them and refuses the skip).
"""
import json
import os
import random
import shutil
import socket
import stat
import subprocess
import sys
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


def start_sshd(work, port, forced_command, client_key):
    host_key = work / "ssh_host_ed25519_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(host_key)], check=True)
    authorized = work / "authorized_keys"
    public = Path(str(client_key) + ".pub").read_text().strip()
    authorized.write_text(f'command="{forced_command}",restrict {public}\n')
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


def results_of(root):
    return json.loads((root / "results/results.json").read_text())


def run_autograder(root, submission_files, environment):
    submission = root / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    submission.mkdir(parents=True)
    for path in submission_files:
        shutil.copy(path, submission / path.name)
    (root / "results/results.json").unlink(missing_ok=True)
    run = subprocess.run([str(root / "source/run_autograder")], capture_output=True, text=True,
                         env=environment, timeout=1200)
    print(run.stdout, run.stderr, sep="\n")
    check(run.returncode == 0, f"run_autograder exited {run.returncode}")
    check((root / "results/results.json").is_file(), "run_autograder wrote no results.json")
    return results_of(root)


def main():
    skip_unless_ready()
    source, build, work = (Path(a).resolve() for a in sys.argv[1:4])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    schema = validator(source)
    rng = random.Random()

    # The course's private files: two edge cases under new names, a fresh seed.
    hidden = work / "private/hidden"
    hidden.mkdir(parents=True)
    for name in rng.sample(["one_row", "tall_thin", "short_wide", "arrow_dense_row", "single_nonempty_row"], 2):
        shutil.copy(source / f"testcases/edge/{name}.mtx", hidden / f"secret_{name}.mtx")
    seed_file = work / "private/secret-seed"
    seed = f"{rng.getrandbits(64):016x}"
    seed_file.write_text(seed + "\n")

    # The GPU host: an sshd on localhost whose autograder key runs serve only.
    client_key = work / "autograder_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(client_key)], check=True)
    port = free_port()
    serve = (f"env SPMV_AUTOGRADER_PREBUILT=1 {sys.executable} {source}/tools/gradescope/autograder.py serve "
             f"--hidden {hidden} --secret-seed-file {seed_file} --cases {source}/testcases/edge "
             f"--grader {build}/bin/spmv-grade --lock {work}/gpu-host.lock")
    sshd = start_sshd(work, port, serve, client_key)
    try:
        host_ini = work / "host.ini"
        host_ini.write_text(f"[gpu-host]\nhost = 127.0.0.1\nuser = root\nport = {port}\n"
                            f"key = {client_key.name}\nknown_hosts = known_hosts\ntimeout = 600\n")

        # Bad input is refused with the option named, exit status 2.
        maker = str(source / "tools/make-gradescope-autograder")
        for bad, named in ((["--hidden", str(work / "missing")], "--hidden"),
                           (["--hidden", str(hidden), "--secret-seed-file", str(work / "none")], "--secret-seed-file")):
            args = bad + (["--secret-seed-file", str(seed_file)] if "--secret-seed-file" not in bad else [])
            refused = subprocess.run([maker, *args, "--output", str(work / "bad.zip")], capture_output=True, text=True)
            check(refused.returncode == 2 and named in refused.stderr, f"{named}: {refused.returncode} {refused.stderr}")
        broken_ini = work / "broken.ini"
        broken_ini.write_text("[gpu-host]\nhost = 127.0.0.1\nusr = root\n")
        refused = subprocess.run([maker, "--hidden", str(hidden), "--secret-seed-file", str(seed_file),
                                  "--gpu-host", str(broken_ini), "--output", str(work / "bad.zip")],
                                 capture_output=True, text=True)
        check(refused.returncode == 2 and "broken.ini:3" in refused.stderr and "usr" in refused.stderr,
              f"a bad host.ini: {refused.stderr}")

        made = subprocess.run([maker, "--hidden", str(hidden), "--secret-seed-file", str(seed_file),
                               "--gpu-host", str(host_ini), "--output", str(work / "autograder.zip")],
                              capture_output=True, text=True)
        print(made.stdout, made.stderr)
        check(made.returncode == 0, f"make-gradescope-autograder exited {made.returncode}")
        with zipfile.ZipFile(work / "autograder.zip") as archive:
            names = set(archive.namelist())
        for needed in ("setup.sh", "run_autograder", "README.md", "secret-seed", "gpu-host/host.ini", "gpu-host/key",
                       "spmv-lab/tools/gradescope/autograder.py", "spmv-lab/CMakeLists.txt"):
            check(needed in names, f"the zip has no {needed}")
        check(not any(name.startswith("spmv-lab/build") for name in names), "the zip holds a build folder")

        root = work / "autograder"
        unpack_zip(work / "autograder.zip", root / "source")
        environment = dict(os.environ, SPMV_AUTOGRADER_ROOT=str(root), SPMV_AUTOGRADER_BUILD=str(build),
                           SPMV_AUTOGRADER_PREBUILT="1")
        setup = subprocess.run([str(root / "source/setup.sh"), "--no-install"], capture_output=True, text=True,
                               env=environment, timeout=600)
        print(setup.stdout[-3000:], setup.stderr[-3000:])
        check(setup.returncode == 0, f"setup.sh exited {setup.returncode}")
        # The documented build is the one setup.sh runs.
        build_line = "cmake --preset release -DSPMV_BUILD_TESTS=OFF && cmake --build --preset release"
        check(build_line in (root / "source/setup.sh").read_text(), "setup.sh does not run the documented build")
        check(build_line in (root / "source/README.md").read_text(), "the zip's README does not give the build")
        for private, mode in (("hidden", 0o700), ("secret-seed", 0o600), ("gpu-host", 0o700), ("gpu-host/key", 0o600)):
            info = (root / "source" / private).stat()
            check(stat.S_IMODE(info.st_mode) == mode and info.st_uid == 0,
                  f"{private}: mode {oct(stat.S_IMODE(info.st_mode))}, owner {info.st_uid}")
        for case in hidden.iterdir():
            check(stat.S_IMODE((root / "source/hidden" / case.name).stat().st_mode) == 0o600, f"hidden/{case.name}")

        # (a) A plugin that runs without a GPU, graded on the GPU host.
        plugin = build / "plugins/libspmv_host_reference.so"
        results = run_autograder(root, [plugin], environment)
        errors = [error.message for error in schema.iter_errors(results)]
        check(not errors, f"(a) results.json is not Gradescope's format: {errors[:3]}")
        check(results.get("extra_data", {}).get("graded_on") == "the course's GPU host", "(a) not graded on the host")
        direct = work / "direct"
        graded = subprocess.run([str(build / "bin/spmv-grade"), "--submission", str(plugin), "--cases",
                                 str(source / "testcases/edge"), "--cases", str(hidden), "--secret-seed-file",
                                 str(seed_file), "--output-dir", str(direct), "--quiet"], capture_output=True, text=True)
        check(graded.returncode == 0, f"the direct grading exited {graded.returncode}: {graded.stderr[-2000:]}")
        expected = json.loads((direct / "results.json").read_text())
        check([t["name"] for t in results["tests"]] == [t["name"] for t in expected["tests"]],
              "(a) the tests differ from a direct grading's")
        check([(t["status"], t["max_score"]) for t in results["tests"]] ==
              [(t["status"], t["max_score"]) for t in expected["tests"]], "(a) statuses or points differ")
        check(all(t["status"] == "passed" for t in results["tests"]), "(a) the host reference failed a row")
        check(any("secret_" in t["name"] for t in results["tests"]), "(a) the hidden cases were not graded")
        check(results["extra_data"].get("seed") == expected["extra_data"].get("seed"),
              "(a) not the same seed as the direct grading")
        check(seed not in json.dumps(results), "(a) the secret seed is in the results")

        # (b) Kernels that do not compile, built on the GPU host: the compiler's message comes back.
        broken = work / "broken"
        broken.mkdir()
        marker = f"unknown_identifier_{rng.getrandbits(32):08x}"
        for kernel in ("coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"):
            (broken / f"{kernel}.cu").write_text(f'#include "spmv/contract/plugin.h"\nint x = {marker};\n')
        results = run_autograder(root, sorted(broken.iterdir()), environment)
        errors = [error.message for error in schema.iter_errors(results)]
        check(not errors, f"(b) results.json is not Gradescope's format: {errors[:3]}")
        check(results.get("score") == 0 and marker in results.get("output", ""),
              f"(b) no build failure with the compiler's message: {results.get('output', '')[:300]}")

        # The key runs serve whatever command is asked for, and serve takes plain files only.
        import io
        import tarfile
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

        # (c) The GPU host gone: the student stubs built and checked here, without a GPU.
        sshd.terminate()
        sshd.wait(timeout=10)
        no_host = dict(environment)
        no_host.pop("SPMV_AUTOGRADER_PREBUILT")
        stubs = sorted((source / "student").glob("*.cu"))
        results = run_autograder(root, stubs, no_host)
        errors = [error.message for error in schema.iter_errors(results)]
        check(not errors, f"(c) results.json is not Gradescope's format: {errors[:3]}")
        check(results.get("output", "").startswith("NO GPU GRADED THIS SUBMISSION"), "(c) does not say no GPU graded it")
        check("could not be reached" in results.get("output", ""), "(c) does not say the GPU host was unreachable")
        check(results.get("extra_data", {}).get("gpu_graded") is False, "(c) extra_data.gpu_graded is not false")
        needing = [t for t in results["tests"] if t.get("extra_data", {}).get("cause") == "no_gpu"]
        check(len(needing) > 0, "(c) no row needing a GPU was listed")
        check(all("score" not in t and "max_score" not in t and "status" not in t for t in needing),
              "(c) a row that needs a GPU got points or a status")
        check("leaderboard" not in results, "(c) a leaderboard without a GPU")
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
