"""A synthetic graded class for tools/class-report's tests, in the layout
tools/grade-class writes (class.csv, DIR/<student>/ with spmv-grade's
reports, DIR/similarity/ as tools/check-similarity writes it).

A few students are real gradings: host-path plugins (the CPU host reference
and faulty fakes) graded by build/bin/spmv-grade on small public cases and
on hidden cases of testcases/hidden.example. The rest are made up from a
fresh random seed: correct and fast, slow, wrong on some kernels, flagged,
wrong on a hidden case only, not building, a grader error, incomplete, and
one whose name, plugin name, output, file names and pseudonym are HTML and
script. class.csv is computed from the reports, the way grade-class does.
"""

import csv
import json
import math
import os
import pathlib
import random
import subprocess

KERNELS = ["coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"]
PUBLIC_CASES = ["dense_array_12x10", "skew_random", "teaching_kit_4x4"]
HIDDEN_CASES = {"hidden_blocks": "hidden", "hidden_tolerance_override": "after_published"}
REAL = {  # student -> plugin under build/plugins
    "real_reference": "libspmv_host_reference.so",
    "real_wrong_element": "fakes/libspmv_fake_wrong_element.so",
    "real_crash": "fakes/libspmv_fake_crash_segfault.so",
    "real_not_implemented": "fakes/libspmv_fake_not_implemented.so",
    "real_forged_score": "fakes/libspmv_fake_prints_forged_score.so",
}
# A name, a plugin name and output a browser would run if they were not escaped.
# A folder name cannot hold "/", so the name's payload has none.
HOSTILE_NAME = "<img src=x onerror=\"document.title='PWNED'\">&amp;\"'"
HOSTILE_PLUGIN = "<script>document.title='PWNED-plugin'</script>"
HOSTILE_OUTPUT = "</pre><script>document.title=\"PWNED-output\"</script><b id=\"injected\">bold</b>"
HOSTILE_FILE = "<svg onload=\"document.title='PWNED-file'\">.cu"
HOSTILE_PSEUDONYM = "<i id=\"injected-pseudonym\">pwn</i>"
PROBE_OUTPUT = "dlopen(/work/build/plugins/libspmv_reference.so): Permission denied\n"
FLAGS = ["implausible_timing", "speedup_review", "reference_slowed", "forbidden_library"]


def grade_real(source, build, output, seed_file):
    """Grades the host-path plugins; returns the students graded."""
    allow = ["--allow-unisolated"] if os.geteuid() != 0 else []
    cases = ["--cases", str(source / "testcases" / "public"), "--cases", str(source / "testcases" / "hidden.example")]
    for name in PUBLIC_CASES + list(HIDDEN_CASES):
        cases += ["--case", name]
    graded = []
    for student, plugin in REAL.items():
        folder = output / student
        result = subprocess.run(
            [str(build / "bin" / "spmv-grade"), "--submission", str(build / "plugins" / plugin), *cases,
             "--secret-seed-file", str(seed_file), "--min-runs", "3", "--min-time-ms", "1", "--timeout", "30",
             "--output-dir", str(folder), "--quiet", *allow],
            capture_output=True, text=True, timeout=600)
        if result.returncode not in (0, 1) or not (folder / "rows.jsonl").is_file():
            raise RuntimeError(f"spmv-grade on {plugin} exited {result.returncode}:\n{result.stderr}")
        graded.append(student)
    return graded


def case_list():
    """(case, order, visibility) of the made-up gradings: the real ones' cases."""
    cases = [(c, i, "visible") for i, c in enumerate(PUBLIC_CASES)]
    cases += [(c, len(PUBLIC_CASES) + i, v) for i, (c, v) in enumerate(HIDDEN_CASES.items())]
    return cases


# The reference kernel's time on each (kernel, case) pair: every grading
# times it again, with a little noise (REFERENCE_NOISE, relative), as on one
# GPU. The kernels of one case differ by design, as a real class's do: a
# case's formats take times up to 200 times apart.
REFERENCE_MS = {}
REFERENCE_NOISE = 0.02


