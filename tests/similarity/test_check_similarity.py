#!/usr/bin/env python3
"""tools/check-similarity on a synthetic class (submissions/ beside this file),
against the repository's reference/ with student/ as the starter code:

- alice, bob, carol wrote all six kernels independently: no pair of them,
  and none of them with the reference, may be flagged;
- dave handed in alice's csr_vector with every identifier renamed and the
  comments rewritten (his other kernels are the stubs): alice and dave are
  flagged, on csr_vector.cu;
- eve handed in the reference csr_vector with renamed identifiers, changed
  comments, its body in a macro and its functions reordered: flagged
  against the reference, first of the reference's pairs, and on the
  preprocessed view (the macro hides the body from the code as written);
- frank and grace handed in the stubs untouched: starter code matches
  nothing;
- a copy of bob's files under a hostile folder name, with a hostile
  comment: flagged with bob, and every name and line escaped in the report
  (and not read as a formula in the CSV).

Files missing from a submission folder here are the stubs of student/.

    test_check_similarity.py REPOSITORY WORK_DIR
"""

import csv
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import unittest

KERNELS = ["coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"]
INDEPENDENT = {"alice", "bob", "carol"}
STARTER_ONLY = {"frank", "grace"}
HOSTILE_NAME = '=<img src=x onerror=alert(1)>&"'
HOSTILE_COMMENT = "// </pre><script>alert(1)</script>\n"

REPOSITORY = pathlib.Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else None
WORK = pathlib.Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else None


def make_class(submissions):
    here = pathlib.Path(__file__).resolve().parent / "submissions"
    students = sorted(p.name for p in here.iterdir() if p.is_dir()) + sorted(STARTER_ONLY)
    for name in students:
        folder = submissions / name
        folder.mkdir(parents=True)
        for kernel in KERNELS:
            written = here / name / f"{kernel}.cu"
            shutil.copy(written if written.exists() else REPOSITORY / "student" / f"{kernel}.cu", folder)
    hostile = submissions / HOSTILE_NAME
    shutil.copytree(submissions / "bob", hostile)
    ell = hostile / "ell.cu"
    ell.write_text(HOSTILE_COMMENT + ell.read_text())


