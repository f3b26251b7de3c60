#!/usr/bin/env python3
"""Both pages of tools/class-report in headless Chromium, from file://, in a
network namespace without network (unshare -n): no console error, no
warning, no dialog; the tables and the charts there; sorting by a click on
a header works both ways; the hostile student's strings shown as text, never
as elements; nothing ran that the page did not hold. Screenshots are kept
in WORK_DIR (index.png, index-grid.png, index-review.png, leaderboard.png).

The class is one of 200 (a real course's size): the instructor's page must
stay under 5 MB and show the grid and the review list; its submissions'
code (tests/similarity/make_submissions.py) goes through
tools/check-similarity, whose report must stay under 20 MB, open, and list
the match with the reference first; the leaderboard's folder must name no
student and no case.

Usage: test_browser.py SOURCE_DIR BUILD_DIR WORK_DIR [--screenshot-to PNG] [--seed N]
Exits 77 (skipped) when Chromium is not installed or cannot start here; CI
installs it (.ci/install-test-services) and fails when this test skipped.
"""

import csv
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "similarity"))
import cdp  # noqa: E402
import make_class  # noqa: E402
import make_submissions  # noqa: E402
from checks import check, summary  # noqa: E402

CLASS_SIZE = 200                      # a real course's size
INSTRUCTOR_PAGE_LIMIT = 5 << 20       # bytes: the instructor's page must open quickly
SIMILARITY_REPORT_LIMIT = 20 << 20    # bytes: check-similarity's report of the class


# Reads a table column as the page shows it: (data-sort or text) per body row.
COLUMN = """(function (selector, column) {
  var table = document.querySelector(selector);
  return Array.prototype.map.call(table.tBodies[0].rows, function (row) {
    var cell = row.cells[column];
    return cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
  });
})"""


def sorted_as(values, numeric, descending):
    present = [v for v in values if v != ""]
    keyed = [float(v) for v in present] if numeric else [v.lower() for v in present]
    in_order = all((a >= b) if descending else (a <= b) for a, b in zip(keyed, keyed[1:]))
    empties_last = values[len(present):] == [""] * (len(values) - len(present))
    return in_order and empties_last


def check_sort(page, selector, header, numeric, name):
    """Clicks a header twice: sorted one way, then the other."""
    column = page.evaluate(f"""Array.prototype.findIndex.call(document.querySelector({json.dumps(selector)}).tHead.rows[0].cells,
        function (th) {{ return th.textContent.trim() === {json.dumps(header)}; }})""")
    check(column is not None and column >= 0, f"{name}: no column {header}")
    if column is None or column < 0:
        return
    before = page.evaluate(f"{COLUMN}({json.dumps(selector)}, {column})")
    states = []
    for _ in range(2):
        page.evaluate(f"""document.querySelector({json.dumps(selector)}).tHead.rows[0].cells[{column}].click()""")
        state = page.evaluate(f"""document.querySelector({json.dumps(selector)}).tHead.rows[0].cells[{column}].getAttribute("aria-sort")""")
        values = page.evaluate(f"{COLUMN}({json.dumps(selector)}, {column})")
        states.append(state)
        check(sorted(values) == sorted(before), f"{name}: sorting by {header} lost or changed rows")
        check(state in ("ascending", "descending") and sorted_as(values, numeric, state == "descending"),
              f"{name}: not sorted {state} by {header}: {values}")
    check(len(set(states)) == 2, f"{name}: a second click on {header} did not reverse the order ({states})")


def check_common(page, name, hostile_strings):
    check(page.evaluate("document.documentElement.getAttribute('data-sorting')") == "ready",
          f"{name}: the sorting script did not run")
    check(page.evaluate("document.scripts.length") == 1, f"{name}: more than the page's own script")
    check(page.evaluate("document.querySelectorAll('[id^=injected]').length") == 0,
          f"{name}: a student's markup became an element")
    check("PWNED" not in page.evaluate("document.title"), f"{name}: a student's script ran")
    text = page.evaluate("document.body.innerText")
    for hostile in hostile_strings:
        check(hostile in text, f"{name}: {hostile!r} not shown as text")
    handlers = page.evaluate("""Array.prototype.filter.call(document.querySelectorAll('*'), function (e) {
        return Array.prototype.some.call(e.attributes, function (a) { return /^on/i.test(a.name); }); }).length""")
    check(handlers == 0, f"{name}: {handlers} elements with event handlers")


