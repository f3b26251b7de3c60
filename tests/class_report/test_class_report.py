#!/usr/bin/env python3
"""tools/class-report on a synthetic class (make_class.py): the figures of
the instructor's page against class.csv and rows.jsonl, every hostile string
escaped, links that lead to the reports, and a leaderboard that holds only
verified rows, under pseudonyms, with no case named and no hidden outcome
before the due date. No browser (tests/class_report/test_browser.py opens
the pages).

Usage: test_class_report.py SOURCE_DIR BUILD_DIR WORK_DIR [--seed N]
"""

import base64
import csv
import hashlib
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import urllib.parse
import xml.etree.ElementTree as ElementTree

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_class  # noqa: E402
import pages  # noqa: E402
from checks import check, summary  # noqa: E402

ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "nav", "a", "div",
                "figure", "img", "figcaption", "table", "thead", "tbody", "tr", "th", "td", "span", "em", "code",
                "pre", "ul", "li", "script", "details", "summary", "br"}


def close(a, b, tolerance):
    return a is not None and b is not None and abs(a - b) <= tolerance


def run_tool(source, *args, expect=0):
    result = subprocess.run([str(source / "tools" / "class-report"), *map(str, args)],
                            capture_output=True, text=True, timeout=300)
    check(result.returncode == expect,
          f"class-report {' '.join(map(str, args))} exited {result.returncode}, not {expect}:\n{result.stderr}")
    return result


def cell_number(text):
    text = text.rstrip("x").strip()
    return float(text) if text else None