def reference_time(rng, kernel, case):
    base = REFERENCE_MS.setdefault((kernel, case), rng.uniform(0.01, 2.0))
    return base * math.exp(rng.gauss(0.0, REFERENCE_NOISE))


def made_up_rows(rng, profile):
    """Rows of one made-up student. profile: a dict of what it does."""
    rows = []
    for kernel_order, kernel in enumerate(KERNELS):
        for case, order, visibility in case_list():
            row = {"kernel": kernel, "format": kernel, "kernel_order": kernel_order, "case": case,
                   "case_order": order, "case_source": "made up", "visibility": visibility,
                   "verdict": "pass", "cause": "", "summary": "", "detail": "", "speedup": None,
                   "flags": [], "accepted_flags": [], "submission_output": "", "submission_ms": None, "reference_ms": None}
            if kernel == "ell" and case == "skew_random" and profile.get("ell_refused"):
                row.update(verdict="not_applicable", cause="format_refused",
                           summary="not applicable: ELL over the format limit")
            elif kernel in profile.get("wrong_kernels", ()) and rng.random() < 0.8:
                verdict, cause = rng.choice([("wrong", "missing_term"), ("wrong", "unwritten_rows"),
                                             ("crash", "signal"), ("timeout", ""), ("wrong", "doubled")])
                row.update(verdict=verdict, cause=cause, summary=f"{verdict}: made up ({cause or 'no cause'})")
            elif kernel in profile.get("missing_kernels", ()):
                row.update(verdict="not_implemented", cause="", summary="not implemented")
            elif (kernel, case) == profile.get("hidden_failure"):
                row.update(verdict="wrong", cause="missing_term", summary="wrong: a term missing")
            else:
                speedup = math.exp(rng.gauss(math.log(profile.get("speed", 1.0)), 0.25))
                reference = reference_time(rng, kernel, case)
                row.update(speedup=speedup, reference_ms=reference, submission_ms=reference / speedup,
                           summary=f"pass: correct in all 3 runs; {speedup:.2f}x the reference")
                if (kernel, case) in profile.get("flagged", ()):
                    row["flags"] = [profile["flag"]]
                    if profile.get("accepted"):
                        row["accepted_flags"] = [profile["flag"]]
                if kernel_order == 0 and profile.get("output"):
                    row["submission_output"] = profile["output"]
                    row["summary"] += " (it printed something)"
            rows.append(row)
    return rows


def points_of(rows, max_score=100.0):
    """Gradescope tests of made-up rows: each kernel an equal share, each of
    its graded rows an equal part of it; a pass earns 0.7 plus 0.3 times its
    speed credit, unless flagged."""
    tests = []
    share = max_score / len(KERNELS)
    for kernel in KERNELS:
        counted = [r for r in rows if r["kernel"] == kernel and r["verdict"] != "not_applicable"]
        for row in rows:
            if row["kernel"] != kernel:
                continue
            worth = share / len(counted) if row in counted else 0.0
            earned = 0.0
            if row["verdict"] == "pass":
                open_flags = [f for f in row["flags"] if f not in row.get("accepted_flags", [])]
                credit = 0.0 if open_flags else min(1.0, max(0.0, (row["speedup"] - 0.25) / (0.9 - 0.25)))
                earned = worth * (0.7 + 0.3 * credit)
            tests.append({"name": f"{kernel} / {row['case']}", "score": round(earned, 2),
                          "max_score": round(worth, 2), "status": "passed" if row["verdict"] == "pass" else "failed",
                          "visibility": row["visibility"], "extra_data": {"verdict": row["verdict"], "flags": row["flags"]}})
    return tests