def main(argv):
    source, build, work = (pathlib.Path(a).resolve() for a in argv[1:4])
    screenshot_to = pathlib.Path(argv[argv.index("--screenshot-to") + 1]) if "--screenshot-to" in argv else None
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else None
    browser = cdp.browser_for(work)
    try:
        # Without network inside the namespace: the page can load nothing from outside.
        page = cdp.Page(browser)
        network = page.evaluate("navigator.onLine")
        print(f"Chromium {browser.call('Browser.getVersion').get('product')}, navigator.onLine={network}")

        folder = work / "class"
        info = make_class.build_class(source, build, folder, seed=seed, students=CLASS_SIZE)
        print(f"class of {len(info['students'])} students made from seed {info['seed']}")
        # Their code, and tools/check-similarity on it: groups of renamed copies, one copy of the reference.
        submissions = work / "submissions"
        make_submissions.build_class(source, submissions, names=info["students"], copiers=[info["copier"]])
        shutil.rmtree(folder / "similarity")
        started = time.monotonic()
        similarity = subprocess.run([str(source / "tools" / "check-similarity"), str(submissions),
                                     "--output", str(folder / "similarity")], capture_output=True, text=True,
                                    timeout=900)
        took = time.monotonic() - started
        print(similarity.stdout[-2000:], similarity.stderr[-2000:], sep="\n")
        check(similarity.returncode == 0, f"check-similarity exited {similarity.returncode}")
        similarity_report = folder / "similarity" / "report.html"
        size = similarity_report.stat().st_size if similarity_report.is_file() else 0
        print(f"similarity of {len(info['students'])} submissions: {took:.0f} s, report {size} bytes")
        check(0 < size < SIMILARITY_REPORT_LIMIT, f"the similarity report is {size} bytes")
        printed = [line for line in similarity.stdout.splitlines() if line[:1].isdigit() and "  " in line]
        check(printed and printed[0].split("  ")[1:3] == [info["copier"], "reference"],
              f"stdout does not start with the reference match: {printed[:2]}")
        roster = work / "roster.csv"
        with open(roster, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["student", "pseudonym"])
            writer.writerow([info["hostile"], make_class.HOSTILE_PSEUDONYM])
        secret = work / "pseudonym-secret"
        secret.write_text("browser-test-" + os.urandom(8).hex() + "\n")
        secret.chmod(0o600)
        report = work / "report"
        result = subprocess.run([str(source / "tools" / "class-report"), str(folder), "--output", str(report),
                                 "--roster", str(roster), "--pseudonym-secret-file", str(secret),
                                 "--title", "Synthetic class"],
                                capture_output=True, text=True, timeout=300)
        print(result.stdout, end="")
        if result.returncode != 0:
            print(result.stderr, file=sys.stderr)
            check(False, f"class-report exited {result.returncode}")
            return 1

        # Two folders: the instructor's, marked staff only, and the one to publish.
        staff, public = report / "staff-only", report / "leaderboard"
        check(sorted(p.name for p in report.iterdir()) == ["leaderboard", "staff-only"],
              f"the report folder holds {sorted(p.name for p in report.iterdir())}")
        check(sorted(p.name for p in public.iterdir()) == ["leaderboard.csv", "leaderboard.html"],
              f"the leaderboard folder holds {sorted(p.name for p in public.iterdir())}")
        published = "".join(p.read_text(encoding="utf-8") for p in public.iterdir())
        for leaked in info["students"] + info["hidden_cases"] + info["public_cases"]:
            check(leaked not in published, f"the leaderboard folder names {leaked!r}")
        check((staff / "pseudonyms.csv").is_file() and "STAFF ONLY" in (staff / "README.txt").read_text(),
              "the staff folder lacks pseudonyms.csv or its STAFF ONLY note")
        size = (staff / "index.html").stat().st_size
        print(f"instructor's page of {len(info['students'])} students: {size} bytes")
        check(size < INSTRUCTOR_PAGE_LIMIT, f"the instructor's page is {size} bytes, over {INSTRUCTOR_PAGE_LIMIT}")

        # The instructor's page.
        page.open((staff / "index.html").as_uri())
        check(page.evaluate("document.readyState") == "complete", "index.html did not load")
        # (The hostile file name is make_class's made-up similarity report's, replaced here by a real
        # one; class_report.data checks that one.)
        check_common(page, "index.html", [make_class.HOSTILE_NAME, make_class.HOSTILE_PLUGIN,
                                          make_class.HOSTILE_OUTPUT, make_class.HOSTILE_PSEUDONYM])
        students = page.evaluate("document.querySelectorAll('#student-table tbody tr').length")
        check(students == len(info["students"]), f"{students} students in the table, not {len(info['students'])}")
        check(page.evaluate("getComputedStyle(document.getElementById('staff-only')).display") != "none" and
              "STAFF ONLY" in page.evaluate("document.getElementById('staff-only').innerText"),
              "the instructor's page does not show STAFF ONLY")
        # The grid: a row per student, a coloured cell per kernel naming the verdict, linking to the student's rows.
        grid = page.evaluate("""Array.prototype.map.call(document.querySelectorAll('#grid-table tbody tr'), function (row) {
            return Array.prototype.slice.call(row.cells, 1).map(function (cell) {
                var link = cell.querySelector('a');
                return [cell.getAttribute('data-kind'), getComputedStyle(cell).backgroundColor,
                        cell.innerText.trim(), link ? link.href : ''];
            }); })""")
        check(len(grid) == len(info["students"]), f"{len(grid)} rows in the grid")
        colours = {}
        for row in grid:
            for kind, colour, label, href in row:
                colours.setdefault(kind, set()).add(colour)
                check(label != "" and "#kernel-" in href and href.startswith("file://"), f"a grid cell: {kind} {label!r} {href}")
        check({"pass", "failed"} <= set(colours), f"grid kinds {sorted(colours)}")
        check(len({next(iter(c)) for c in colours.values()}) == len(colours) and all(len(c) == 1 for c in colours.values()),
              f"each kind of cell its own colour: {colours}")
        target = next(href for row in grid for kind, _, _, href in row if kind == "failed")
        details = cdp.Page(browser)
        details.open(target)
        anchor = target.split("#", 1)[1]
        check(details.evaluate(f"document.getElementById({json.dumps(anchor)}) !== null"), f"{target}: no {anchor}")
        check(details.evaluate("document.querySelectorAll('table.rows tbody tr').length") > 0, f"{target}: no rows")
        check(not details.problems(), f"a student's page: {details.problems()}")
        # The review list: one entry per student, the reference match first.
        review = page.evaluate("""Array.prototype.map.call(document.querySelectorAll('#review-table tbody tr'),
            function (row) { return row.getAttribute('data-student'); })""")
        check(review[:1] == [info["copier"]], f"the review list does not start with the reference match: {review[:3]}")
        check(len(review) == len(set(review)) and info["prober"] in review, f"review list: {review}")
        for table in ("kernel-table", "case-table", "flagged-table", "not-graded-table", "similarity-table",
                      "grid-table", "review-table"):
            rows = page.evaluate(f"document.querySelectorAll('#{table} tbody tr').length")
            check(rows > 0, f"index.html: table {table} empty or missing")
        charts = page.evaluate("""Array.prototype.map.call(document.querySelectorAll('img.chart'), function (img) {
            return [img.complete, img.naturalWidth, img.naturalHeight, img.getBoundingClientRect().width]; })""")
        check(len(charts) == 3, f"{len(charts)} charts, not 3")
        for complete, width, height, shown in charts:
            check(complete and width > 100 and height > 100 and shown > 100, f"a chart did not render: {charts}")
        hostile_link = page.evaluate(f"""(function () {{
            var row = Array.prototype.find.call(document.querySelectorAll('#student-table tbody tr'),
                function (r) {{ return r.getAttribute('data-student') === {json.dumps(info['hostile'])}; }});
            return row ? row.querySelector('a').href : null; }})()""")
        check(hostile_link is not None and hostile_link.startswith("file://") and "/students/" in hostile_link,
              f"the hostile student's link: {hostile_link}")
        page.screenshot(work / "index.png")
        page.evaluate("document.getElementById('grid').scrollIntoView()")
        page.screenshot(work / "index-grid.png")
        page.evaluate("document.getElementById('review').scrollIntoView()")
        page.screenshot(work / "index-review.png")
        page.evaluate("window.scrollTo(0, 0)")
        check_sort(page, "#student-table", "score", True, "index.html")
        check_sort(page, "#student-table", "student", False, "index.html")
        check_sort(page, "#student-table", "speedup", True, "index.html")
        check_sort(page, "#case-table", "failed", True, "index.html")
        problems = page.problems()
        check(not problems, f"index.html: {problems}")

        # check-similarity's report of the class opens, the reference match first.
        report_page = cdp.Page(browser)
        report_page.open(similarity_report.as_uri())
        kinds = report_page.evaluate("""Array.prototype.map.call(document.querySelectorAll('#pairs tr.flagged'),
            function (row) { return [row.getAttribute('data-with'), row.cells[1].innerText, row.cells[2].innerText]; })""")
        check(kinds[:1] == [["reference", info["copier"], "reference"]], f"the similarity report begins {kinds[:2]}")
        check(kinds and sorted(kinds, key=lambda k: k[0] != "reference") == kinds, "reference matches not first")
        check(report_page.evaluate("document.querySelectorAll('.side pre mark').length") > 0, "no regions marked")
        check(not report_page.problems(), f"the similarity report: {report_page.problems()}")

        # The students' leaderboard.
        board = cdp.Page(browser, 1000, 900)
        board.open((public / "leaderboard.html").as_uri())
        check_common(board, "leaderboard.html", [make_class.HOSTILE_PSEUDONYM])
        tables = board.evaluate("document.querySelectorAll('table.leaderboard').length")
        check(tables >= 2, f"{tables} leaderboard tables")
        text = board.evaluate("document.documentElement.outerHTML")
        for leaked in info["hidden_cases"] + info["public_cases"] + [n for n in info["students"]]:
            check(leaked not in text, f"leaderboard.html names {leaked!r}")
        board.screenshot(work / "leaderboard.png")
        check_sort(board, "table[data-board=overall]", "pseudonym", False, "leaderboard.html")
        check_sort(board, "table[data-board=overall]", "speedup", True, "leaderboard.html")
        problems = board.problems()
        check(not problems, f"leaderboard.html: {problems}")
    finally:
        browser.close()

    if screenshot_to is not None and (work / "index.png").exists():
        shutil.copyfile(work / "index.png", screenshot_to)
    print(f"screenshots: {work / 'index.png'}, {work / 'index-grid.png'}, {work / 'index-review.png'}, "
          f"{work / 'leaderboard.png'}")
    return summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
