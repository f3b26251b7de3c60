#!/usr/bin/env python3
"""Writes the small Matrix Market files of testcases/public and testcases/edge.

The files are committed; this script records how they were made and remakes
them byte for byte (fixed seeds, gzip without a timestamp). Larger cases are
generator specs in each folder's cases.ini, not files.

    testcases/tools/make_small_cases.py            # rewrite all files
"""

import gzip
import io
import pathlib
import random

ROOT = pathlib.Path(__file__).resolve().parent.parent


def fmt(value):
    """Six significant digits keep the files small; the reader rounds to float."""
    if isinstance(value, int):
        return str(value)
    return f"{value:.6g}"


def mtx_text(rows, cols, entries, comment, field="real", symmetry="general"):
    """Coordinate file; entries are (row, col, value) 0-based, value None for pattern."""
    lines = [f"%%MatrixMarket matrix coordinate {field} {symmetry}"]
    lines += [f"% {line}" if line else "%" for line in comment.splitlines()]
    lines.append(f"{rows} {cols} {len(entries)}")
    for r, c, v in entries:
        lines.append(f"{r + 1} {c + 1}" if v is None else f"{r + 1} {c + 1} {fmt(v)}")
    return "\n".join(lines) + "\n"


def write(folder, name, text):
    path = ROOT / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if name.endswith(".gz"):
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as out:
            out.write(text.encode())
        path.write_bytes(buffer.getvalue())
    else:
        path.write_text(text)


def value(rng, scale=1.0):
    """Never zero: magnitude in [0.25, 1] times scale, random sign."""
    magnitude = rng.uniform(0.25, 1.0) * scale
    return magnitude if rng.random() < 0.5 else -magnitude


def random_row(rng, row, length, cols, scale=1.0):
    return [(row, c, value(rng, scale)) for c in sorted(rng.sample(range(cols), length))]


def dense_to_entries(dense):
    return [(r, c, v) for r, row in enumerate(dense) for c, v in enumerate(row) if v != 0]


# --- public -----------------------------------------------------------------