def write_made_up(folder, student, rows, plugin):
    folder.mkdir(parents=True)
    (folder / "logs").mkdir()
    tests = points_of(rows)
    score = round(sum(t["score"] for t in tests), 2)
    results = {"score": score, "output": f"Score: {score:.2f} / 100.00", "tests": tests,
               "extra_data": {"max_score": 100, "submission": plugin}}
    (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")
    (folder / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "summary.md").write_text(f"# SpMV grading report\n\n**Score: {score:.2f} / 100.00**\n", encoding="utf-8")


def write_build_failed(folder, log):
    folder.mkdir(parents=True)
    (folder / "build.log").write_text(log, encoding="utf-8")
    results = {"score": 0, "output": "Your files do not build:\n\n" + log, "tests": []}
    (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")


def class_row(student, folder, status):
    """One line of class.csv from a student's reports, as grade-class writes it."""
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    points = {k: 0.0 for k in KERNELS}
    for test in results.get("tests", []):
        kernel = test["name"].split(" / ")[0]
        points[kernel] += test.get("score", 0.0)
    speedups, flags = [], []
    if (folder / "rows.jsonl").is_file():
        for line in (folder / "rows.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("speedup"):
                speedups.append(row["speedup"])
            for flag in row.get("flags", []):
                if flag not in flags:
                    flags.append(flag)
    mean = math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else None
    max_score = results.get("extra_data", {}).get("max_score", 100)
    return [student, f"{results['score']:.2f}", f"{max_score:.2f}", *[f"{points[k]:.2f}" for k in KERNELS],
            "" if mean is None else f"{mean:.4f}", status, ";".join(flags)]


def build_class(source, build, output, seed=None, students=30):
    """Writes the class into output; returns a description of what is in it."""
    source, build, output = pathlib.Path(source), pathlib.Path(build), pathlib.Path(output)
    seed = seed if seed is not None else random.SystemRandom().randrange(1 << 32)
    rng = random.Random(seed)
    REFERENCE_MS.clear()
    output.mkdir(parents=True)
    secret_seed = output.parent / "secret-seed"
    secret_seed.write_text(f"seed-{rng.randrange(1 << 30)}\n")
    real = grade_real(source, build, output, secret_seed)
    statuses = {name: "graded" for name in real}

    special = {
        "made_hidden_only_failure": {"speed": 1.3, "hidden_failure": (rng.choice(KERNELS), "hidden_blocks")},
        "made_flagged": {"speed": 2.0, "flagged": [(rng.choice(KERNELS), rng.choice(PUBLIC_CASES))],
                         "flag": rng.choice(FLAGS[:3])},
        "made_fastest": {"speed": 3.0},
        # A flag the instructor accepted in the policy: on the boards.
        "made_accepted": {"speed": 1.6, "flagged": [(rng.choice(KERNELS), rng.choice(PUBLIC_CASES))],
                          "flag": "speedup_review", "accepted": True},
        # Its flag accepted in the policy: on the boards, its pseudonym shown there.
        HOSTILE_NAME: {"speed": 1.1, "output": HOSTILE_OUTPUT, "flagged": [("coo", PUBLIC_CASES[0])],
                       "flag": "implausible_timing", "accepted": True},
        # Printed an attempt to reach the reference plugin; nothing flagged.
        "made_prober": {"speed": 1.2, "output": PROBE_OUTPUT},
        # Handed in the reference kernels (check-similarity says so).
        "made_copier": {"speed": 1.0},
    }
    plugins = {HOSTILE_NAME: HOSTILE_PLUGIN}
    made = list(special)
    number = 0
    while len(real) + len(made) + 3 < students:
        number += 1
        name = f"made_{number:02d}_{rng.choice(['ada', 'bo', 'cy', 'di', 'ed', 'flo'])}"
        profile = {"speed": math.exp(rng.gauss(0, 0.6)), "ell_refused": rng.random() < 0.3}
        if rng.random() < 0.35:
            profile["wrong_kernels"] = rng.sample(KERNELS, rng.randint(1, 3))
        if rng.random() < 0.2:
            profile["missing_kernels"] = rng.sample(KERNELS, rng.randint(1, 2))
        if rng.random() < 0.2:
            profile["flagged"] = [(rng.choice(KERNELS), rng.choice(PUBLIC_CASES + list(HIDDEN_CASES)))]
            profile["flag"] = rng.choice(FLAGS)
        special[name] = profile
        made.append(name)
    for name in made:
        write_made_up(output / name, name, made_up_rows(rng, special[name]), plugins.get(name, f"plugin-{name}"))
        statuses[name] = "graded"

    write_build_failed(output / "made_build_failed", "coo.cu(12): error: identifier \"<script>x</script>\" is undefined\n")
    statuses["made_build_failed"] = "build_failed"
    write_made_up(output / "made_grader_error", "made_grader_error",
                  made_up_rows(rng, {"speed": 0.8}), "plugin-grader-error")
    statuses["made_grader_error"] = "grader_error"
    write_made_up(output / "made_incomplete", "made_incomplete", made_up_rows(rng, {"speed": 0.9})[:10], "plugin-incomplete")
    statuses["made_incomplete"] = "incomplete"

    names = list(statuses)
    rng.shuffle(names)
    with open(output / "class.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "score", "max_score", *KERNELS, "geomean_speedup", "status", "flags"])
        for name in names:
            writer.writerow(class_row(name, output / name, statuses[name]))

    similarity = output / "similarity"
    similarity.mkdir()
    (similarity / "report.html").write_text("<!DOCTYPE html><title>similarity</title><p>pairs</p>\n", encoding="utf-8")
    a, b = rng.sample([n for n in made if n not in (HOSTILE_NAME, "made_copier")], 2)
    with open(similarity / "pairs.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["level", "a", "b", "file_a", "file_b", "similarity", "a_in_b", "b_in_a", "overlap", "view"])
        writer.writerow(["submission", "made_copier", "reference", "", "", "0.960", "0.960", "0.900", "", ""])
        writer.writerow(["submission", HOSTILE_NAME, a, "", "", "0.910", "0.910", "0.850", "", ""])
        writer.writerow(["file", HOSTILE_NAME, a, HOSTILE_FILE, "csr_vector.cu", "0.930", "0.930", "0.880", 420, "source"])
        writer.writerow(["submission", a, b, "", "", "0.620", "0.600", "0.620", "", ""])
        writer.writerow(["file", a, "reference", "ell.cu", "ell.cu", "0.700", "0.700", "0.650", 300, "preprocessed"])
    # Every submission's closest sources, as check-similarity writes them.
    with open(similarity / "submissions.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["submission", "reference", "reference_similarity", "reference_flagged",
                         "classmate", "classmate_similarity", "classmate_flagged"])
        pairs = {"made_copier": ("reference", 0.96, "yes"), HOSTILE_NAME: (a, 0.91, "yes"), a: (HOSTILE_NAME, 0.91, "yes"),
                 b: (a, 0.62, "yes")}
        for name in names:
            classmate, value, flagged = pairs.get(name, (rng.choice(names), rng.uniform(0, 0.3), ""))
            reference = pairs["made_copier"] if name == "made_copier" else ("reference", rng.uniform(0, 0.3), "")
            if name == "made_copier":
                classmate, value, flagged = rng.choice(names), 0.2, ""
            writer.writerow([name, reference[0], f"{reference[1]:.3f}", reference[2], classmate, f"{value:.3f}", flagged])

    return {"seed": seed, "students": names, "real": real, "statuses": statuses, "hostile": HOSTILE_NAME,
            "hidden_only_failure": "made_hidden_only_failure", "flagged": "made_flagged", "accepted": "made_accepted",
            "similar": (a, b), "hidden_cases": list(HIDDEN_CASES), "public_cases": PUBLIC_CASES,
            "prober": "made_prober", "copier": "made_copier"}
