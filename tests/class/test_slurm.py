#!/usr/bin/env python3
"""tools/grade-class --slurm against a real single-node Slurm started here.

Usage: test_slurm.py SOURCE_DIR BUILD_DIR WORK_DIR

munged, slurmctld and slurmd run on localhost from a configuration written
here (no systemd: proctrack/linuxproc, task/none; no GPU, so the tasks ask
for no gres). Five host-path submissions, one that does not build and one
that crashes, give five reports and a class.csv that agrees with them; a
second submit after one submission changed grades that one alone. Exits 77
(skipped) where Slurm is not installed or cannot start (CI installs it and
refuses the skip).
"""
import csv
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_grade_class as common  # noqa: E402  (check, expected_line, KERNELS)

SKIP = 77


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_slurm(work):
    for program in ("munged", "slurmctld", "slurmd", "sbatch", "squeue"):
        if shutil.which(program) is None and not Path("/usr/sbin", program).exists():
            print(f"skipped: {program} is not installed (Debian: slurmctld slurmd slurm-client munge)")
            sys.exit(SKIP)
    if os.geteuid() != 0:
        print("skipped: slurmd runs jobs as their user and needs root here")
        sys.exit(SKIP)
    for folder in ("state", "spool", "log", "munge", "run"):
        (work / folder).mkdir(parents=True, exist_ok=True)
    os.chmod(work / "munge", 0o700)
    key = work / "munge/munge.key"
    key.write_bytes(os.urandom(1024))
    os.chmod(key, 0o400)
    socket_path = work / "munge/munge.socket"
    processes = []
    munged = subprocess.run(["munged", "--force", f"--key-file={key}", f"--socket={socket_path}",
                             f"--pid-file={work}/munge/munged.pid", f"--log-file={work}/munge/munged.log",
                             f"--seed-file={work}/munge/seed"], capture_output=True, text=True)
    if munged.returncode != 0:
        print("skipped: munged did not start:", munged.stderr)
        sys.exit(SKIP)
    config = work / "slurm.conf"
    config.write_text("\n".join([
        "ClusterName=spmvtest", "SlurmctldHost=localhost", "SlurmUser=root", "SlurmdUser=root",
        "AuthType=auth/munge", f"AuthInfo=socket={socket_path}", "CryptoType=crypto/munge", "MpiDefault=none",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "SwitchType=switch/none",
        "SchedulerType=sched/backfill", "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
        f"StateSaveLocation={work}/state", f"SlurmdSpoolDir={work}/spool",
        f"SlurmctldPidFile={work}/run/slurmctld.pid", f"SlurmdPidFile={work}/run/slurmd.pid",
        f"SlurmctldLogFile={work}/log/slurmctld.log", f"SlurmdLogFile={work}/log/slurmd.log",
        f"SlurmctldPort={free_port()}", f"SlurmdPort={free_port()}", "ReturnToService=2",
        "JobCompType=jobcomp/none", "AccountingStorageType=accounting_storage/none", "GresTypes=gpu",
        f"NodeName=localhost CPUs={os.cpu_count() or 2} RealMemory=1000 State=UNKNOWN",
        "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP", ""]))
    os.environ["SLURM_CONF"] = str(config)
    processes.append(subprocess.Popen(["slurmctld", "-D", "-f", str(config)], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, start_new_session=True))
    processes.append(subprocess.Popen(["slurmd", "-D", "-N", "localhost", "-f", str(config)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
    for _ in range(60):
        info = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True)
        if info.returncode == 0 and info.stdout.strip() in ("idle", "mix", "alloc"):
            return processes
        time.sleep(0.5)
    print("skipped: Slurm did not come up:", (work / "log/slurmctld.log").read_text()[-2000:]
          if (work / "log/slurmctld.log").exists() else "no log")
    stop(processes, work)
    sys.exit(SKIP)


def stop(processes, work):
    subprocess.run(["scancel", "--user", "root"], capture_output=True)
    for process in processes:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
    pid_file = work / "munge/munged.pid"
    if pid_file.exists():
        try:
            os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)
        except (ValueError, ProcessLookupError):
            pass


def submit_and_wait(source, build, submissions, output):
    run = subprocess.run([str(source / "tools/grade-class"), str(submissions), "--output", str(output), "--slurm",
                          "--gres", "", "--concurrent", "2", "--cases", str(source / "testcases/edge"),
                          "--prebuilt", "--allow-unisolated", "--timeout", "20",
                          "--grader", str(build / "bin/spmv-grade")], capture_output=True, text=True, timeout=120)
    print(run.stdout, run.stderr, sep="\n")
    common.check(run.returncode == 0, f"grade-class --slurm exited {run.returncode}")
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        queue = subprocess.run(["squeue", "-h"], capture_output=True, text=True)
        if queue.returncode == 0 and not queue.stdout.strip():
            return run.stdout
        time.sleep(1)
    common.check(False, "the jobs did not finish in 15 minutes")
    return run.stdout


def main():
    source, build, work = (Path(a).resolve() for a in sys.argv[1:4])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    processes = start_slurm(work / "slurm")
    try:
        rng = random.Random()
        submissions, output = work / "submissions", work / "class"
        fakes = sorted((build / "plugins/fakes").glob("libspmv_fake_*.so"))
        crashing = [f for f in fakes if "crash" in f.name]
        others = [f for f in fakes if "crash" not in f.name and "hang" not in f.name]
        picks = {"ann": build / "plugins/libspmv_host_reference.so", "ben": rng.choice(crashing),
                 "cho": rng.choice(others), "dan": rng.choice(others)}
        for name, plugin in picks.items():
            (submissions / name).mkdir(parents=True)
            shutil.copy(plugin, submissions / name / plugin.name)
        (submissions / "eve").mkdir()
        for kernel in common.KERNELS:
            (submissions / "eve" / f"{kernel}.cu").write_text("this does not compile;\n")

        first = submit_and_wait(source, build, submissions, output)
        common.check("5 of 5 students to grade" in first, "the first submit did not grade all five")
        with open(output / "class.csv", newline="") as handle:
            lines = {row["student"]: row for row in csv.DictReader(handle)}
        common.check(sorted(lines) == sorted([*picks, "eve"]), f"class.csv students {sorted(lines)}")
        for name in picks:
            if name not in lines or not (output / name / "rows.jsonl").is_file():
                common.check(False, f"{name}: no report")
                continue
            score, points, _, flags = common.expected_line(output / name)
            common.check(lines[name]["status"] == "graded", f"{name}: status {lines[name]['status']}")
            common.check(abs(float(lines[name]["score"]) - score) < 0.006, f"{name}: score {lines[name]['score']}")
            common.check(lines[name]["flags"] == ";".join(flags), f"{name}: flags")
        common.check(float(lines["ben"]["score"]) == 0, "the crashing submission scored")
        common.check(lines.get("eve", {}).get("status") == "build_failed", "eve did not fail to build")

        before = {name: (output / name / "results.json").stat().st_mtime_ns for name in picks}
        changed = rng.choice(["cho", "dan"])
        for old in (submissions / changed).glob("*.so"):
            old.unlink()
        shutil.copy(build / "plugins/libspmv_host_reference.so", submissions / changed)
        second = submit_and_wait(source, build, submissions, output)
        common.check("1 of 5 students to grade" in second, "the second submit graded more than the changed one")
        for name in picks:
            moved = (output / name / "results.json").stat().st_mtime_ns != before[name]
            common.check(moved == (name == changed), f"{name}: graded again: {moved}")
        with open(output / "class.csv", newline="") as handle:
            lines = {row["student"]: row for row in csv.DictReader(handle)}
        common.check(float(lines[changed]["score"]) > 90, f"{changed} as the reference scored {lines[changed]['score']}")
    finally:
        stop(processes, work / "slurm")
    print(f"{len(common.failures)} failure(s)")
    return 1 if common.failures else 0


if __name__ == "__main__":
    sys.exit(main())
