#!/usr/bin/env python3
"""Checks of tools/check-class on graded classes written here: a class that
got what its manifest says passes; a stub's row that passed, a fault's row
that passed, a status that differs, a graded row of a submission that does
not build, and a student graded alone with another verdict or a score 0.5
points away are each caught, naming the student and the row. Each run draws
its class afresh (the seed is printed)."""
import csv
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True
sys.path.insert(0, str(ROOT / "tests" / "class_report"))
from checks import check, summary  # noqa: E402

TOOL = ROOT / "tools" / "check-class"
KERNELS = ["coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"]


def row(kernel, case, verdict, cause=""):
    return {"kernel": kernel, "case": case, "verdict": verdict, "cause": cause, "flags": [], "summary": verdict,
            "speedup": None, "correctness_only": ""}


def write_class(folder, rng):
    """A graded class and its manifest: honest, stub, faulty and no_build
    students, every row as the manifest says."""
    cases = [f"case{k}" for k in range(rng.randint(2, 5))]
    students, csv_rows = [], []
    for name, kind in [("ann", "honest"), ("bo b", "stub"), ("cy", "faulty"), ("di", "no_build"),
                       (f"e{rng.randint(0, 999)}", rng.choice(["honest", "reference"]))]:
        kernels = {}
        rows = []
        for kernel in KERNELS:
            expected = {"honest": None, "reference": "pass", "stub": "not_implemented", "no_build": "build_error",
                        "faulty": "out_of_bounds" if kernel == "csr_scalar" else None}[kind]
            kernels[kernel] = {"source": None, "expected": expected}
            if kind == "no_build":
                continue
            for case in cases:
                if expected == "not_implemented":
                    rows.append(row(kernel, case, "not_implemented"))
                elif expected == "out_of_bounds":
                    rows.append(row(kernel, case, "wrong", "out_of_bounds_write"))
                else:
                    rows.append(row(kernel, case, "pass"))
        status = "build_failed" if kind == "no_build" else "graded"
        students.append({"name": name, "kind": kind, "status": status, "kernels": kernels})
        report = folder / "graded" / name
        report.mkdir(parents=True)
        (report / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        score = round(rng.uniform(0, 100), 2) if status == "graded" else 0
        (report / "results.json").write_text(json.dumps({"score": score}))
        csv_rows.append({"student": name, "score": score, "status": status})
    with open(folder / "graded" / "class.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["student", "score", "status"])
        writer.writeheader()
        writer.writerows(csv_rows)
    (folder / "manifest.json").write_text(json.dumps({"students": students}))


def run(folder, *more):
    done = subprocess.run([sys.executable, str(TOOL), str(folder / "graded"), str(folder / "manifest.json"), *more],
                          capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout + done.stderr


def edit_rows(folder, name, change):
    path = folder / "graded" / name / "rows.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    change(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def main():
    seed = random.SystemRandom().randrange(2**32)
    print(f"seed {seed}")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        write_class(folder, rng)
        code, out = run(folder)
        check(code == 0 and "5 of 5 students" in out, f"a class as its manifest says: exit {code}\n{out}")

        def set_first(kernel, verdict, cause=""):
            def change(rows):
                for r in rows:
                    if r["kernel"] == kernel:
                        r["verdict"], r["cause"] = verdict, cause
                        return
            return change

        # A stub's row that passed; a fault's row that passed.
        for name, kernel in (("bo b", rng.choice(KERNELS)), ("cy", "csr_scalar")):
            original = (folder / "graded" / name / "rows.jsonl").read_text()
            edit_rows(folder, name, set_first(kernel, "pass"))
            code, out = run(folder)
            check(code == 1 and f"BAD {name}" in out and f"{kernel} / " in out, f"{name}'s {kernel} passed: {out}")
            (folder / "graded" / name / "rows.jsonl").write_text(original)
        # A status other than the manifest's.
        text = (folder / "graded" / "class.csv").read_text()
        (folder / "graded" / "class.csv").write_text(text.replace("build_failed", "graded"))
        code, out = run(folder)
        check(code == 1 and "BAD di" in out and "status graded" in out, f"di graded, not build_failed: {out}")
        (folder / "graded" / "class.csv").write_text(text)
        # Rows of a submission that does not build.
        (folder / "graded" / "di" / "rows.jsonl").write_text(json.dumps(row("coo", "case0", "pass")) + "\n")
        code, out = run(folder)
        check(code == 1 and "BAD di" in out and "does not build" in out, f"di has a row: {out}")
        (folder / "graded" / "di" / "rows.jsonl").write_text("")
        # Graded alone: the same, then a verdict apart, then a score apart.
        alone = folder / "alone"
        for name in ("ann", "cy"):
            (alone / name).mkdir(parents=True)
            for file in ("rows.jsonl", "results.json"):
                (alone / name / file).write_text((folder / "graded" / name / file).read_text())
        code, out = run(folder, "--alone", str(alone))
        check(code == 0 and "2 graded alone" in out, f"alone, the same: exit {code}\n{out}")
        kernel = rng.choice(KERNELS)
        path = alone / "ann" / "rows.jsonl"
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        moved = next(r for r in rows if r["kernel"] == kernel)
        moved["verdict"] = "wrong"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        code, out = run(folder, "--alone", str(alone))
        check(code == 1 and f"{kernel} / {moved['case']}: pass in the class, wrong alone" in out, f"a verdict apart: {out}")
        (alone / "ann" / "rows.jsonl").write_text((folder / "graded" / "ann" / "rows.jsonl").read_text())
        score = json.loads((folder / "graded" / "cy" / "results.json").read_text())["score"]
        (alone / "cy" / "results.json").write_text(json.dumps({"score": score + rng.choice([-1, 1]) * 0.51}))
        code, out = run(folder, "--alone", str(alone))
        check(code == 1 and "BAD cy" in out and "alone" in out, f"a score 0.51 apart: {out}")
        (alone / "cy" / "results.json").write_text(json.dumps({"score": score + 0.49}))
        code, out = run(folder, "--alone", str(alone))
        check(code == 0, f"a score 0.49 apart is within: {out}")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