def check_escaping(name, text, document, hostile_strings):
    check(set(tag for tag, _ in document.tags) <= ALLOWED_TAGS,
          f"{name}: unexpected elements {set(tag for tag, _ in document.tags) - ALLOWED_TAGS}")
    handlers = [(tag, key) for tag, attrs in document.tags for key in attrs if key.lower().startswith("on")]
    check(not handlers, f"{name}: event handler attributes {handlers}")
    check(sum(tag == "script" for tag, _ in document.tags) == 1, f"{name}: not exactly one script element")
    check(not any(attrs.get("id", "").startswith("injected") for _, attrs in document.tags),
          f"{name}: an element of a student's string made it into the page")
    for hostile in hostile_strings:
        check(hostile in document.text, f"{name}: {hostile!r} is not shown as text")
    check("PWNED" not in "".join(document.scripts), f"{name}: a student's string in the script")
    # The page's own script is the one its Content-Security-Policy allows.
    policy = [attrs.get("content", "") for tag, attrs in document.tags
              if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy"]
    digest = base64.b64encode(hashlib.sha256(document.scripts[0].encode()).digest()).decode() if document.scripts else ""
    check(policy and f"'sha256-{digest}'" in policy[0] and "default-src 'none'" in policy[0],
          f"{name}: the Content-Security-Policy does not allow exactly the page's script: {policy}")


def check_index(folder, report, document, text, pseudonym_of, similar_students=()):
    kernels, records = pages.read_class(folder)
    by_name = {r["student"]: r for r in records}
    students = document.table("student-table")
    check(students["head"][:4] == ["student", "pseudonym", "plugin", "score"] and
          students["head"][4:4 + len(kernels)] == kernels,
          f"student table header {students['head']}")
    shown = {row["attrs"].get("data-student"): row for row in students["rows"]}
    check(set(shown) == set(by_name), f"students shown {len(shown)}, class.csv {len(by_name)}")
    for name, row in shown.items():
        record = by_name.get(name)
        if record is None:
            continue
        cells = [c[0] for c in row["cells"]]
        check(close(cell_number(cells[3]), float(record["score"]), 0.0051) if record["score"] else cells[3] == "",
              f"{name}: score {cells[3]} vs {record['score']}")
        for index, kernel in enumerate(kernels):
            value = cells[4 + index]
            check(close(cell_number(value), float(record[kernel]), 0.0051) if record[kernel] else value == "",
                  f"{name}: {kernel} points {value} vs {record[kernel]}")
        speedup = cells[4 + len(kernels)]
        check(close(cell_number(speedup), float(record["geomean_speedup"]), 0.0051) if record["geomean_speedup"]
              else speedup == "", f"{name}: speedup {speedup} vs {record['geomean_speedup']}")
        check(cells[-2] == record["status"].replace("_", " "), f"{name}: status {cells[-2]}")
        check(cells[-1].replace("\n", "") == "".join(f for f in record["flags"].split(";") if f),
              f"{name}: flags {cells[-1]!r} vs {record['flags']!r}")
        pseudonym_of[name] = cells[1]
        # The name links to the student's summary.md (build.log when it did not build).
        links = [attrs["href"] for tag, attrs in document.tags if tag == "a" and "href" in attrs]
        wanted = "summary.md" if record["status"] != "build_failed" else "build.log"
        target = (folder / name / wanted).resolve()
        check(any((report / urllib.parse.unquote(href)).resolve() == target for href in links),
              f"{name}: no link to its {wanted}")

    scores = [float(r["score"]) for r in records if r["score"]]
    figures = {row["cells"][0][0]: row["cells"][1][1].get("data-value") for row in document.table("score-figures")["rows"]}
    check(close(float(figures["mean score"]), statistics.fmean(scores), 1e-9), f"mean score {figures['mean score']}")
    check(close(float(figures["median score"]), statistics.median(scores), 1e-9), "median score")
    check(close(float(figures["highest"]), max(scores), 1e-9), "highest score")

    # Per kernel: points from class.csv; rows and students passing from rows.jsonl.
    rows_of = {r["student"]: pages.read_rows(folder, r["student"]) for r in records}
    kernel_rows = {row["attrs"]["data-kernel"]: [c[0] for c in row["cells"]] for row in document.table("kernel-table")["rows"]}
    check(list(kernel_rows) == kernels, f"kernel table {list(kernel_rows)}")
    for kernel in kernels:
        points = [float(r[kernel]) for r in records if r[kernel]]
        graded = [[x for x in rows if x["kernel"] == kernel and x["verdict"] not in pages.NOT_GRADED]
                  for rows in rows_of.values() if rows]
        graded = [g for g in graded if g]
        passed_rows = sum(x["verdict"] == "pass" for g in graded for x in g)
        full = sum(all(x["verdict"] == "pass" for x in g) for g in graded)
        cells = kernel_rows.get(kernel, ["", "", "", "", ""])
        check(close(cell_number(cells[1]), statistics.fmean(points), 0.0051), f"{kernel}: mean points {cells[1]}")
        check(cells[2] == f"{full} / {len(graded)}", f"{kernel}: students passing {cells[2]} vs {full} / {len(graded)}")
        check(cells[3].startswith(f"{passed_rows} / {sum(map(len, graded))}"), f"{kernel}: rows passing {cells[3]}")

    # Per case: the submissions that failed it.
    failed = {}
    for student, rows in rows_of.items():
        for x in rows or []:
            if x["verdict"] not in pages.NOT_GRADED and x["verdict"] != "pass":
                failed.setdefault(x["case"], set()).add(student)
    case_rows = {row["attrs"]["data-case"]: [c[0] for c in row["cells"]] for row in document.table("case-table")["rows"]}
    all_cases = {x["case"] for rows in rows_of.values() for x in rows or []}
    check(set(case_rows) == all_cases, f"cases shown {sorted(case_rows)}")
    for case, cells in case_rows.items():
        check(int(cells[3]) == len(failed.get(case, ())), f"{case}: failed {cells[3]} vs {len(failed.get(case, ()))}")
    counts = [int(cells[3]) for cells in case_rows.values()]
    check(counts == sorted(counts, reverse=True), "cases not sorted by failures")

    # Per case, who failed it; the causes without "not implemented".
    for row in document.table("case-table")["rows"]:
        case = row["attrs"]["data-case"]
        cells = [c[0] for c in row["cells"]]
        listed = cells[7]
        for student in failed.get(case, ()):
            check(student in listed, f"{case}: {student!r} failed it but is not listed")
        check("not_implemented" not in cells[5], f"{case}: not implemented among the causes: {cells[5]}")
        quiet = sum(1 for rows in rows_of.values() for x in rows or []
                    if x["case"] == case and x["verdict"] == "not_implemented")
        check((cells[6] or "0") == str(quiet), f"{case}: not implemented {cells[6]!r} vs {quiet}")

    # The grid: a cell per student and kernel, of the kind the rows say, linking to the student's rows.
    grid = {row["attrs"]["data-student"]: row for row in document.table("grid-table")["rows"]}
    check(set(grid) == set(by_name), f"grid students {len(grid)} vs {len(by_name)}")
    links = {(tag_attrs.get("href") or "") for tag, tag_attrs in document.tags if tag == "a"}
    for name, row in grid.items():
        for index, kernel in enumerate(kernels):
            cell = row["cells"][1 + index]
            want = pages.expected_cell(rows_of.get(name), by_name[name]["status"], kernel)
            check(cell[1].get("data-kind") == want, f"grid {name!r} {kernel}: {cell[1].get('data-kind')} vs {want}")
            if want == "failed":
                verdicts = {x["verdict"] for x in rows_of[name] if x["kernel"] == kernel and x["verdict"] not in
                            pages.NOT_GRADED and x["verdict"] != "pass"}
                check(any(v.replace("_", " ") in cell[0] for v in verdicts), f"grid {name!r} {kernel}: {cell[0]!r}")
    student_pages = sorted((report / "students").glob("*.html"))
    check(len(student_pages) == len(by_name), f"{len(student_pages)} student pages")
    for page in student_pages:
        check(any(link.startswith(f"students/{page.name}#kernel-") for link in links), f"no grid link to {page.name}")
        body = pages.Document(page.read_text(encoding="utf-8"))
        name = body.text.split("\n")[0]
        check(all(f"kernel-{k}" in page.read_text(encoding="utf-8") for k in kernels), f"{page.name}: kernels")

    # Everything flagged, and the similar pairs.
    flagged = sum(1 for rows in rows_of.values() for x in rows or [] if x["flags"])
    if flagged:
        check(len(document.table("flagged-table")["rows"]) == flagged, f"flagged rows shown vs {flagged}")
    else:  # a class (or a subset of its kernels) with no flagged row: no table, the count says 0
        shown = [t for t in document.tables if t["attrs"].get("id") == "flagged-table"]
        check("Flagged rows (0)" in document.text and not shown, "no flagged row, yet a flagged table or a count not 0")
    check(len(document.table("similarity-table")["rows"]) == 5, "similarity pairs shown")
    check(document.table("similarity-table")["rows"][0]["cells"][2][0] == "reference", "the reference match is not first")

    # One review entry per student with open flags, suspicious output or a flagged similarity; the reference match first.
    review = [row["attrs"]["data-student"] for row in document.table("review-table")["rows"]]
    wanted = {name for name, rows in rows_of.items() if any(pages.open_flags(x) for x in rows or [])}
    # The fake that prints a forged score line, and the one that tried to open the reference.
    printed = {n for n in ("made_prober", "real_forged_score") if any(x.get("submission_output") for x in rows_of.get(n) or [])}
    wanted |= {"made_copier", make_class.HOSTILE_NAME} | printed | set(similar_students)
    check(set(review) == wanted, f"review list {sorted(review)} vs {sorted(wanted)}")
    check(len(review) == len(set(review)), "a student twice in the review list")
    check(review[:1] == ["made_copier"], f"the reference match is not the first to review: {review[:3]}")
    prober = [row for row in document.table("review-table")["rows"] if row["attrs"]["data-student"] == "made_prober"]
    check(prober and "reference" in prober[0]["cells"][1][0] or "made_prober" not in printed,
          "the probe of the reference is not named")
    forger = [row for row in document.table("review-table")["rows"] if row["attrs"]["data-student"] == "real_forged_score"]
    check(forger and "score" in forger[0]["cells"][1][0] or "real_forged_score" not in printed,
          "the forged score line is not named")

    # Statistics without the flagged students.
    clean = [float(r["score"]) for r in records if r["score"] and r["student"] not in
             {n for n, rows in rows_of.items() if any(pages.open_flags(x) for x in rows or [])}]
    check(close(float(figures["mean score without them"]), statistics.fmean(clean), 1e-9),
          f"mean score without flagged {figures['mean score without them']} vs {statistics.fmean(clean)}")
    check("STAFF ONLY" in document.text, "the instructor's page is not marked staff only")
    not_graded = {row["cells"][0][0] for row in document.table("not-graded-table")["rows"]}
    check(not_graded == {r["student"] for r in records if r["status"] != "graded"}, f"not graded: {not_graded}")

    # Charts: three SVG pictures inline.
    charts = [attrs["src"] for tag, attrs in document.tags if tag == "img" and "chart" in attrs.get("class", "")]
    check(len(charts) == 3, f"{len(charts)} charts")
    for uri in charts:
        prefix = "data:image/svg+xml;base64,"
        check(uri.startswith(prefix), "a chart that is not an inline SVG")
        try:
            root = ElementTree.fromstring(base64.b64decode(uri[len(prefix):]))
            check(root.tag.endswith("svg"), "a chart is not SVG")
        except ElementTree.ParseError as error:
            check(False, f"a chart is not XML: {error}")
    check("http://" not in text.replace('xmlns="http://www.w3.org', "") and "https://" not in text,
          "the page refers to the network")


def check_leaderboard(folder, report, pseudonym_of, after_due_date, hostile, shown_as_text=()):
    public = report / "leaderboard"
    check(sorted(p.name for p in public.iterdir()) == ["leaderboard.csv", "leaderboard.html"],
          f"the leaderboard folder holds {sorted(p.name for p in public.iterdir())}")
    text = (public / "leaderboard.html").read_text(encoding="utf-8")
    csv_text = (public / "leaderboard.csv").read_text(encoding="utf-8")
    document = pages.Document(text)
    expected = pages.expected_boards(folder, after_due_date)
    boards = pages.read_leaderboard_csv(public / "leaderboard.csv")
    noise = pages.reference_noise(folder)
    kernels, records = pages.read_class(folder)
    # The noise is that of one kernel's timings on one case (make_class draws
    # them REFERENCE_NOISE apart), not the difference between kernels.
    injected = make_class.REFERENCE_NOISE * 2 ** 0.5
    check(noise is None or noise < 4 * injected,
          f"the measured timing noise {noise} is far above the {injected:.3f} the class was made with")
    stated = f"Figures within {100 * noise:.1f}% of the first" if noise is not None else "Only equal figures share a rank"
    check(stated in text, f"the leaderboard does not say '{stated}'")
    when = "after the due date" if after_due_date else "before the due date"
    check(list(expected) == ["overall"] + kernels, "boards")
    student_of = {p: s for s, p in pseudonym_of.items()}
    check(len(student_of) == len(pseudonym_of), "two students share a pseudonym")
    for board, wanted in expected.items():
        entries = boards.get(board, [])
        got = {student_of.get(p, f"?{p}"): speedup for _, p, speedup, _ in entries}
        check(set(got) == set(wanted), f"{when}, board {board}: {sorted(got)} vs {sorted(wanted)}")
        for student, speedup in wanted.items():
            check(close(got.get(student), speedup, 1e-4 * speedup + 1e-4),
                  f"{when}, board {board}: {student} {got.get(student)} vs {speedup}")
        speeds = [s for _, _, s, _ in entries]
        ranks = [r for r, _, _, _ in entries]
        check(speeds == sorted(speeds, reverse=True) and ranks[:1] in ([], [1]) and ranks == sorted(ranks),
              f"{when}, board {board} not ranked")
        # Ranks: a figure within the measured noise of its group's first shares its rank.
        leader = None
        for index, (rank, _, speedup, tied) in enumerate(entries):
            within = leader is not None and (speedup == leader[1] or
                                             (noise is not None and leader[1] <= speedup * (1 + noise) * (1 - 2e-3)))
            clearly_apart = leader is None or (speedup != leader[1] and
                                               (noise is None or leader[1] > speedup * (1 + noise) * (1 + 2e-3)))
            check(rank == leader[0] if within and not clearly_apart else True,
                  f"{when}, board {board}: {speedup} within the noise of {leader} but ranked {rank}")
            check(rank == index + 1 if clearly_apart else True,
                  f"{when}, board {board}: {speedup} apart from {leader} but ranked {rank}")
            if rank == index + 1:
                leader = (rank, speedup)
            check(tied == (ranks.count(rank) > 1), f"{when}, board {board}: tie mark of rank {rank}")
        table = document.table(data_board=board)
        shown = [(int(c[0][0].lstrip("=")), c[1][0], float(c[2][1]["data-sort"])) for c in (r["cells"] for r in table["rows"])] \
            if entries else []
        check([(r, p) for r, p, _ in shown] == [(r, p) for r, p, _, _ in entries], f"{when}: page and CSV differ on {board}")
    # Nothing that names a case or a student; hidden outcomes not before the due date.
    every_case = {x["case"] for r in records for x in pages.read_rows(folder, r["student"]) or []}
    for leaked in every_case | {r["student"] for r in records} | {hostile}:
        check(leaked not in text and leaked not in csv_text and leaked not in document.text,
              f"{when}: the leaderboard names {leaked!r}")
    check_escaping(f"leaderboard ({when})", text, document, shown_as_text)


def main(argv):
    source, build, work = (pathlib.Path(a).resolve() for a in argv[1:4])
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else None
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    folder = work / "class"
    info = make_class.build_class(source, build, folder, seed=seed)
    print(f"class of {len(info['students'])} students made from seed {info['seed']}")

    secret = work / "pseudonym-secret"
    secret.write_text("course-secret-" + os.urandom(8).hex() + "\n")
    secret.chmod(0o600)
    roster = work / "roster.csv"
    named = info["students"][:10] + [info["hostile"]]
    with open(roster, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "pseudonym"])
        for index, name in enumerate(dict.fromkeys(named)):
            writer.writerow([name, make_class.HOSTILE_PSEUDONYM if name == info["hostile"] else f"=Roster {index}"])

    report = work / "report"
    run_tool(source, folder, "--output", report, "--roster", roster, "--pseudonym-secret-file", secret)
    text = (report / "staff-only" / "index.html").read_text(encoding="utf-8")
    document = pages.Document(text)
    pseudonym_of = {}
    check_index(folder, report / "staff-only", document, text, pseudonym_of, info["similar"])
    with open(report / "staff-only" / "pseudonyms.csv", newline="", encoding="utf-8") as handle:
        listed_pseudonyms = {r["student"]: r["pseudonym"] for r in csv.DictReader(handle)}
    check({s.lstrip("'") if s[:2] in ("'=", "'+", "'-", "'@") else s: p.lstrip("'") if p[:2] in ("'=", "'+", "'-", "'@") else p
           for s, p in listed_pseudonyms.items()} == pseudonym_of,
          "pseudonyms.csv differs from the pseudonyms of the student table")
    check_escaping("index.html", text, document,
                   [make_class.HOSTILE_NAME, make_class.HOSTILE_PLUGIN, make_class.HOSTILE_OUTPUT, make_class.HOSTILE_FILE])
    check(pseudonym_of.get(info["hostile"]) == make_class.HOSTILE_PSEUDONYM, "the roster's pseudonym is not used")
    listed = list(dict.fromkeys(named))
    first = next(name for name in listed if name != info["hostile"])  # the hostile student may come first
    check(pseudonym_of.get(first) == f"=Roster {listed.index(first)}", "a roster pseudonym starting with = is not kept")
    hashed = [p for s, p in pseudonym_of.items() if s not in named]
    check(hashed and all(s not in p for s, p in pseudonym_of.items() if s not in named), "hashed pseudonyms")
    check_leaderboard(folder, report, pseudonym_of, False, info["hostile"], [make_class.HOSTILE_PSEUDONYM])

    # The hidden-only failure is on its kernel's board before the due date, not after.
    before = pages.expected_boards(folder, False)
    after = pages.expected_boards(folder, True)
    check(info["hidden_only_failure"] in before["overall"] and info["hidden_only_failure"] not in after["overall"],
          "the class lacks a student failing a hidden case only")
    check(info["flagged"] not in before["overall"], "the flagged student is on the overall board")
    check(info["accepted"] in before["overall"], "a student whose only flag was accepted is off the overall board")

    # After the due date, and with the same secret: the same hashed pseudonyms.
    report_after = work / "report-after"
    run_tool(source, folder, "--output", report_after, "--roster", roster, "--pseudonym-secret-file", secret,
             "--after-due-date")
    after_of = {}
    check_index(folder, report_after / "staff-only", pages.Document((report_after / "staff-only" / "index.html").read_text(encoding="utf-8")),
                "", after_of, info["similar"])
    check(after_of == pseudonym_of, "pseudonyms changed between two runs with the same secret")
    check_leaderboard(folder, report_after, after_of, True, info["hostile"], [make_class.HOSTILE_PSEUDONYM])

    # Another secret, another hash; no roster: every student hashed.
    other = work / "other-secret"
    other.write_text("another-secret-" + os.urandom(8).hex() + "\n")
    other.chmod(0o600)
    report_other = work / "report-other"
    run_tool(source, folder, "--output", report_other, "--pseudonym-secret-file", other)
    other_of = {}
    check_index(folder, report_other / "staff-only", pages.Document((report_other / "staff-only" / "index.html").read_text(encoding="utf-8")),
                "", other_of, info["similar"])
    check(all(other_of[s] != pseudonym_of[s] for s in other_of if s not in named), "pseudonyms do not depend on the secret")

    # Usage errors: exit 2 and a message, no page.
    nothing = work / "nothing"
    result = run_tool(source, folder, "--output", nothing, expect=2)
    check("--pseudonym-secret-file" in result.stderr and not nothing.exists(), "no pseudonym source: no message")
    run_tool(source, folder, "--output", nothing, "--roster", roster, expect=2)   # students missing from it
    short = work / "short-secret"
    short.write_text("abc\n")
    short.chmod(0o600)
    run_tool(source, folder, "--output", nothing, "--pseudonym-secret-file", short, expect=2)
    broken = work / "broken"
    broken.mkdir()
    (broken / "class.csv").write_text("student,score,coo\nx,1,1\n")
    run_tool(source, broken, "--output", nothing, "--no-leaderboard", expect=2)
    check(not nothing.exists(), "a usage error wrote pages")
    run_tool(source, folder, "--output", work / "instructor-only", "--no-leaderboard")
    check(not (work / "instructor-only" / "leaderboard").exists(), "--no-leaderboard wrote a leaderboard")

    # A secret others can read is refused; an --output that is a file is a usage error, not a traceback.
    readable = work / "readable-secret"
    readable.write_text("readable-secret-" + os.urandom(8).hex() + "\n")
    readable.chmod(0o644)
    result = run_tool(source, folder, "--output", nothing, "--pseudonym-secret-file", readable, expect=2)
    check("chmod 600" in result.stderr and "Traceback" not in result.stderr, f"a readable secret: {result.stderr}")
    result = run_tool(source, folder, "--output", readable, "--pseudonym-secret-file", secret, expect=2)
    check("Traceback" not in result.stderr, f"--output a file: {result.stderr}")
    result = run_tool(source, folder, "--output", nothing, "--pseudonym-secret-file", secret, "--reviewed", "nobody",
                      expect=2)
    check("nobody" in result.stderr, "--reviewed of an unknown student")

    # With the flagged student reviewed, it is back on the boards of its unflagged kernels;
    # with --hold-flagged kernel, every flagged student is.
    reviewed = work / "report-reviewed"
    run_tool(source, folder, "--output", reviewed, "--pseudonym-secret-file", secret, "--reviewed", info["flagged"])
    boards = pages.read_leaderboard_csv(reviewed / "leaderboard" / "leaderboard.csv")
    expected = pages.expected_boards(folder, False, "every", {info["flagged"]})
    for board, wanted in expected.items():
        check(len(boards.get(board, [])) == len(wanted), f"reviewed: board {board} has {len(boards.get(board, []))}, "
                                                          f"not {len(wanted)}")
    held = pages.expected_boards(folder, False)
    check(sum(map(len, expected.values())) > sum(map(len, held.values())), "reviewing a student put it on no board")
    kernel_only = work / "report-kernel"
    run_tool(source, folder, "--output", kernel_only, "--pseudonym-secret-file", secret, "--hold-flagged", "kernel")
    boards = pages.read_leaderboard_csv(kernel_only / "leaderboard" / "leaderboard.csv")
    for board, wanted in pages.expected_boards(folder, False, "kernel").items():
        check(len(boards.get(board, [])) == len(wanted), f"--hold-flagged kernel: board {board}")

    # The kernels are class.csv's columns: a class graded on three kernels.
    subset = work / "subset"
    shutil.copytree(folder, subset, symlinks=True)
    keep = make_class.KERNELS[1:4]
    with open(folder / "class.csv", newline="", encoding="utf-8") as handle:
        records = list(csv.DictReader(handle))
    with open(subset / "class.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "score", "max_score", *keep, "geomean_speedup", "status", "flags"])
        for r in records:
            writer.writerow([r["student"], r["score"], r["max_score"], *[r[k] for k in keep],
                             r["geomean_speedup"], r["status"], r["flags"]])
    for student_folder in subset.iterdir():
        rows_file = student_folder / "rows.jsonl"
        if rows_file.is_file():
            lines = rows_file.read_text(encoding="utf-8").splitlines()
            rows_file.write_text("".join(l + "\n" for l in lines if any(f'"kernel": "{k}"' in l or f'"kernel":"{k}"' in l
                                                                       for k in keep)), encoding="utf-8")
    report_subset = work / "report-subset"
    run_tool(source, subset, "--output", report_subset, "--pseudonym-secret-file", secret)
    subset_of = {}
    check_index(subset, report_subset / "staff-only", pages.Document((report_subset / "staff-only" / "index.html").read_text(encoding="utf-8")),
                "", subset_of, info["similar"])
    check_leaderboard(subset, report_subset, subset_of, False, info["hostile"])

    return summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
