#!/usr/bin/env python3
"""spmv-grade's report.html, the student's page, in headless Chromium from
file://, in a network namespace without network (unshare -n): graded here
on the host path (the row-faults plugin: jds wrong on the larger cases,
coo and csr_vector correct), it loads with no console error, warning or
dialog and no script; each kernel has its section with its summary; a
failing row comes before the kernel's charts, with its cause; each passing
row timed has a bar in the speedup chart, grey and its value in brackets
when it is correctness only. The screenshot is kept in WORK_DIR
(report.png), or copied to --screenshot-to PNG.

The same grading's screen: one line a row with its points, a
correctness-only row marked "(*)" and the reason said once after the
table, a summary line a kernel. It is drawn as a terminal shows it
(console.html, no script) and kept as console.png, or copied to
--console-screenshot-to PNG.

Usage: test_student_page.py SOURCE_DIR WORK_DIR --grader SPMV_GRADE --submission ROW_FAULTS_PLUGIN
                            --reference HOST_REFERENCE [--screenshot-to PNG] [--console-screenshot-to PNG]
Exits 77 (skipped) when Chromium is not installed or cannot start here; CI
installs it (.ci/install-test-services) and fails when this test skipped.
"""

import html
import json
import pathlib
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "class_report"))
import cdp  # noqa: E402
from checks import check, summary  # noqa: E402

CASES = ["arrow", "teaching_kit_4x4", "poisson_2d", "wide"]
KERNELS = ["coo", "csr_vector", "jds"]


def main(argv):
    source, work = (pathlib.Path(a).resolve() for a in argv[1:3])
    given = {name: argv[argv.index(name) + 1] for name in ("--grader", "--submission", "--reference")}
    screenshot_to = pathlib.Path(argv[argv.index("--screenshot-to") + 1]) if "--screenshot-to" in argv else None
    console_to = (pathlib.Path(argv[argv.index("--console-screenshot-to") + 1])
                  if "--console-screenshot-to" in argv else None)
    browser = cdp.browser_for(work)
    try:
        out = work / "graded"
        command = [given["--grader"], "--submission", given["--submission"], "--reference", given["--reference"],
                   "--cases", str(source / "testcases" / "public"), "--kernel", ",".join(KERNELS),
                   "--output-dir", str(out), "--timeout", "30"]
        for case in CASES:
            command += ["--case", case]
        graded = subprocess.run(command, capture_output=True, text=True, timeout=600)
        check(graded.returncode == 1, f"spmv-grade exited {graded.returncode}: {graded.stderr[-2000:]}")
        rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines() if line.strip()]
        check(len(rows) == len(CASES) * len(KERNELS), f"{len(rows)} rows graded")
        check_screen(graded.stdout, rows)
        console = work / "console.html"
        console.write_text(screen_page(graded.stdout))
        screen = cdp.Page(browser, 1100, 900)
        screen.open(console.as_uri())
        check(not screen.problems(), f"console.html said: {screen.problems()}")
        screen.screenshot(work / "console.png", full_page=True)
        page_file = out / "report.html"
        check(page_file.is_file(), "no report.html beside summary.md")
        if page_file.is_file():
            page = cdp.Page(browser, 1100, 900)
            page.open(page_file.as_uri())
            check(page.evaluate("document.readyState") == "complete", "report.html did not load")
            problems = page.problems()
            check(not problems, f"the page said: {problems}")
            check(page.evaluate("document.scripts.length") == 0, "the page holds a script")
            sections = page.evaluate("Array.prototype.map.call(document.querySelectorAll('section.kernel'),"
                                     " function (s) { return s.id; })")
            check(sections == [f"kernel-{k}" for k in KERNELS], f"the kernels' sections: {sections}")
            for kernel in KERNELS:
                text = page.evaluate(f"document.querySelector('#kernel-{kernel} .summary').innerText")
                passed = sum(1 for r in rows if r["kernel"] == kernel and r["verdict"] == "pass")
                graded_rows = sum(1 for r in rows if r["kernel"] == kernel)
                check(text.startswith(f"{kernel}: {passed} of {graded_rows} rows pass"), f"{kernel}'s summary: {text!r}")
                failing = [r for r in rows if r["kernel"] == kernel and r["verdict"] != "pass"]
                shown = page.evaluate(f"""Array.prototype.map.call(document.querySelectorAll('#kernel-{kernel} .failing'),
                    function (d) {{ return [d.getAttribute('data-case'), d.innerText]; }})""")
                check([c for c, _ in shown] == [r["case"] for r in failing], f"{kernel}'s failing rows: {shown}")
                for (case, text), row in zip(shown, failing):
                    check(row["verdict"] in text and row["cause"] in text, f"{kernel} / {case}: no cause in {text!r}")
                if failing:
                    # The failing rows come first, before the charts.
                    order = page.evaluate(f"""(function () {{
                        var s = document.querySelector('#kernel-{kernel}');
                        var f = s.querySelector('.failing'), c = s.querySelector('figure');
                        return !c || !!(f.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING); }})()""")
                    check(order, f"{kernel}: a chart before the failing rows")
                bars = page.evaluate(f"""Array.prototype.map.call(
                    document.querySelectorAll('#kernel-{kernel} figure:first-of-type rect.bar'),
                    function (b) {{ return [b.getAttribute('data-case'), b.getAttribute('data-scored'),
                                            b.getAttribute('fill'), parseFloat(b.getAttribute('width'))]; }})""")
                timed = [r for r in rows if r["kernel"] == kernel and r["verdict"] == "pass" and r["speedup"]]
                check([b[0] for b in bars] == [r["case"] for r in timed], f"{kernel}'s speedup bars: {bars}")
                for bar, row in zip(bars, timed):
                    scored = not row["correctness_only"]
                    check(bar[1] == ("yes" if scored else "no") and (bar[2] == "#bbbbbb") != scored and bar[3] > 0,
                          f"{kernel} / {row['case']}: bar {bar} for a row scored={scored}")
            page.screenshot(work / "report.png", full_page=True)
    finally:
        browser.close()
    if screenshot_to is not None and (work / "report.png").exists():
        shutil.copyfile(work / "report.png", screenshot_to)
    if console_to is not None and (work / "console.png").exists():
        shutil.copyfile(work / "console.png", console_to)
    return summary()


