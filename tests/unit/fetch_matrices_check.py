#!/usr/bin/env python3
"""Checks of tools/fetch-matrices that need no network and no matrix of the
manifest: the manifest parses, a file of the wrong size or sha256 is refused
and nothing is written for it, and the edge-list and triplet conversions
write the Matrix Market header the repositories left out."""
import hashlib
import importlib.machinery
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "fetch-matrices"
loader = importlib.machinery.SourceFileLoader("fetch_matrices", str(TOOL))
spec = importlib.util.spec_from_loader("fetch_matrices", loader)
fetch = importlib.util.module_from_spec(spec)
loader.exec_module(fetch)


def check(condition, what):
    if not condition:
        sys.exit(f"FAILED: {what}")
    print(f"ok: {what}")


entries = fetch.read_manifest()
check(len(entries) >= 20, f"the manifest lists at least 20 matrices ({len(entries)})")
kinds = {e["kind"] for e in entries}
check({"fem", "circuit", "graph", "road", "chemistry", "optimisation"} <= kinds, f"every kind is there ({kinds})")
check(all(len(e["sha256"]) == 64 for e in entries), "every entry has a sha256")

with tempfile.TemporaryDirectory() as work:
    work = Path(work)
    entry = entries[0]
    (work / Path(entry["path"]).name).write_bytes(b"not the matrix\n")
    run = subprocess.run([sys.executable, str(TOOL), "--from", str(work), "--offline", "--only", entry["name"],
                          "--dest", str(work / "out")], capture_output=True, text=True)
    check(run.returncode == 1, "a file that is not the manifest's makes the run fail")
    check("expected" in run.stderr and "bytes" in run.stderr, "and says what was expected and found")
    check(not (work / "out" / f"{entry['name']}.mtx.gz").exists(), "and nothing is written for it")

    data = b"2 1\n3 1\n3 2\n"
    edges = dict(entry, format="edges-sym", rows=3, cols=3, bytes=len(data),
                 sha256=hashlib.sha256(data).hexdigest())
    check(fetch.checked(edges, data, "here") is None, "a file of the manifest's size and sha256 is accepted")
    text = fetch.to_matrix_market(edges, data).decode()
    check(text.startswith("%%MatrixMarket matrix coordinate pattern symmetric\n"), "edges-sym: pattern symmetric")
    check("\n3 3 3\n2 1\n" in text, "edges-sym: the size line, then the entries")
    triplets = dict(edges, format="triplet0")
    text = fetch.to_matrix_market(triplets, b"0 0 1.5\n2 1 -2\n").decode()
    check(text.startswith("%%MatrixMarket matrix coordinate real general\n") and "\n1 1 1.5\n3 2 -2\n" in text,
          "triplet0: 0-based triplets become 1-based real entries")
    try:
        fetch.to_matrix_market(edges, b"1 2\n")
        check(False, "edges-sym: an entry above the diagonal is refused")
    except ValueError:
        check(True, "edges-sym: an entry above the diagonal is refused")
print("all fetch-matrices checks passed")
