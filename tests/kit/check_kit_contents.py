#!/usr/bin/env python3
"""Checks that an unpacked student kit holds no solution.

    check_kit_contents.py REPOSITORY KIT

- No file of the denied paths: reference/, tuning constants, the per-format
  CPU product (cpu_spmv), the host-path walkers and plugin source, the fake
  submissions, docs/performance.md (how the reference kernels are built).
- No run of RUN consecutive lines of those files anywhere in the kit,
  prebuilt plugins included (lines compared with spaces collapsed, lines
  under MIN_LINE characters such as a lone brace, and preprocessor lines
  such as includes, left out), unless
  student/ or contract/ have the run too, which the kit ships on purpose (a
  launch signature). So a reference kernel body pasted into another file is
  found, while a single line that the grader's own code shares with a
  solution (`const auto rows = static_cast<std::size_t>(a.rows);`) is not.
- The prebuilt reference plugin: machine code for sm_80 and sm_90 and PTX
  for compute_90; the CUDA runtime linked in (no libcudart dependency); no
  debug sections; spmv_plugin_entry its only export. The host reference: the
  same but the CUDA parts.

Prints each problem and exits 1 when there is one.
"""

import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import fatbin_contents  # noqa: E402

MIN_LINE = 12
RUN = 4

DENIED_PATHS = [
    r"^reference/",
    r"(^|/)tuning\.hpp$",
    r"(^|/)cpu_spmv(\.(cpp|hpp)$|/)",
    r"^grader/hostpath/",
    r"(^|/)host_terms\.hpp$",
    r"(^|/)host_plugin\.cpp$",
    r"(^|/)faults/",
    r"(^|/)fault_plugin\.cu$",
    r"^docs/performance\.md$",
    r"^cmake/StudentKit",
]

# Files of the repository whose lines must not reach a kit.
SOLUTION_FILES = [
    "reference/*",
    "reference/include/spmv/reference/*",
    "grader/core/src/cpu_spmv/*",
    "grader/hostpath/src/*",
    "tests/gpu/faults/fault_plugin.cu",
]
# Files the kit ships on purpose: lines they share with the above are fine.
SHIPPED_INTERFACE = ["student/*", "contract/include/spmv/contract/*", "contract/src/*"]


def text_lines(text):
    """The lines that count, spaces collapsed, in order."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return [line for line in lines if len(line) >= MIN_LINE and not line.startswith("#")]


def runs(lines):
    return {tuple(lines[i:i + RUN]) for i in range(len(lines) - RUN + 1)}


def runs_of(root, patterns):
    found = set()
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            if path.is_file():
                found |= runs(text_lines(path.read_text(errors="replace")))
    return found


def solution_runs(repository):
    return runs_of(repository, SOLUTION_FILES) - runs_of(repository, SHIPPED_INTERFACE)


def binary_holds(data, run):
    """A run's lines all in a binary's bytes (source text compiled in)."""
    return all(line.encode() in data for line in run)


def tool_output(*command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def check_plugin(path, problems, device):
    if not path.is_file():
        problems.append(f"{path}: missing")
        return
    exports = tool_output("nm", "-D", "--defined-only", str(path)).split()
    exported = [word for word in exports if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", word) and len(word) > 1]
    if exported != ["spmv_plugin_entry"]:
        problems.append(f"{path.name}: exports {exported}, expected spmv_plugin_entry only")
    sections = tool_output("readelf", "-S", "-W", str(path))
    if ".debug_" in sections:
        problems.append(f"{path.name}: has debug sections (the kit strips them)")
    if not device:
        return
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", tool_output("readelf", "-d", "-W", str(path)))
    if any(library.startswith("libcudart") for library in needed):
        problems.append(f"{path.name}: needs {needed}: the CUDA runtime must be linked in")
    fatbin = fatbin_contents.section(path.read_bytes(), ".nv_fatbin")
    held = set() if fatbin is None else set(fatbin_contents.images(fatbin))
    for wanted in [("elf", 80), ("elf", 90), ("ptx", 90)]:
        if wanted not in held:
            problems.append(f"{path.name}: no {wanted[0]} image for {wanted[1]} (holds {sorted(held)})")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    repository, kit = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    problems = []
    files = sorted(path for path in kit.rglob("*") if path.is_file())
    if not files:
        problems.append(f"{kit}: empty")
    for path in files:
        relative = path.relative_to(kit).as_posix()
        for regex in DENIED_PATHS:
            if re.search(regex, relative):
                problems.append(f"{relative}: no kit may hold this file ({regex})")

    forbidden = solution_runs(repository)
    if len(forbidden) < 100:
        problems.append(f"only {len(forbidden)} runs of solution lines in {repository}: is it the repository?")
    for path in files:
        relative = path.relative_to(kit).as_posix()
        if path.suffix == ".so":
            data = path.read_bytes()
            found = sorted(run for run in forbidden if binary_holds(data, run))
        else:
            found = sorted(runs(text_lines(path.read_text(errors="replace"))) & forbidden)
        for run in found[:3]:
            problems.append(f"{relative}: holds lines of the solutions: " + " / ".join(run))

    check_plugin(kit / "prebuilt/libspmv_reference.so", problems, device=True)
    check_plugin(kit / "prebuilt/libspmv_host_reference.so", problems, device=False)

    for problem in problems:
        print(f"kit: {problem}")
    print(f"kit: {len(files)} files checked against {len(forbidden)} runs of solution lines: "
          f"{len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
