#!/usr/bin/env python3
"""Both pages of tools/class-report in headless Chromium, from file://, in a
network namespace without network (unshare -n): no console error, no
warning, no dialog; the tables and the charts there; sorting by a click on
a header works both ways; the hostile student's strings shown as text, never
as elements; nothing ran that the page did not hold. Screenshots are kept
in WORK_DIR (index.png, index-full.png, leaderboard.png).

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

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cdp  # noqa: E402
import make_class  # noqa: E402
from checks import check, summary  # noqa: E402

SKIP = 77


def skip(reason):
    print(f"SKIPPED: {reason}")
    sys.exit(SKIP)


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
    chromium = os.environ.get("SPMV_CHROMIUM") or cdp.find_chromium()
    if not chromium:
        skip("Chromium is not installed (Debian: apt-get install chromium; .ci/install-test-services installs it)")
    if not shutil.which("unshare"):
        skip("unshare (util-linux) is not installed")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)

    try:
        browser = cdp.Browser(chromium, work / "profile", work / "chromium.log")
    except cdp.CannotStart as error:
        skip(f"Chromium cannot start in a network namespace here: {error}")
    try:
        # Without network inside the namespace: the page can load nothing from outside.
        page = cdp.Page(browser)
        network = page.evaluate("navigator.onLine")
        print(f"Chromium {browser.call('Browser.getVersion').get('product')}, navigator.onLine={network}")

        folder = work / "class"
        info = make_class.build_class(source, build, folder, seed=seed)
        print(f"class of {len(info['students'])} students made from seed {info['seed']}")
        roster = work / "roster.csv"
        with open(roster, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["student", "pseudonym"])
            writer.writerow([info["hostile"], make_class.HOSTILE_PSEUDONYM])
        secret = work / "pseudonym-secret"
        secret.write_text("browser-test-" + os.urandom(8).hex() + "\n")
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

        # The instructor's page.
        page.open((report / "index.html").as_uri())
        check(page.evaluate("document.readyState") == "complete", "index.html did not load")
        check_common(page, "index.html", [make_class.HOSTILE_NAME, make_class.HOSTILE_PLUGIN,
                                          make_class.HOSTILE_OUTPUT, make_class.HOSTILE_FILE,
                                          make_class.HOSTILE_PSEUDONYM])
        students = page.evaluate("document.querySelectorAll('#student-table tbody tr').length")
        check(students == len(info["students"]), f"{students} students in the table, not {len(info['students'])}")
        for table in ("kernel-table", "case-table", "flagged-table", "not-graded-table", "similarity-table"):
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
        check(hostile_link is not None and hostile_link.startswith("file://") and hostile_link.endswith("/summary.md"),
              f"the hostile student's link: {hostile_link}")
        page.screenshot(work / "index.png")
        page.screenshot(work / "index-full.png", full_page=True)
        check_sort(page, "#student-table", "score", True, "index.html")
        check_sort(page, "#student-table", "student", False, "index.html")
        check_sort(page, "#student-table", "speedup", True, "index.html")
        check_sort(page, "#case-table", "failed", True, "index.html")
        problems = page.problems()
        check(not problems, f"index.html: {problems}")

        # The students' leaderboard.
        board = cdp.Page(browser, 1000, 900)
        board.open((report / "leaderboard.html").as_uri())
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

    if screenshot_to is not None:
        shutil.copyfile(work / "index.png", screenshot_to)
    print(f"screenshots: {work / 'index.png'}, {work / 'index-full.png'}, {work / 'leaderboard.png'}")
    return summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
