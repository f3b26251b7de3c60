#!/usr/bin/env python3
"""tools/grade-class on a class of host-path submissions (no GPU needed).

Usage: test_grade_class.py SOURCE_DIR BUILD_DIR WORK_DIR

Five students drawn afresh each run from the host reference and the faulty
fakes of grader/hostpath (one of them a crash), plus one whose kernels do
not build: every student gets a report, class.csv agrees with each
results.json and rows.jsonl (computed here on its own), a second run grades
nothing again, and after one submission changes only that one is graded;
after the first grading the others go largest plugin first.
The class's report then opens in tools/class-report.
"""
import csv
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

KERNELS = ["coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def grade_class(source, build, submissions, output, more=(), env=None):
    run = subprocess.run([str(source / "tools/grade-class"), str(submissions), "--output", str(output),
                          "--cases", str(source / "testcases/edge"), "--prebuilt", "--allow-unisolated",
                          "--timeout", "20", "--grader", str(build / "bin/spmv-grade"), *more],
                         capture_output=True, text=True, timeout=1200, env=env)
    print(run.stdout, run.stderr, sep="\n")
    check(run.returncode == 0, f"grade-class exited {run.returncode}")
    return run.stdout + run.stderr


def one_at_a_time():
    """grade-class's options for one grading at a time: none without a GPU
    (it grades one at a time there), else GPU 0 alone, one grading on it."""
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if listed.returncode != 0 or "GPU 0" not in listed.stdout:
        return ()
    return ("--gpus", "0", "--gradings-per-gpu", "1")


def expected_line(report):
    """class.csv's line for a graded student, from its own reports."""
    results = json.loads((report / "results.json").read_text())
    rows = [json.loads(line) for line in (report / "rows.jsonl").read_text().splitlines() if line.strip()]
    points = {k: sum(t["score"] for t in results["tests"] if t["name"].split(" / ")[0] == k) for k in KERNELS}
    speedups = [r["speedup"] for r in rows if r.get("speedup")]
    geomean = math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else None
    flags = sorted({f for r in rows for f in r["flags"]})
    return results["score"], points, geomean, flags


def main():
    source, build, work = (Path(a).resolve() for a in sys.argv[1:4])
    shutil.rmtree(work, ignore_errors=True)
    submissions, output = work / "submissions", work / "class"
    rng = random.Random()
    fakes = sorted((build / "plugins/fakes").glob("libspmv_fake_*.so"))
    crashing = [f for f in fakes if "crash" in f.name]
    others = [f for f in fakes if "crash" not in f.name and "hang" not in f.name]
    picks = {"ada": build / "plugins/libspmv_host_reference.so", "bea": rng.choice(crashing)}
    for name in ("cal", "dee", "eli"):
        picks[name] = rng.choice(others)
    for name, plugin in picks.items():
        (submissions / name).mkdir(parents=True)
        shutil.copy(plugin, submissions / name / plugin.name)
    broken = submissions / "fay"
    broken.mkdir()
    for kernel in KERNELS:
        (broken / f"{kernel}.cu").write_text('#include "spmv/contract/plugin.h"\nthis does not compile;\n')

    # One grading at a time (no GPU; on a GPU machine, one GPU with one
    # grading on it): the others wait while the first is graded, then go
    # largest plugin first (likely the longest gradings).
    first = grade_class(source, build, submissions, output, one_at_a_time())
    order = re.findall(r"\d+/\d+ students \((\w+): graded\)", first)
    sizes = {name: plugin.stat().st_size for name, plugin in picks.items()}
    check(sorted(order) == sorted(picks), f"graded {order}, not each of {sorted(picks)} once")
    check(order[1:] == sorted(order[1:], key=lambda name: (-sizes.get(name, 0), name)),
          f"after the first, the gradings did not go largest plugin first: {order}, sizes {sizes}")
    with open(output / "class.csv", newline="") as handle:
        lines = {row["student"]: row for row in csv.DictReader(handle)}
    check(sorted(lines) == sorted([*picks, "fay"]), f"class.csv students {sorted(lines)}")
    # Where the time went: every graded row counted, its phases named.
    graded_rows = [json.loads(x) for name in picks if (output / name / "rows.jsonl").is_file()
                   for x in (output / name / "rows.jsonl").read_text().splitlines() if x.strip()]
    summary = re.search(r"grade-class: (\d+) rows in \d+ s .*builds \d+ s and gradings \d+ s.*the rows' time: (.*)", first)
    check(summary is not None, "no line saying where the time went:\n" + first)
    if summary:
        check(int(summary[1]) == len(graded_rows), f"the time line counts {summary[1]} rows, the reports {len(graded_rows)}")
        largest = max({k for r in graded_rows for k in r["phase_ms"]},
                      key=lambda k: sum(r["phase_ms"].get(k, 0) for r in graded_rows))
        check(summary[2].startswith(largest + " "), f"the largest phase is {largest}, the line says {summary[2]}")
    # Each student's build and grading on the run's timeline, and each
    # GPU's line (here one grading at a time, on GPU 0 or none).
    timeline = json.loads((output / "timeline.json").read_text())
    entries = {e["student"]: e for e in timeline["students"]}
    check(sorted(entries) == sorted([*picks, "fay"]), f"timeline.json students {sorted(entries)}")
    for name, entry in entries.items():
        rows_file = output / name / "rows.jsonl"
        rows = len([x for x in rows_file.read_text().splitlines() if x.strip()]) if rows_file.is_file() else 0
        check(entry["rows"] == rows, f"{name}: timeline.json has {entry['rows']} rows, rows.jsonl {rows}")
        graded = name in picks
        check((entry["grading_s"] is not None) == graded, f"{name}: grading in timeline.json: {entry}")
        if graded and entry["grading_s"] is not None:
            check(0 < entry["grading_s"] and entry["build_began_s"] <= entry["grading_began_s"] and
                  entry["grading_began_s"] + entry["grading_s"] <= timeline["wall_s"] + 0.01, f"{name}: {entry}")
    spans = [(e["grading_began_s"], e["grading_began_s"] + e["grading_s"]) for e in entries.values()
             if e["grading_s"] is not None]
    spans.sort()
    check(all(a[1] <= b[0] + 0.01 for a, b in zip(spans, spans[1:])), f"one at a time, yet gradings overlap: {spans}")
    gpu_lines = re.findall(r"grade-class: (?:GPU \S+|no GPU): (\d+) students, (\d+) rows in .* idle for the last", first)
    check(len(gpu_lines) == 1 and int(gpu_lines[0][0]) == len(picks) and int(gpu_lines[0][1]) == len(graded_rows),
          f"the GPUs' lines: {gpu_lines}")
    for name in picks:
        report = output / name
        check((report / "results.json").is_file() and (report / "summary.md").is_file(), f"{name}: no report")
        if name not in lines or not (report / "rows.jsonl").is_file():
            continue
        line = lines[name]
        score, points, geomean, flags = expected_line(report)
        check(line["status"] == "graded", f"{name}: status {line['status']}")
        check(abs(float(line["score"]) - score) < 0.006, f"{name}: score {line['score']} vs {score}")
        for kernel in KERNELS:
            check(abs(float(line[kernel]) - points[kernel]) < 0.006, f"{name}: {kernel} {line[kernel]} vs {points[kernel]}")
        check((line["geomean_speedup"] == "") == (geomean is None), f"{name}: geomean {line['geomean_speedup']}")
        if geomean is not None and line["geomean_speedup"]:
            check(abs(float(line["geomean_speedup"]) - geomean) < 1e-3, f"{name}: geomean {line['geomean_speedup']}")
        check(line["flags"] == ";".join(flags), f"{name}: flags {line['flags']!r} vs {flags}")
    check(float(lines["bea"]["score"]) == 0, "the crashing submission scored")
    crash_rows = [json.loads(x) for x in (output / "bea/rows.jsonl").read_text().splitlines() if x.strip()]
    check(any(r["verdict"] == "crash" for r in crash_rows), "the crashing submission has no crash row")
    check(float(lines["ada"]["score"]) > 90, f"the host reference scored {lines['ada']['score']}")
    check(lines["fay"]["status"] == "build_failed", f"fay: status {lines['fay']['status']}")
    build_log = (output / "fay/build.log").read_text() if (output / "fay/build.log").is_file() else ""
    check("does not compile" in build_log or "error" in build_log, "the build log lacks the compiler's message")
    results = json.loads((output / "fay/results.json").read_text())
    check(results["score"] == 0 and "did not build" in results["output"], "fay's results.json says nothing of the build")

    again = grade_class(source, build, submissions, output)
    check(again.count("unchanged, not graded again") == len(picks) + 1, "a second run graded again:\n" + again)
    changed = rng.choice(["cal", "dee", "eli"])
    for old in (submissions / changed).glob("*.so"):
        old.unlink()
    shutil.copy(build / "plugins/libspmv_host_reference.so", submissions / changed)
    third = grade_class(source, build, submissions, output)
    check(third.count("unchanged, not graded again") == len(picks), "more than the changed one was graded:\n" + third)
    check(f"({changed}: graded)" in third, f"{changed} was not graded again")
    with open(output / "class.csv", newline="") as handle:
        lines = {row["student"]: row for row in csv.DictReader(handle)}
    check(float(lines[changed]["score"]) > 90, f"{changed} changed to the reference scored {lines[changed]['score']}")

    # Two gradings sharing one "GPU" (--gpu-share; host-path plugins, so no
    # GPU is needed, but --gpus must name one nvidia-smi lists: here one
    # that lists GPU 0): every row gets the verdict it got one at a time,
    # and the crashing submission's failing rows were graded again alone.
    shared = work / "class-shared"
    fake_bin = work / "fake-bin"
    fake_bin.mkdir()
    (fake_bin / "nvidia-smi").write_text("#!/bin/sh\necho 0\n")
    (fake_bin / "nvidia-smi").chmod(0o755)
    one_gpu = dict(os.environ, PATH=f"{fake_bin}:{os.environ['PATH']}")
    last = grade_class(source, build, submissions, shared, ["--gpus", "0", "--gradings-per-gpu", "2"], env=one_gpu)
    check("2 gradings a GPU" in last, "the run does not say it shared the GPU:\n" + last)
    # A wrong row's cause is read from its values (a missing term, wrong
    # values, ...), which depend on the grading's x: each grading draws its
    # own, so only the verdict is compared there; every other cause (a
    # crash's signal, a timeout's stage) must match as well.
    def outcome(row):
        return row["verdict"], "" if row["verdict"] == "wrong" else row["cause"]

    for name in picks:
        def verdicts(folder):
            path = folder / name / "rows.jsonl"
            rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.is_file() else []
            return {(r["kernel"], r["case"]): outcome(r) for r in rows}, rows
        alone_verdicts, _ = verdicts(output)
        shared_verdicts, shared_rows = verdicts(shared)
        differ = sorted(key for key in set(alone_verdicts) | set(shared_verdicts)
                        if alone_verdicts.get(key) != shared_verdicts.get(key))
        check(not differ, f"{name} ({picks[name].name}): verdicts differ when the GPU is shared: "
                          + ", ".join(f"{k}/{c}: {alone_verdicts.get((k, c))} alone, {shared_verdicts.get((k, c))} shared"
                                      for k, c in differ))
        for row in shared_rows:
            again = "Graded again with the GPU to itself" in row["detail"]
            if row["verdict"] in ("wrong", "crash", "timeout"):
                check(again, f"{name} {row['kernel']}/{row['case']}: a {row['verdict']} beside another grading "
                             "was not graded again alone")

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
