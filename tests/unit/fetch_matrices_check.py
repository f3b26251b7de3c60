#!/usr/bin/env python3
"""Checks of tools/fetch-matrices that need no network and no matrix of the
manifest: the manifest parses and holds the suite's composition, its halves
are the split rule's, a file of the wrong size or sha256 is refused and
nothing is written for it, a bare git snapshot is read at the manifest's
commit, every conversion writes the Matrix Market the repositories' forms
stand for, and the index carries each matrix's half."""
import bz2
import collections
import hashlib
import importlib.machinery
import importlib.util
import lzma
import struct
import subprocess
import sys
import tempfile
import zlib
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
check(len(entries) >= 50, f"the manifest lists at least 50 matrices ({len(entries)})")
kinds = collections.Counter(e["kind"] for e in entries)
check({"fem", "circuit", "graph", "network", "road", "chemistry", "optimisation"} <= set(kinds),
      f"every kind is there ({sorted(kinds)})")
check(kinds["network"] >= 8, f"at least 8 scale-free networks ({kinds['network']})")
mid_size = [e["name"] for e in entries if 500_000 <= e["nnz"] <= 10_000_000]
check(len(mid_size) >= 15, f"at least 15 matrices of 0.5-10 M entries ({len(mid_size)})")
check(kinds["road"] >= 3, f"at least 3 road networks ({kinds['road']})")
check(all(len(e["sha256"]) == 64 for e in entries), "every entry has a sha256")
check(len({e["name"] for e in entries}) == len(entries), "names are unique")

# The split: the manifest's halves are the rule's, and the rule gives each
# half as many matrices as the other, of every kind, give or take one. The
# first 52 matrices were split together; each batch added later (after its
# own comment line in the manifest) by the rule applied to that batch alone,
# so that no matrix changes half when others join.
FIRST_SPLIT = 52
batches, lines = [[]], fetch.MANIFEST.read_text().splitlines()
for line in lines:
    if line.startswith("#") and len(sum(batches, [])) >= FIRST_SPLIT and batches[-1]:
        batches.append([])
    elif line.strip() and not line.startswith("#"):
        batches[-1].append(line.split("\t")[0])
check(len(batches[0]) == FIRST_SPLIT, f"the first split's {FIRST_SPLIT} matrices come first ({len(batches[0])})")
by_name = {e["name"]: e for e in entries}
rule = {}
for batch in batches:
    rule.update(fetch.split_halves([by_name[name] for name in batch]))
moved = [e["name"] for e in entries if e["half"] != rule[e["name"]]]
check(not moved, f"every half in the manifest is the split rule's (not: {moved})")
halves = collections.Counter(e["half"] for e in entries)
check(abs(halves["tuning"] - halves["validation"]) <= 1, f"the halves are the same size, give or take one ({halves})")
for kind in kinds:
    by_half = collections.Counter(e["half"] for e in entries if e["kind"] == kind)
    check(abs(by_half["tuning"] - by_half["validation"]) <= 1, f"{kind}: split evenly ({dict(by_half)})")
made_up = [dict(name=name, kind="k", nnz=nnz) for name, nnz in (("c", 5), ("a", 9), ("b", 5), ("d", 1))]
check(fetch.split_halves(made_up) == {"d": "tuning", "b": "validation", "c": "tuning", "a": "validation"},
      "the rule orders by kind, then nnz, then name, and alternates from tuning")

with tempfile.TemporaryDirectory() as work:
    work = Path(work)
    entry = entries[0]
    (work / Path(entry["path"]).name).write_bytes(b"not the matrix\n")
    run = subprocess.run([sys.executable, str(TOOL), "--from", str(work), "--offline", "--only", entry["name"],
                          "--dest", str(work / "out")], capture_output=True, text=True)
    check(run.returncode == 1, "a file that is not the manifest's makes the run fail")
    check("expected" in run.stderr and "bytes" in run.stderr, "and says what was expected and found")
    check(not (work / "out" / f"{entry['name']}.mtx.gz").exists(), "and nothing is written for it")

    # A bare git snapshot is read at the manifest's commit, though its HEAD
    # has moved on and no longer holds the file.
    matrix = b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n"
    manifest_entry = dict(entry, format="mtx", rows=2, cols=2, nnz=1, repository="someone/matrices",
                          path="data/m.mtx", bytes=len(matrix), sha256=hashlib.sha256(matrix).hexdigest())
    source = work / "source"
    (source / "data").mkdir(parents=True)
    (source / "data" / "m.mtx").write_bytes(matrix)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(source)]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "m"], check=True)
    manifest_entry["commit"] = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True,
                                              text=True).stdout.strip()
    subprocess.run(git + ["rm", "-q", "data/m.mtx"], check=True)
    subprocess.run(git + ["commit", "-qm", "gone"], check=True)
    mirror = work / "mirror"
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(mirror / "someone+matrices" / "repo")], check=True)
    data, where = fetch.fetch_one(manifest_entry, [mirror], use_network=False)
    check(data == matrix and manifest_entry["commit"] in where, f"a bare snapshot is read at the commit ({where})")

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


def converted(fmt, data, rows, cols, path="m"):
    """The entries of a conversion's Matrix Market text, and its banner."""
    text = fetch.to_matrix_market(dict(entry, format=fmt, rows=rows, cols=cols, path=path), data).decode()
    lines = [line for line in text.splitlines() if not line.startswith("%")]
    return text.splitlines()[0], lines[0], lines[1:]


banner, size, body = converted("edges0-sym", b"# a comment\n0\t2\n1 0\n", 3, 3)
check(banner.endswith("pattern symmetric") and size == "3 3 2" and body == ["3 1", "2 1"],
      "edges0-sym: 0-based edges either way round become the lower triangle")
