#!/usr/bin/env python3
"""The autograder's gpu-host/host.ini, read by configparser in the grader's
INI dialect (no GPU, no sshd).

Usage: test_host_ini.py SOURCE_DIR WORK_DIR

Random host names, users and ports written with comments wherever the one
comment rule allows (';' or '#' at the start of a line or after a blank)
and with '#' and ';' inside values where the rule keeps them, are read
back as written, each key with the line it was written on (for
tools/make-gradescope-autograder's messages); a malformed file is refused
naming the file and the line.
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
    source, work = (Path(a).resolve() for a in sys.argv[1:3])
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
        read = autograder.read_host_config(work)
        check(read == written, f"seed {seed}: read {read}, written {written}:\n" + "\n".join(lines))
        parsed = autograder.HostIni(work / "host.ini")
        got_lines = {key: parsed.key_line("gpu-host", key) for key in written}
        check(got_lines == key_lines, f"seed {seed}: key lines {got_lines}, written on {key_lines}")

    refused = [
        ("host = a\nuser = b\n", 1, "no section"),
        ("[gpu-host]\nhost = a\nuser = b\nhost = c\n", 4, "'host'"),
        ("# GPU host\n[gpu-host]\nhost = a\njust words\nuser = b\n", 4, "just words"),
        ("[gpu-host]\nhost = a\n\n[gpu-host]\nuser = b\n", 4, "gpu-host"),
    ]
    for text, line, says in refused:
        (work / "host.ini").write_text(text)
        try:
            autograder.read_host_config(work)
            check(False, f"accepted:\n{text}")
        except autograder.Refused as error:
            message = str(error)
            check(str(work / "host.ini") in message and f"line {line}" in message.replace("line:", "line") and
                  says in message, f"{message!r} does not name the file, line {line} and {says!r}")
    (work / "host.ini").write_text("[gpu-host]\nhost = a\n")
    try:
        autograder.read_host_config(work)
        check(False, "a host.ini without user was accepted")
    except autograder.Refused as error:
        check("no user" in str(error), f"without user: {error}")
    (work / "host.ini").unlink()
    check(autograder.read_host_config(work) is None, "no host.ini is no GPU host")

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
