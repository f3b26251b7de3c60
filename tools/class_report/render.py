"""Writes the pages: report/index.html (the instructor's), report/leaderboard.html
and report/leaderboard.csv (the students'). Jinja2 with autoescaping renders
every string; the only markup not escaped is the page's own style, script
and the charts' data: URIs."""

import base64
import csv
import datetime
import hashlib
import os
import pathlib
import statistics
import urllib.parse
from collections import Counter

import jinja2
from markupsafe import Markup

from . import charts, data

TEMPLATES = pathlib.Path(__file__).resolve().parent / "templates"
FLAGGED_SHOWN = 1000


def environment():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["points"] = lambda v: "" if v is None else f"{v:.2f}"
    env.filters["speedup"] = lambda v: "" if v is None else f"{v:.2f}x"
    return env


def page_assets():
    script = (TEMPLATES / "sort.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return {"script": script, "script_hash": f"sha256-{digest}",
            "style": (TEMPLATES / "style.css").read_text(encoding="utf-8")}


def relative_href(target, output):
    """A link from the output folder to a file, every component percent-encoded."""
    relative = os.path.relpath(os.path.abspath(target), os.path.abspath(output))
    return "/".join(urllib.parse.quote(part, safe="") for part in pathlib.PurePath(relative).parts)


def spreadsheet_safe(text):
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def generated_at():
    return datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()


def write_pages(graded, output, title, pseudonym_of=None, after_due_date=False):
    output = pathlib.Path(output)
    output.mkdir(parents=True, exist_ok=True)
    env = environment()
    assets = page_assets()
    generated = generated_at()

    def href(student, key):
        path = student.files.get(key)
        return relative_href(path, output) if path else ""

    def student_link(student):
        target = href(student, "summary") or href(student, "build_log") or href(student, "results")
        if not target:
            return student.name
        return Markup('<a href="{}">{}</a>').format(target, student.name)

    names = {s.name: s for s in graded.students}

    def name_link(name):
        return student_link(names[name]) if name in names else name

    kernel_figures = data.kernel_figures(graded)
    percentages = data.score_percentages(graded)
    scores = [s.score for s in graded.students if s.score is not None]
    overall = [s.geomean for s in graded.students if data.is_positive(s.geomean)]
    flagged = data.flagged_rows(graded)
    max_scores = {s.max_score for s in graded.students if s.max_score is not None}
    score_stats = {
        "mean": statistics.fmean(scores) if scores else None,
        "median": statistics.median(scores) if scores else None,
        "max": max(scores) if scores else None,
        "min": min(scores) if scores else None,
        "max_score": max(max_scores) if max_scores else None,
        "speedup": data.geomean(overall),
    }
    status_counts = sorted(Counter(s.status for s in graded.students).items(),
                           key=lambda item: data.STATUSES.index(item[0]))
    similarity_report = relative_href(graded.similarity_report, output) if graded.similarity_report else ""
    pairs = sorted(graded.similarity_pairs, key=lambda p: (p.level != "submission", -(p.similarity or 0)))
    notes = list(graded.notes)
    for student in graded.students:
        notes.extend(f"{student.name}: {note}" for note in student.notes)

    index = env.get_template("index.html").render(
        **assets,
        title=title, generated=generated, source=str(graded.folder),
        kernels=graded.kernels, students=graded.students, status_counts=status_counts,
        score_stats=score_stats,
        charts={
            "scores": charts.score_histogram(percentages),
            "pass_rates": charts.pass_rates(kernel_figures),
            "speedups": charts.speedup_distribution(kernel_figures, overall),
        },
        kernel_figures=kernel_figures,
        case_figures=data.case_figures(graded),
        flagged=flagged[:FLAGGED_SHOWN], flagged_total=len(flagged), flagged_cut=len(flagged) > FLAGGED_SHOWN,
        not_graded=[s for s in graded.students if s.status != "graded"],
        similarity_pairs=pairs, similarity_checked=graded.similarity_report is not None or bool(pairs),
        similarity_report=similarity_report,
        inconsistencies=data.consistency_notes(graded), notes=notes,
        leaderboard=pseudonym_of is not None, pseudonym_of=pseudonym_of or {},
        href=href, student_link=student_link, name_link=name_link)
    (output / "index.html").write_text(index, encoding="utf-8")
    written = [output / "index.html"]

    if pseudonym_of is not None:
        boards = data.leaderboard(graded, after_due_date)
        shown = [{"name": "overall", "title": "Overall (every kernel)",
                  "entries": data.ranked(boards["overall"], pseudonym_of)}]
        shown += [{"name": k, "title": k, "entries": data.ranked(boards[k], pseudonym_of)} for k in graded.kernels]
        scope = "every case, public and hidden" if after_due_date else "the public cases"
        page = env.get_template("leaderboard.html").render(
            **assets, title=title, generated=generated, scope=scope, after_due_date=after_due_date, boards=shown)
        (output / "leaderboard.html").write_text(page, encoding="utf-8")
        with open(output / "leaderboard.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["board", "rank", "pseudonym", "geomean_speedup"])
            for board in shown:
                for rank, pseudonym, speedup in board["entries"]:
                    writer.writerow([board["name"], rank, spreadsheet_safe(pseudonym), f"{speedup:.4f}"])
        written += [output / "leaderboard.html", output / "leaderboard.csv"]
    return written
