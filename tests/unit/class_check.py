#!/usr/bin/env python3
"""Checks of tools/make-class: the same seed makes the same bytes and
another seed another class; every kind is there in the shares the tool
states; each student's files are what the manifest says (kernels compared
with their sources, stubs with student/, the broken line, faults unlike
every honest kernel and labelled as the GPU fakes are); names are unique,
some with a space; the cases are copies of their folders and the seed is
private; a folder that exists is refused. No CUDA is compiled. Usage:
class_check.py"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "make-class"
KERNELS = ("coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds")
KINDS = ("honest", "reference", "partial", "stub", "no_build", "faulty")
WRITTEN = ROOT / "tests/similarity/submissions"


def check(condition, what):
    if not condition:
        sys.exit(f"FAILED: {what}")
    print(f"ok: {what}")


def make(folder: Path, *options):
    made = subprocess.run([str(TOOL), str(folder), *options], capture_output=True, text=True)
    check(made.returncode == 0, f"make-class {' '.join(options)} makes a class {made.stderr.strip()}".strip())


def tree(folder: Path):
    """relative path -> (bytes, permission bits) of every file under folder."""
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mode & 0o777)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def fake_labels():
    """fault -> label, from the GPU fakes' list (tests/gpu/faults/CMakeLists.txt)."""
    text = (ROOT / "tests/gpu/faults/CMakeLists.txt").read_text()
    listed = re.search(r"set\(SPMV_GPU_FAKES(.*?)\)", text, re.DOTALL).group(1)
    return dict(pair.split(":") for pair in listed.split())


