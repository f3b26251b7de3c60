#!/usr/bin/env python3
"""The autograder's gpu-host/host.ini, read by the grader's one INI reader
(spmv-grade --show-ini host, its keys declared there; no GPU, no sshd).

Usage: test_host_ini.py SOURCE_DIR WORK_DIR SPMV_GRADE

Random host names, users and ports written with comments wherever the one
comment rule allows (';' or '#' at the start of a line or after a blank)
and with '#' and ';' inside values where the rule keeps them, are read
back as written, each key with the line it was written on (for
tools/make-gradescope-autograder's messages), the optional keys' defaults
filled in; a malformed file is refused in the one form of the grader's INI
errors: "FILE:LINE: key "K": expected ..., found ...".
"""
import random
import shutil
import string
import sys
from pathlib import Path

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def word(rng, extra=""):
    return "".join(rng.choice(string.ascii_letters + string.digits + "._-" + extra) for _ in range(rng.randint(1, 12)))


def comment(rng):
    return rng.choice(["", f" # {word(rng)}", f"\t; {word(rng)}", " ;", " #"])


def main():
    source, work, grader = (Path(a).resolve() for a in sys.argv[1:4])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    sys.path.insert(0, str(source / "tools/gradescope"))
    import autograder  # noqa: E402 (the module under test, found through the source folder)

    rng = random.Random()
    seed = rng.randrange(2**32)
    rng.seed(seed)
    print("seed", seed)
    for _ in range(100):
        # The first character is a letter so that no '#' or ';' follows a blank.
        written = {"host": rng.choice(string.ascii_letters) + word(rng, "#;"),
                   "user": rng.choice(string.ascii_letters) + word(rng, "#;"),
                   "port": str(rng.randint(1, 65535))}
        if rng.random() < 0.5:
            written["timeout"] = str(rng.randint(1, 5000))
        lines = [rng.choice(["", "# the course's GPU host", "; set up by the staff", "   # indented"]),
                 "[gpu-host]" + comment(rng)]
        key_lines = {}
        for key, value in rng.sample(sorted(written.items()), len(written)):
            if rng.random() < 0.3:
                lines.append(rng.choice(["# " + word(rng), "; " + word(rng), ""]))
            lines.append(f"{key}{rng.choice(['', ' ', '  '])}={rng.choice(['', ' ', chr(9)])}{value}{comment(rng)}")
            key_lines[key] = len(lines)
        (work / "host.ini").write_text("\n".join(lines) + "\n")
        read = autograder.read_host_config(work, grader)
        expected = {"port": "22", "timeout": "1800", **written}
        check(read == expected, f"seed {seed}: read {read}, written {written}:\n" + "\n".join(lines))
        parsed = autograder.show_ini(grader, "host", work / "host.ini")
        got_lines = {k["name"]: k["line"] for s in parsed["sections"] if s["name"] == "gpu-host" for k in s["keys"]}
        check(got_lines == key_lines, f"seed {seed}: key lines {got_lines}, written on {key_lines}")

    path = work / "host.ini"
    refused = [
        ("host = a\nuser = b\n", 1, 'key "host": expected under [gpu-host]'),
        ("[gpu-host]\nhost = a\nuser = b\nhost = c\n", 4, 'key "host" is already set'),
        ("# GPU host\n[gpu-host]\nhost = a\njust words\nuser = b\n", 4, 'found "just words"'),
        ("[gpu-host]\nhost = a\n\n[gpu-host]\nuser = b\n", 4, "[gpu-host] is already defined"),
        ("[gpu-host]\nhost = a\nuser = b\nport = 70000\n", 4,
         'key "port": expected a whole number from 1 to 65535, found "70000"'),
        ("[gpu-host]\nhost = a\nuser = b\ntimeout = soon # s\n", 4, 'key "timeout": expected a whole number'),
        ("[gpu-host]\nhost = a\nusr = b\n", 3, 'key "usr": expected one of host, user, port'),
        ("[gpu-host]\nhost = a\n", 1, 'key "user": expected in [gpu-host]'),
        ("[gpu-host]\nhost = a\nuser = b\n[other]\n", 4, "expected only [gpu-host], found [other]"),
    ]
    for text, line, says in refused:
        path.write_text(text)
        try:
            autograder.read_host_config(work, grader)
            check(False, f"accepted:\n{text}")
        except autograder.Refused as error:
            message = str(error)
            check(message.startswith(f"{path}:{line}: ") and says in message,
                  f"{message!r} is not {path}:{line}: ...{says}...")
    (work / "host.ini").unlink()
    check(autograder.read_host_config(work, grader) is None, "no host.ini is no GPU host")

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