def check_screen(stdout, rows):
    """The screen as a student reads it: a progress line a row with its
    points and verdict, a correctness-only row's marked "(*)" without its
    reason, the reason once, a summary line a kernel."""
    lines = stdout.splitlines()
    for row in rows:
        name = f"{row['kernel']} / {row['case']} ("
        line = next((l for l in lines if name in l and l.lstrip().startswith("[")), None)
        check(line is not None, f"no progress line for {name[:-2]}")
        if line is None:
            continue
        check(f"): {row['verdict']}" in line, f"{name[:-2]}: its verdict is not on its line: {line!r}")
        if row["correctness_only"]:
            check(line.endswith("correctness only (*)"), f"{name[:-2]} is not marked correctness only: {line!r}")
            check(row["correctness_only"] not in line, f"{name[:-2]}: its reason is on its line: {line!r}")
            check(re.search(r"; [0-9.]+x the reference", line) is None,
                  f"{name[:-2]}: a speedup that scores nothing looks like one that does: {line!r}")
    notes = [l for l in lines if l.startswith("(*) ")]
    check(len(notes) == (1 if any(r["correctness_only"] for r in rows) else 0), f"the reason said {len(notes)} times")
    for kernel in KERNELS:
        check(any(l.lstrip().startswith(f"{kernel}: ") and " rows pass" in l for l in lines), f"no summary of {kernel}")


def screen_page(stdout):
    """The screen as a terminal draws it: the grader's own lines, escaped."""
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            "<title>spmv-grade</title><style>body{margin:0;background:#1e1e1e}"
            "pre{margin:0;padding:12px;color:#e8e8e8;font:13px/1.35 monospace;white-space:pre-wrap;word-break:break-all}</style></head>"
            f"<body><pre>$ spmv-grade ...\n{html.escape(stdout)}</pre></body></html>\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
