#!/usr/bin/env python3
"""Checks of tools/check-verdicts, which holds each GPU fake's rows to its
label (tools/gpu-check's fakes step): made-up rows.jsonl files against the
labels whose rule is more than one verdict (pass, no_gain,
honest_or_caught), each accepted or refused by the exit status."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TOOL = ROOT / "tools" / "check-verdicts"
failures = 0
checks = 0


def row(case, verdict="pass", cause="", flags=(), speedup=None, correctness_only=""):
    fields = {"kernel": "csr_scalar", "case": case, "verdict": verdict, "cause": cause, "flags": list(flags),
              "summary": f"{verdict} {cause}".strip()}
    if speedup is not None:
        fields["speedup"] = speedup
    if correctness_only:
        fields["correctness_only"] = correctness_only
    return fields


# The honest kernel's rows of the same grading (the BASELINE).
BASELINE = [row("power_law", speedup=1.0), row("poisson_2d", speedup=0.9, correctness_only="under 20 us")]


def check(label, rows, accepted, what, folder):
    global failures, checks
    checks += 1
    graded = folder / f"rows-{checks}.jsonl"
    graded.write_text("".join(json.dumps(r) + "\n" for r in rows))
    baseline = folder / "baseline.jsonl"
    baseline.write_text("".join(json.dumps(r) + "\n" for r in BASELINE))
    result = subprocess.run([sys.executable, str(TOOL), str(graded), label, str(baseline)], capture_output=True,
                            text=True)
    if (result.returncode == 0) != accepted:
        failures += 1
        print(f"FAILED: {label}: {what}: exit {result.returncode}, expected {'0' if accepted else 'not 0'}\n"
              f"{result.stdout}{result.stderr}")
    else:
        print(f"ok: {label}: {what}")


with tempfile.TemporaryDirectory() as work:
    folder = Path(work)
    # honest_or_caught: a pass that gains nothing, or wrong for any cause.
    check("honest_or_caught", [row("power_law", speedup=1.05), row("poisson_2d", speedup=3.0, correctness_only="x")],
          True, "clean passes, no faster than the honest kernel (or not scored)", folder)
    check("honest_or_caught", [row("power_law", "wrong", "timed_result_wrong", ["timed_result_wrong"]),
                               row("poisson_2d", "wrong", "unwritten_rows")],
          True, "wrong, caught by a timed launch's check or by the checked runs", folder)
    check("honest_or_caught", [row("power_law", speedup=1.0), row("poisson_2d", "wrong", "timed_result_wrong")],
          True, "a pass and a wrong row", folder)
    check("honest_or_caught", [row("power_law", speedup=1.5)], False, "a pass faster than the honest kernel", folder)
    check("honest_or_caught", [row("power_law", speedup=1.0, flags=["implausible_timing"])], False,
          "a flagged pass", folder)
    check("honest_or_caught", [row("power_law", "crash", "cuda_error")], False, "a crash", folder)
    check("honest_or_caught", [row("power_law", "timeout", "timeout")], False, "a timeout", folder)
    check("honest_or_caught", [], False, "no row", folder)
    # no_gain and pass, for comparison: no_gain takes any verdict but a
    # faster pass; pass takes clean passes only.
    check("no_gain", [row("power_law", "crash", "cuda_error"), row("poisson_2d", speedup=5.0, correctness_only="x")],
          True, "a crash and an unscored pass", folder)
    check("no_gain", [row("power_law", speedup=1.5)], False, "a pass faster than the honest kernel", folder)
    check("pass", [row("power_law", speedup=1.5)], True, "a clean pass, whatever its speed", folder)
    check("pass", [row("power_law", "wrong", "timed_result_wrong")], False, "a wrong row", folder)
    check("no_such_label", [row("power_law")], False, "an unknown label", folder)

sys.exit(1 if failures else 0)
