#!/usr/bin/env python3
"""Checks the layering of spmv-grade's sources (grader/app).

Usage: check_app_layers.py APP_DIR

APP_DIR/layers.txt lists the rooms of APP_DIR/src (its folders), one a line,
from the top down. Fails, naming the file, the line and the include, on:

- an include of a room's header ("room/file.hpp") in a file of a room
  below it in the list: a file includes its own room and those below only,
  so no two rooms include each other;
- a folder of src that layers.txt does not list, or a room it lists that is
  not there;
- a source file of APP_DIR (any folder) over 500 lines.
"""
import os
import re
import sys

MAX_LINES = 500
SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cu", ".cuh", ".in")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]+"')


def read_layers(path):
    layers = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            name = line.split("#", 1)[0].strip()
            if name:
                layers.append(name)
    return layers


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    app = argv[1]
    src = os.path.join(app, "src")
    layers = read_layers(os.path.join(app, "layers.txt"))
    rank = {name: i for i, name in enumerate(layers)}
    problems = []
    folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    for folder in folders:
        if folder not in rank:
            problems.append(f"src/{folder}/: a folder layers.txt does not list")
    for name in layers:
        if name not in folders:
            problems.append(f"layers.txt lists {name}, which is not a folder of src/")
    for root, _, files in os.walk(app):
        for file in sorted(files):
            if not file.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(root, file)
            shown = os.path.relpath(path, app)
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            if len(lines) > MAX_LINES:
                problems.append(f"{shown}: {len(lines)} lines, over {MAX_LINES}")
            relative = os.path.relpath(path, src)
            room = relative.split(os.sep)[0] if os.sep in relative and not relative.startswith("..") else None
            if room not in rank:
                continue
            for number, line in enumerate(lines, 1):
                match = INCLUDE.match(line)
                if not match or match.group(1) not in rank:
                    continue
                target = match.group(1)
                if rank[target] < rank[room]:
                    problems.append(f"{shown}:{number}: {line.strip()}: {room}/ includes {target}/, a room above it")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problems; the rooms, top first: {' > '.join(layers)}")
        return 1
    print(f"grader/app: every include goes down ({' > '.join(layers)}); no source file over {MAX_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