class CheckSimilarity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        submissions = WORK / "submissions"
        make_class(submissions)
        cls.output = WORK / "report"
        run = subprocess.run([str(REPOSITORY / "tools" / "check-similarity"), str(submissions),
                              "--output", str(cls.output)], capture_output=True, text=True)
        print(run.stdout + run.stderr)
        cls.stdout = run.stdout
        if run.returncode != 0:
            raise AssertionError(f"check-similarity exited {run.returncode}")
        with open(cls.output / "submissions.csv", newline="", encoding="utf-8") as f:
            cls.closest = {r["submission"]: r for r in csv.DictReader(f)}
        with open(cls.output / "pairs.csv", newline="", encoding="utf-8") as f:
            cls.rows = list(csv.DictReader(f))
        cls.html = (cls.output / "report.html").read_text(encoding="utf-8")

    def flagged(self, level, a, b, file=None):
        return [r for r in self.rows if r["level"] == level and {r["a"], r["b"]} == {a, b}
                and (file is None or file in (r["file_a"], r["file_b"]))]

    def test_shared_kernel_is_flagged(self):
        self.assertTrue(self.flagged("submission", "alice", "dave"), self.rows)
        self.assertTrue(self.flagged("file", "alice", "dave", "csr_vector.cu"), self.rows)

    def test_disguised_reference_is_flagged_first(self):
        reference_rows = [r for r in self.rows if r["level"] == "file" and "reference" in (r["a"], r["b"])]
        self.assertTrue(reference_rows, "no pair with the reference flagged")
        first = reference_rows[0]
        self.assertEqual((first["a"], first["file_a"], first["file_b"]), ("eve", "csr_vector.cu", "csr_vector.cu"))
        self.assertEqual(first["view"], "preprocessed")
        self.assertTrue(self.flagged("submission", "eve", "reference"))

    def test_independent_kernels_stay_under(self):
        for row in self.rows:
            pair = {row["a"], row["b"]}
            self.assertFalse(pair <= INDEPENDENT | {"reference"} and pair & INDEPENDENT, f"false pair: {row}")

    def test_starter_code_alone_matches_nothing(self):
        for row in self.rows:
            self.assertFalse({row["a"], row["b"]} & STARTER_ONLY, f"starter code flagged: {row}")

    def test_hostile_names_are_escaped(self):
        self.assertTrue(self.flagged("submission", "bob", "'" + HOSTILE_NAME), self.rows)
        self.assertNotIn("<img src=x", self.html)
        self.assertNotIn("<script>", self.html)
        self.assertIn("&lt;img src=x onerror=alert(1)&gt;&amp;&quot;", self.html)
        self.assertIn("&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;", self.html)

    def test_pairs_ranked_with_the_reference_first(self):
        # stdout and the report list submission pairs (not file pairs), matches with the reference first.
        printed = [line.split() for line in self.stdout.splitlines() if re.match(r"^\d\.\d{3}  ", line)]
        self.assertEqual(len(printed), len([r for r in self.rows if r["level"] == "submission"]), self.stdout)
        self.assertEqual(printed[0][1:3], ["eve", "reference"], self.stdout)
        table = re.findall(r'<tr class="flagged" data-with="(\w+)">', self.html)
        self.assertEqual(table[0], "reference", table)
        self.assertEqual(sorted(table, key=lambda kind: kind != "reference"), table)

    def test_closest_sources_per_submission(self):
        # Every submission's best match with the reference and with a classmate, flagged or not.
        # A name a spreadsheet would run as a formula is quoted, as in pairs.csv.
        unquoted = {name[1:] if name.startswith("'=") else name for name in self.closest}
        self.assertEqual(unquoted, set(p.name for p in (WORK / "submissions").iterdir()))
        self.assertEqual(self.closest["eve"]["reference_flagged"], "yes")
        self.assertGreater(float(self.closest["eve"]["reference_similarity"]), 0.5)
        self.assertEqual(self.closest["dave"]["classmate"], "alice")
        self.assertEqual(self.closest["dave"]["classmate_flagged"], "yes")
        self.assertLess(float(self.closest["carol"]["classmate_similarity"]), 0.5)
        self.assertEqual(self.closest["carol"]["classmate_flagged"], "")

    def test_wrong_folders_are_errors(self):
        tool = str(REPOSITORY / "tools" / "check-similarity")
        empty = WORK / "empty"
        empty.mkdir(exist_ok=True)
        no_code = WORK / "no-code"
        (no_code / "alice").mkdir(parents=True, exist_ok=True)
        (no_code / "alice" / "notes.txt").write_text("no kernel here\n")
        for folder, said in ((empty, "no submission folder"), (WORK / "submissions" / "alice", "holds code files"),
                             (no_code, "nothing to compare"), (WORK / "missing", "not a folder")):
            run = subprocess.run([tool, str(folder), "--output", str(WORK / "wrong")], capture_output=True, text=True)
            self.assertEqual(run.returncode, 2, f"{folder}: {run.stdout}{run.stderr}")
            self.assertIn(said, run.stderr)
            self.assertNotIn("Traceback", run.stderr)
            self.assertNotIn("flagged", run.stdout)
        self.assertFalse((WORK / "wrong").exists())

    def test_report_shows_regions_side_by_side(self):
        self.assertIn('<div class="side">', self.html)
        self.assertIn("<mark>", self.html)


def pypi_unreachable():
    """Why copydetect cannot be installed here, or None: check-similarity
    installs it from PyPI into its venv on first use."""
    venv = pathlib.Path(os.environ.get("SPMV_SIMILARITY_VENV", REPOSITORY / ".cache" / "check-similarity-venv"))
    if (venv / "requirements.sha256").exists() or os.environ.get("PIP_INDEX_URL"):
        return None
    try:
        socket.create_connection(("pypi.org", 443), timeout=10).close()
        return None
    except OSError as error:
        return f"copydetect is not installed in {venv} and PyPI cannot be reached ({error})"


if __name__ == "__main__":
    if REPOSITORY is None or WORK is None:
        sys.exit(__doc__)
    why = pypi_unreachable()
    if why:
        print(f"similarity.check_similarity: skipped: {why}")
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], "-v"])
