#!/usr/bin/env python3
"""Checks docs/architecture.md's list of the files to touch to add a format.

Usage: check_adding_a_format.py SOURCE_DIR

The list is the table of the section "Adding a format" whose header begins
"| part | file |"; its file column names each file by its path from the
repository's root in backticks, `fmt` standing for the new format. The list
is checked against the tree with jds for fmt (a format with a student
kernel, as the list's fmt is). Fails, naming each problem, when:

- a file the list names does not exist;
- a file it names that is not named after the format (a shared file) does
  not mention jds, so it holds no line of a format;
- a file of the production code (not tests/, docs/, testcases/ or the
  top-level README.md) not named after jds mentions jds and is not in the
  list: adding a format would have to touch it, unlisted. EXAMPLES lists
  the few that name jds only as an example;
- the list names more than MAX_FILES files, or the sentence before it
  ("these N files") counts otherwise.
"""
import os
import re
import subprocess
import sys

FORMAT = "jds"
MAX_FILES = 15
# Files that name jds as an example, not as one format of a list.
EXAMPLES = {
    "grader/bench/spmv_bench/test_spmv_bench.cpp": "the bench's kernel selection tried on a JDS kernel",
    "tools/make-class-of-ten": "a made-up student who leaves the coo, ell and jds stubs",
}
NOT_PRODUCTION = ("tests/", "docs/", "testcases/")
TABLE_HEADER = re.compile(r"^\|\s*part\s*\|\s*file\s*\|")
COUNT_SENTENCE = re.compile(r"these (\d+) files")


def listed_files(architecture):
    """The paths of the list's file column, and the count its sentence gives."""
    with open(architecture, encoding="utf-8") as f:
        text = f.read()
    start = text.find("\n## Adding a format\n")
    if start < 0:
        sys.exit(f"{architecture}: no section '## Adding a format'")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else len(text)]
    lines = section.splitlines()
    header = next((i for i, line in enumerate(lines) if TABLE_HEADER.match(line)), None)
    if header is None:
        sys.exit(f"{architecture}: the section 'Adding a format' has no table beginning '| part | file |'")
    paths = []
    for line in lines[header + 2:]:
        if not line.startswith("|"):
            break
        cells = line.split("|")
        if len(cells) < 4:
            sys.exit(f"{architecture}: a row of the list has no file column: {line}")
        names = re.findall(r"`([^`]+)`", cells[2])
        if not names:
            sys.exit(f"{architecture}: a row of the list names no file: {line}")
        paths.extend(names)
    counted = COUNT_SENTENCE.findall(section[:section.find(lines[header])])
    return paths, int(counted[-1]) if counted else None


def tree_files(source_dir):
    """The files of the tree: git's (tracked, and untracked ones it does not ignore), else every file."""
    try:
        out = subprocess.run(["git", "-C", source_dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout
        return sorted({p for p in out.decode().split("\0") if p and os.path.isfile(os.path.join(source_dir, p))})
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder, subfolders, names in os.walk(source_dir):
            subfolders[:] = [d for d in subfolders if not d.startswith(".")
                             and not os.path.exists(os.path.join(folder, d, "CMakeCache.txt"))]
            files.extend(os.path.relpath(os.path.join(folder, n), source_dir) for n in names)
        return sorted(files)


def mentions_format(path):
    with open(path, "rb") as f:
        return FORMAT.encode() in f.read().lower()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    source_dir = sys.argv[1]
    paths, counted = listed_files(os.path.join(source_dir, "docs/architecture.md"))
    problems = []
    listed = set()
    for path in paths:
        if "/" not in path and "." not in path:
            problems.append(f"`{path}`: not a path from the repository's root")
            continue
        real = re.sub(r"\bfmt\b", FORMAT, path)
        listed.add(real)
        where = os.path.join(source_dir, real)
        if not os.path.isfile(where):
            problems.append(f"{real} (listed as `{path}`): no such file")
        elif real == path and not mentions_format(where):
            problems.append(f"{path}: listed as a file that holds a line of each format, but it does not "
                            f"mention {FORMAT}")
    if len(listed) > MAX_FILES:
        problems.append(f"the list names {len(listed)} files; adding a format should touch at most {MAX_FILES}")
    if counted is not None and counted != len(listed):
        problems.append(f"the text says 'these {counted} files', the list names {len(listed)}")

    for path in tree_files(source_dir):
        if path.startswith(NOT_PRODUCTION) or path == "README.md" or FORMAT in os.path.basename(path).lower():
            continue
        if path in listed or path in EXAMPLES:
            continue
        if mentions_format(os.path.join(source_dir, path)):
            problems.append(f"{path} mentions {FORMAT} but is not in the list: add it (and the line of a format "
                            f"it holds) to 'Adding a format', or take the format from the catalog there")
    for path in EXAMPLES:
        if not os.path.isfile(os.path.join(source_dir, path)):
            problems.append(f"{path}: in EXAMPLES of {os.path.basename(__file__)}, but no such file")

    for problem in problems:
        print(f"docs/architecture.md, Adding a format: {problem}")
    if problems:
        return 1
    print(f"the list of 'Adding a format' ({len(listed)} files) matches the tree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