def public_cases():
    rng = random.Random(20240611)
    folder = "public"

    fig14_1 = [[1, 7, 0, 0], [5, 0, 3, 9], [0, 2, 8, 0], [0, 0, 0, 6]]
    write(folder, "textbook_fig14_1.mtx",
          mtx_text(4, 4, dense_to_entries(fig14_1), "Textbook figure 14.1: the 4 x 4 example of COO, CSR, ELL and JDS.",
                   field="integer"))

    kit = [[3, 0, 1, 0], [0, 0, 0, 0], [0, 2, 4, 1], [1, 0, 0, 1]]
    write(folder, "teaching_kit_4x4.mtx",
          mtx_text(4, 4, dense_to_entries(kit), "GPU Teaching Kit module 10: the 4 x 4 example (row 1 is empty).",
                   field="integer"))

    # Lower triangle only; the reader mirrors it.
    n = 64
    lower = [(i, i, 2.0) for i in range(n)] + [(i + 1, i, -1.0) for i in range(n - 1)]
    lower.sort()
    write(folder, "laplace_1d_symmetric.mtx",
          mtx_text(n, n, lower, "1D Laplacian (2 on the diagonal, -1 beside it), stored as its lower triangle.",
                   symmetry="symmetric"))

    # A directed graph with a few hubs: pattern entries, rows of 1 to ~200.
    nodes = 300
    edges = []
    for r in range(nodes):
        degree = 150 + rng.randrange(60) if r % 97 == 5 else rng.choice([0, 1, 2, 3, 4, 6, 9])
        edges += [(r, c, None) for c in sorted(rng.sample(range(nodes), degree))]
    write(folder, "graph_hubs_pattern.mtx",
          mtx_text(nodes, nodes, edges, "Directed graph with three hub nodes; pattern entries read as 1.",
                   field="pattern"))

    # Strict lower triangle; the reader mirrors it negated.
    n = 50
    skew = []
    for r in range(1, n):
        skew += random_row(rng, r, min(r, rng.randrange(1, 6)), r)
    write(folder, "skew_random.mtx",
          mtx_text(n, n, skew, "Random skew-symmetric matrix, stored as its strict lower triangle.",
                   symmetry="skew-symmetric"))

    rows, cols = 12, 10
    lines = ["%%MatrixMarket matrix array real general",
             "% Dense 12 x 10 in array (column-major) format.", f"{rows} {cols}"]
    lines += [fmt(value(rng)) for _ in range(rows * cols)]
    write(folder, "dense_array_12x10.mtx", "\n".join(lines) + "\n")

    # Row lengths around every thread-group size a kernel may use.
    rows, cols = 400, 700
    lengths = [0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 600]
    entries = []
    for r in range(rows):
        length = lengths[(r // 3) % len(lengths)] if r % 3 == 0 else rng.choice([0, 1, 3, 5, 12])
        entries += random_row(rng, r, length, cols)
    write(folder, "irregular_rows.mtx",
          mtx_text(rows, cols, entries, "Row lengths 0..600 around warp, block and chunk sizes, mixed with short rows."))

    # Each row its own power of ten: a tolerance tied to the data's scale fails
    # here. Not below 1e-20: near 1e-30 the check's absolute slack (atol)
    # would be as large as the terms and hide a wrong one.
    n = 200
    entries = []
    for r in range(n):
        entries += random_row(rng, r, rng.randrange(1, 20), n, scale=10.0 ** rng.randrange(-20, 21))
    write(folder, "scaled_rows.mtx",
          mtx_text(n, n, entries, "Rows scaled from 1e-20 to 1e20: correctness must not depend on magnitude."))

    n = 1000
    entries = []
    for r in range(n):
        for c in sorted(rng.sample(range(max(0, r - 6), min(n, r + 7)), rng.randrange(1, 8))):
            entries.append((r, c, rng.choice([-9, -5, -3, -2, -1, 1, 2, 3, 5, 9])))
    write(folder, "integer_band.mtx.gz",
          mtx_text(n, n, entries, "Banded matrix of small integers, gzip-compressed.", field="integer"))

    # Stored zeros count as entries: rows of only zeros must give exactly 0.
    n = 20
    entries = []
    for r in range(n):
        row = random_row(rng, r, rng.randrange(1, 6), n)
        if r % 4 == 1:
            row = [(rr, c, 0.0) for rr, c, _ in row]
        elif r % 4 == 2:
            row[0] = (row[0][0], row[0][1], 0.0)
        entries += row
    write(folder, "explicit_zeros.mtx",
          mtx_text(n, n, entries, "Explicit zeros are kept as entries; rows 1, 5, 9, ... hold only zeros."))

    # Duplicate (row, col) pairs are summed when read.
    n = 30
    entries = []
    for r in range(n):
        row = random_row(rng, r, rng.randrange(2, 8), n)
        entries += row + [row[0], row[-1]]
    rng.shuffle(entries)
    write(folder, "duplicates_shuffled.mtx",
          mtx_text(n, n, entries, "Entries in random order with duplicates, which are summed when read."))


# --- edge -------------------------------------------------------------------

def edge_cases():
    rng = random.Random(77001)
    folder = "edge"

    write(folder, "no_entries.mtx", mtx_text(6, 9, [], "6 x 9 without a single entry: y must be all zeros."))
    write(folder, "one_by_one.mtx", mtx_text(1, 1, [(0, 0, -0.75)], "The smallest matrix with an entry."))
    write(folder, "one_row.mtx",
          mtx_text(1, 300, random_row(rng, 0, 200, 300), "A single row of 200 entries (one row, many threads)."))

    entries = [(r, 0, value(rng)) for r in sorted(rng.sample(range(300), 180))]
    write(folder, "one_column.mtx", mtx_text(300, 1, entries, "A single column; 120 of the 300 rows are empty."))

    write(folder, "single_nonempty_row.mtx",
          mtx_text(500, 500, random_row(rng, 313, 40, 500), "Only row 313 has entries; 499 rows are empty."))

    n = 300
    entries = []
    for r in range(n):
        columns = range(n) if r == 0 else sorted({0, r})
        entries += [(r, c, value(rng)) for c in columns]
    write(folder, "arrow_dense_row.mtx",
          mtx_text(n, n, entries, "Arrow: row 0 and column 0 dense, plus the diagonal."))

    entries = []
    for r in range(1000):
        entries += random_row(rng, r, rng.randrange(0, 4), 3)
    write(folder, "tall_thin.mtx", mtx_text(1000, 3, entries, "1000 x 3: many rows, at most 3 entries each."))

    entries = []
    for r in range(3):
        entries += random_row(rng, r, 1000 + 200 * r, 2000)
    write(folder, "short_wide.mtx", mtx_text(3, 2000, entries, "3 x 2000: three rows of 1000 to 1400 entries."))


if __name__ == "__main__":
    public_cases()
    edge_cases()