banner, size, body = converted("edges0", b"# a comment\n0\t2\n2 0\n", 3, 3)
check(banner.endswith("pattern general") and body == ["1 3", "3 1"], "edges0: 0-based directed edges, every one")
# A METIS graph: the path 1-2-3 and vertex 4 alone (its line blank).
metis = b"% comment\n4 2\n2\n1 3\n2\n\n"
banner, size, body = converted("metis", metis, 4, 4)
check(banner.endswith("pattern symmetric") and size == "4 4 2" and body == ["2 1", "3 2"],
      "metis: the adjacency's lower triangle, a vertex without neighbours kept in place")
try:
    converted("metis", b"3 2 1\n2 1\n1 1 3 1\n2 1\n", 3, 3)
    check(False, "metis: a weighted graph is refused")
except ValueError:
    check(True, "metis: a weighted graph is refused")
try:
    converted("metis", b"3 5\n2\n1 3\n2\n", 3, 3)
    check(False, "metis: an edge count that disagrees with the lists is refused")
except ValueError:
    check(True, "metis: an edge count that disagrees with the lists is refused")
# A hypergraph of two nets on four vertices, bzip2-compressed as a path says.
hgr = bz2.compress(b"2 4\n1 2 4\n3\n")
banner, size, body = converted("hgr", hgr, 2, 4, path="h.hgr.bz2")
check(banner.endswith("pattern general") and size == "2 4 4" and body == ["1 1", "1 2", "1 4", "2 3"],
      "hgr (.bz2): the incidence matrix, a row a net")
banner, size, body = converted("hgr-graph", b"2 3\n1 3\n3 2\n", 3, 3)
check(banner.endswith("pattern symmetric") and body == ["3 1", "3 2"], "hgr-graph: two-pin nets are a graph's edges")
# A PACE 2016 graph, xz-compressed as a path says: the path 1-2-3 and the edge 3-4.
gr = lzma.compress(b"c a comment\np tw 4 3\n1 2\n3 2\n3 4\n")
banner, size, body = converted("gr", gr, 4, 4, path="g.gr.xz")
check(banner.endswith("pattern symmetric") and size == "4 4 3" and body == ["2 1", "3 2", "4 3"],
      "gr (.xz): each edge once, either way round, becomes the lower triangle")
for wrong, why in ((b"p tw 4 2\n1 2\n3 2\n3 4\n", "an edge count that disagrees"),
                   (b"p tw 5 3\n1 2\n3 2\n3 4\n", "a vertex count that disagrees with the manifest"),
                   (b"p td 4 3\n1 2\n3 2\n3 4\n", "a header that is not 'p tw'")):
    try:
        converted("gr", wrong, 4, 4)
        check(False, f"gr: {why} is refused")
    except ValueError:
        check(True, f"gr: {why} is refused")


def mat_element(kind, payload):
    """A MATLAB 5 data element, padded to 8 bytes."""
    return struct.pack("<II", kind, len(payload)) + payload + b"\0" * (-len(payload) % 8)


def mat_variable(name, matrix_class, rows, cols, *parts):
    """A compressed MATLAB 5 variable: flags, dimensions, name, then its arrays."""
    flags = struct.pack("<II", matrix_class, 0)  # the class; nzmax, which the tool does not read
    matrix = (mat_element(6, flags) + mat_element(5, struct.pack("<ii", rows, cols)) + mat_element(1, name.encode())
              + b"".join(parts))
    compressed = zlib.compress(mat_element(14, matrix))
    return struct.pack("<II", 15, len(compressed)) + compressed


# A file with a scalar n, then the sparse A = [[1.5, 0, 0], [0, 0, -2], [0.25, 0, 0]]
# (row indices, column starts, values by columns).
mat = (b"MATLAB 5.0 MAT-file".ljust(116) + b"\0" * 8 + struct.pack("<H", 0x0100) + b"IM"
       + mat_variable("n", 6, 1, 1, mat_element(9, struct.pack("<d", 3.0)))
       + mat_variable("A", 5, 3, 3, mat_element(5, struct.pack("<3i", 0, 2, 1)),
                      mat_element(5, struct.pack("<4i", 0, 2, 2, 3)),
                      mat_element(9, struct.pack("<3d", 1.5, 0.25, -2.0))))
banner, size, body = converted("mat:A", mat, 3, 3)
check(banner.endswith("real general") and size == "3 3 3" and body == ["1 1 1.5", "3 1 0.25", "2 3 -2.0"],
      "mat:A: the sparse variable A of a MATLAB 5 file, every entry")
for wrong, why in (("mat:B", "no variable B"), ("mat:A", "the manifest's size")):
    try:
        converted(wrong, mat, 3, 4 if why == "the manifest's size" else 3)
        check(False, f"mat: refused for {why}")
    except ValueError:
        check(True, f"mat: refused for {why}")

# The index carries the half, between the collection and the file: it lists
# every matrix of the manifest that DEST holds, even when this run wrote none.
with tempfile.TemporaryDirectory() as work:
    work = Path(work)
    entry = entries[0]
    (work / f"{entry['name']}.mtx.gz").write_bytes(b"")
    subprocess.run([sys.executable, str(TOOL), "--from", str(work / "none"), "--offline", "--only", entry["name"],
                    "--dest", str(work)], capture_output=True, text=True)
    lines = [line.split("\t") for line in (work / "index.tsv").read_text().splitlines()]
    check(lines[0][:5] == ["# name", "kind", "collection", "half", "file (written by tools/fetch-matrices)"],
          f"the index's header names the half ({lines[0]})")
    check(lines[1] == [entry["name"], entry["kind"], entry["collection"], entry["half"], f"{entry['name']}.mtx.gz"],
          f"the index lists the matrix with its half ({lines[1]})")
print("all fetch-matrices checks passed")
