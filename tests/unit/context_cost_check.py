#!/usr/bin/env python3
"""Checks of tools/context-cost without a GPU: stand-in programs that say
"ready" after a known delay and end a known time after their stdin closes
are timed about right, every variant is reported, K at once are started
together, and a program that makes no context is a clear error."""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "context-cost"


def check(condition, what):
    if not condition:
        sys.exit(f"FAILED: {what}")
    print(f"ok: {what}")


with tempfile.TemporaryDirectory() as scratch:
    ready_ms, end_ms = 1000, 1000
    stand_in = Path(scratch) / "stand-in"
    stand_in.write_text(f"""#!/usr/bin/env python3
import sys, time
time.sleep({ready_ms} / 1000)
print("ready", flush=True)
sys.stdin.read()
time.sleep({end_ms} / 1000)
""")
    stand_in.chmod(0o755)
    for at_once in (1, 2):
        run = subprocess.run([str(TOOL), "--program", str(stand_in), "--runs", "1", "--at-once", str(at_once)],
                             capture_output=True, text=True, timeout=120)
        check(run.returncode == 0, f"{at_once} at once: runs ({run.stderr.strip()})")
        lines = re.findall(r"^(\S+)\s+made\s+(\d+) \((\d+)-(\d+)\)\s+ended\s+(\d+)", run.stdout, re.M)
        check(len(lines) == 5, f"{at_once} at once: every variant reported ({len(lines)})")
        for name, made, low, high, ended in lines:
            # Started together: K at once are ready in about the time of one
            # (one after another, the second would take twice as long).
            check(ready_ms * 0.9 <= int(low) and int(high) < ready_ms * 1.9,
                  f"{at_once} at once, {name}: made in {low}-{high} ms (the stand-in takes {ready_ms})")
            check(end_ms * 0.9 <= int(ended) < end_ms * 1.9,
                  f"{at_once} at once, {name}: ended {ended} ms after ready (the stand-in takes {end_ms})")
    failing = Path(scratch) / "failing"
    failing.write_text("#!/bin/sh\necho 'no CUDA context: no device' >&2\nexit 1\n")
    failing.chmod(0o755)
    run = subprocess.run([str(TOOL), "--program", str(failing), "--runs", "1"], capture_output=True, text=True,
                         timeout=60)
    check(run.returncode != 0 and "did not make a context: no CUDA context: no device" in run.stderr,
          f"a program that makes no context is an error that says why ({run.stderr.strip()})")
    run = subprocess.run([str(TOOL), "--program", str(Path(scratch) / "absent")], capture_output=True, text=True)
    check(run.returncode != 0 and "no such program" in run.stderr, "an absent program is named")
