#!/usr/bin/env python3
"""tools/grade-class builds a submission beside running gradings at the
lowest CPU priority there is (SCHED_IDLE, else nice 19), and the first
builds, which have the CPUs to themselves, at the usual one.

Usage: test_build_priority.py SOURCE_DIR WORK_DIR

The prefix grade-class finds is run for real: a process under it must be
SCHED_IDLE or at nice 19. Then make_plugin's command, with build-submission
stood in for, carries the prefix for a build beside gradings and not for a
first build.
"""
import importlib.machinery
import importlib.util
import os
import random
import subprocess
import sys
import types
from pathlib import Path

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def load_grade_class(source):
    loader = importlib.machinery.SourceFileLoader("grade_class", str(source / "tools/grade-class"))
    spec = importlib.util.spec_from_loader("grade_class", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def main():
    source, work = Path(sys.argv[1]), Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    grade_class = load_grade_class(source)

    prefix = grade_class.lowest_priority()
    probe = subprocess.run([*prefix, sys.executable, "-c",
                            "import os; print(os.sched_getscheduler(0), os.nice(0))"],
                           capture_output=True, text=True, timeout=60)
    check(probe.returncode == 0, f"the prefix {prefix} does not run a program: {probe.stderr}")
    policy, niceness = (int(word) for word in probe.stdout.split())
    lowest = policy == getattr(os, "SCHED_IDLE", 5) or niceness == 19
    # A machine that allows neither is said, not failed: nothing can be lower.
    if prefix:
        check(lowest, f"under {prefix} a process is scheduled {policy} at nice {niceness}")
    else:
        print("note: neither chrt --idle nor nice runs here; builds keep their priority")
    check(grade_class.lowest_priority() == prefix, "the prefix is found once and kept")

    # make_plugin's command, build-submission stood in for: whether it
    # carries the prefix.
    commands = []

    def fake_run(command, **kwargs):
        commands.append(list(command))
        Path(command[-1]).write_bytes(b"plugin")
        return types.SimpleNamespace(returncode=0, stdout="", stderr="")

    real_run = grade_class.subprocess.run
    grade_class.subprocess.run = fake_run
    try:
        folder = work / "student"
        folder.mkdir(exist_ok=True)
        (folder / "coo.cu").write_text("// a kernel file\n")
        args = types.SimpleNamespace(prebuilt=False, grader=work / "bin/spmv-grade")
        order = [True, False]
        random.shuffle(order)
        for beside in order:
            commands.clear()
            plugin, message = grade_class.make_plugin(args, "student", folder, work / f"build-{beside}", beside)
            check(plugin is not None and message == "", f"the stood-in build made no plugin: {message}")
            check(len(commands) == 1, f"{len(commands)} commands for one build")
            tool = next(i for i, word in enumerate(commands[0]) if word.endswith("build-submission"))
            expected = prefix if beside else []
            check(commands[0][:tool] == expected,
                  f"a build {'beside gradings' if beside else 'first'} ran under {commands[0][:tool]}, not {expected}")
    finally:
        grade_class.subprocess.run = real_run

    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("build priority: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