def check_class(folder: Path, students: int):
    """The students of a made class against its manifest; returns the manifest."""
    manifest = json.loads((folder / "manifest.json").read_text())
    entries = manifest["students"]
    submissions = folder / "submissions"
    names = sorted(p.name for p in submissions.iterdir())
    check(len(names) == students and names == [e["name"] for e in entries],
          f"{students} folders, one per student of the manifest, in its order")
    counts = {kind: sum(e["kind"] == kind for e in entries) for kind in KINDS}
    check(counts == manifest["kinds"] and all(counts.values()), f"every kind is there: {counts}")
    check(any(" " in name for name in names), "a name holds a space")
    plugin_names = {re.sub(r"[^a-z0-9_]", "_", name.lower()) for name in names}
    check(len(plugin_names) == students, "names stay unique as plugin names, whatever their case")
    check(all(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9 ._-]*", name) for name in names), "names are filesystem-safe")
    template = tree(ROOT / "student")
    check(all(set(template) <= set(tree(submissions / name)) for name in names), "every folder has student/'s files")
    honest_files = {p.read_bytes() for p in [*WRITTEN.glob("*/*.cu"), *(ROOT / "reference").glob("*.cu"),
                                              *(ROOT / "student").glob("*.cu")]}
    labels = fake_labels()
    mixtures, problems, fault_texts = [], [], {}

    # Per student, the failures only: a class of 200 would print thousands of lines.
    def expect(condition, what):
        if not condition:
            problems.append(what)

    for entry in entries:
        name, kind, own = entry["name"], entry["kind"], submissions / entry["name"]
        for kernel in KERNELS:
            listed = entry["kernels"][kernel]
            text = (own / f"{kernel}.cu").read_bytes()
            if listed["source"] is not None:
                source = (ROOT / listed["source"]).read_bytes()
                if entry["broken_file"] == f"{kernel}.cu":
                    source += b"this line is not C++\n"
                expect(text == source, f"{name}'s {kernel} is {listed['source']}")
        stubs = [k for k in KERNELS if entry["kernels"][k]["source"] == f"student/{k}.cu"]
        expect(stubs == entry["stubs"], f"{name}'s stubs are the ones listed: {stubs}")
        expect(all((own / f"{k}.cu").read_bytes() == (ROOT / "student" / f"{k}.cu").read_bytes() for k in stubs),
               f"{name}'s stubs are student/'s")
        expected = {k: entry["kernels"][k]["expected"] for k in KERNELS}
        if kind == "no_build":
            expect(entry["status"] == "build_failed" and set(expected.values()) == {"build_error"},
                   f"{name} is expected not to build")
            expect((own / entry["broken_file"]).read_text().endswith("this line is not C++\n"),
                   f"{name}'s {entry['broken_file']} ends in a line that is not C++")
        else:
            expect(entry["status"] == "graded" and entry["broken_file"] is None and
                   all(b"this line is not C++" not in (own / f"{k}.cu").read_bytes() for k in KERNELS),
                   f"{name} ({kind}) is expected to build")
            expect(all(expected[k] == "not_implemented" for k in stubs), f"{name}'s stubs are expected not implemented")
        if kind in ("honest", "partial", "no_build", "faulty"):
            written = [entry["kernels"][k]["source"] for k in KERNELS if k not in stubs]
            expect(all(s is None or s.startswith("tests/similarity/submissions/") for s in written),
                   f"{name}'s kernels are written ones or stubs")
        if kind == "honest":
            expect(not stubs and entry["fault"] is None, f"{name} is complete and without fault")
            mixtures.append(tuple(entry["kernels"][k]["source"] for k in KERNELS))
        elif kind == "partial":
            expect(0 < len(stubs) < len(KERNELS), f"{name} has some stubs, not all: {stubs}")
        elif kind == "stub":
            expect(stubs == list(KERNELS), f"{name} is all stubs")
        elif kind == "reference":
            expect(all(entry["kernels"][k]["source"] == f"reference/{k}.cu" and expected[k] == "pass" for k in KERNELS),
                   f"{name}'s kernels are the reference's, expected to pass")
            expect((own / "common.cuh").is_file() and
                   (own / "common.cuh").read_bytes() == (ROOT / "reference/common.cuh").read_bytes(),
                   f"{name} has the header the reference's kernels include")
        fault = entry["fault"]
        expect((fault is not None) == (kind == "faulty"), f"{name} ({kind}) has a fault only if faulty")
        if fault is not None:
            kernel = fault["kernel"]
            faulty = (own / f"{kernel}.cu").read_bytes()
            fault_texts.setdefault(fault["fault"], set()).add(faulty)
            expect(entry["kernels"][kernel]["source"] is None and faulty not in honest_files,
                   f"{name}'s {kernel} differs from every honest, reference and stub kernel")
            expect(labels.get(fault["fault"]) == fault["label"] == expected[kernel],
                   f"{name}'s {fault['fault']} is expected as the GPU fakes label it: {fault['label']}")
            expect(fault["label"] != "timeout", f"{name}'s {fault['fault']} ends by itself")
            expect(f"spmv_{kernel}(" in (own / f"{kernel}.cu").read_text(), f"{name}'s {kernel} defines the kernel")
    check(not problems, f"each of the {students} students is what the manifest says" +
          "".join(f"\n  {problem}" for problem in problems[:20]))
    texts = [text for texts in fault_texts.values() for text in texts]
    check(len(texts) == len(set(texts)) == len(fault_texts),
          f"one kernel text per fault, each its own: {sorted(fault_texts)}")
    check(len(set(mixtures)) == len(mixtures), f"no two honest students hand in the same files ({len(mixtures)})")
    return manifest


with tempfile.TemporaryDirectory() as scratch:
    scratch = Path(scratch)
    make(scratch / "a", "--students", "24", "--seed", "5", "--cases", "public+hidden")
    make(scratch / "b", "--students", "24", "--seed", "5", "--cases", "public+hidden")
    first = tree(scratch / "a")
    check(first == tree(scratch / "b"), f"the same seed makes the same {len(first)} files, byte for byte")
    make(scratch / "c", "--students", "24", "--seed", "6", "--cases", "public+hidden")
    check(tree(scratch / "c") != first and (scratch / "c/manifest.json").read_bytes() !=
          (scratch / "a/manifest.json").read_bytes(), "another seed makes another class")

    manifest = check_class(scratch / "a", 24)
    check(manifest["cases"] == ["cases/public", "cases/hidden"], f"two case folders: {manifest['cases']}")
    check(tree(scratch / "a/cases/public") == tree(ROOT / "testcases/public"), "cases/public is testcases/public")
    check(tree(scratch / "a/cases/hidden") == tree(ROOT / "testcases/hidden.example"),
          "cases/hidden is testcases/hidden.example")
    seed = scratch / "a/seed"
    check(seed.stat().st_mode & 0o077 == 0 and seed.read_text().strip(),
          "the seed is there, readable by its owner only")
    check((scratch / "c/seed").read_bytes() != seed.read_bytes(), "another seed, another secret")

    make(scratch / "large", "--students", "200", "--seed", "1")
    manifest = check_class(scratch / "large", 200)
    check(manifest["kinds"] == {"honest": 100, "reference": 10, "partial": 40, "stub": 10, "no_build": 10,
                                "faulty": 30}, f"200 students in the stated shares: {manifest['kinds']}")
    faults = {e["fault"]["fault"] for e in manifest["students"] if e["fault"]}
    check(len(faults) == 11, f"30 faulty students carry all eleven faults: {sorted(faults)}")
    check(manifest["cases"] == ["cases/public"] and not (scratch / "large/cases/hidden").exists(),
          "by default the public cases only")

    make(scratch / "small", "--students", "6", "--seed", "2")
    check_class(scratch / "small", 6)

    again = subprocess.run([str(TOOL), str(scratch / "a"), "--students", "3"], capture_output=True, text=True)
    check(again.returncode != 0 and "exists already" in again.stderr, "a folder that exists is refused")
