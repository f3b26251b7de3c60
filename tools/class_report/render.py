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
import re
import statistics
import urllib.parse
from collections import Counter

import jinja2
from markupsafe import Markup

from . import charts, data

TEMPLATES = pathlib.Path(__file__).resolve().parent / "templates"
FLAGGED_SHOWN = 1000
SIMILAR_PAIRS_SHOWN = 200         # the flagged pairs listed; the rest are in check-similarity's report


def environment():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["points"] = lambda v: "" if v is None else f"{v:.2f}"
    env.filters["speedup"] = lambda v: "" if v is None else f"{v:.2f}x"
    env.filters["status"] = data.status_words
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


STAFF_FOLDER = "staff-only"        # the instructor's pages: never publish
PUBLIC_FOLDER = "leaderboard"      # what students may see
STAFF_README = """STAFF ONLY: do not publish this folder.

index.html and students/ name the students and the hidden cases, and show
what each submission printed; pseudonyms.csv maps each student to the name
the leaderboard shows. The folder ../{public}/ holds what may be published.
"""


def student_page_name(student, index):
    """A file name for a student's row details that no student id can bend:
    a cleaned prefix, the position and a hash of the id."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", student.name)[:24]
    digest = hashlib.sha256(student.name.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return f"{index:04d}-{cleaned}-{digest}.html"


def stats(values):
    return {"mean": statistics.fmean(values) if values else None,
            "median": statistics.median(values) if values else None,
            "count": len(values)}


def write_pages(graded, output, title, pseudonym_of=None, after_due_date=False, hold="every", reviewed=()):
    root = pathlib.Path(output)
    output = root / STAFF_FOLDER
    (output / "students").mkdir(parents=True, exist_ok=True)
    (output / "README.txt").write_text(STAFF_README.format(public=PUBLIC_FOLDER), encoding="utf-8")
    env = environment()
    assets = page_assets()
    generated = generated_at()
    pages = {s.name: "students/" + student_page_name(s, i) for i, s in enumerate(graded.students)}

    def href(student, key, base=output):
        path = student.files.get(key)
        return relative_href(path, base) if path else ""

    def details(student, kernel=None):
        return pages[student.name] + (f"#kernel-{kernel}" if kernel else "")

    def student_link(student):
        return Markup('<a href="{}">{}</a>').format(details(student), student.name)

    names = {s.name: s for s in graded.students}

    def name_link(name):
        return student_link(names[name]) if name in names else name

    kernel_figures = data.kernel_figures(graded)
    percentages = data.score_percentages(graded)
    flagged_names = data.flagged_students(graded)
    scores = [s.score for s in graded.students if s.score is not None]
    clean_scores = [s.score for s in graded.students if s.score is not None and s.name not in flagged_names]
    overall = [s.geomean for s in graded.students if data.is_positive(s.geomean)]
    overall_flagged = [s.geomean for s in graded.students if data.is_positive(s.geomean) and s.name in flagged_names]
    overall_clean = [s.geomean for s in graded.students
                     if data.is_positive(s.geomean) and s.name not in flagged_names]
    flagged = data.flagged_rows(graded)
    max_scores = {s.max_score for s in graded.students if s.max_score is not None}
    score_stats = {
        "mean": statistics.fmean(scores) if scores else None,
        "median": statistics.median(scores) if scores else None,
        "max": max(scores) if scores else None,
        "min": min(scores) if scores else None,
        "max_score": max(max_scores) if max_scores else None,
        "speedup": data.geomean(overall),
        "clean": stats(clean_scores),
        "clean_speedup": data.geomean(overall_clean),
        "flagged_students": len(flagged_names),
    }
    status_counts = sorted(Counter(s.status for s in graded.students).items(),
                           key=lambda item: data.STATUSES.index(item[0]))
    similarity_report = relative_href(graded.similarity_report, output) if graded.similarity_report else ""
    pairs = sorted(graded.similarity_pairs, key=lambda p: (p.level != "submission", -(p.similarity or 0)))
    notes = list(graded.notes)
    for student in graded.students:
        notes.extend(f"{student.name}: {note}" for note in student.notes)

    reviews = data.review_list(graded)
    cells = data.grid(graded)
    public = root / PUBLIC_FOLDER
    index = env.get_template("index.html").render(
        **assets,
        title=title, generated=generated, source=str(graded.folder),
        kernels=graded.kernels, students=graded.students, status_counts=status_counts,
        score_stats=score_stats,
        charts={
            "scores": charts.score_histogram(percentages),
            "pass_rates": charts.pass_rates(kernel_figures),
            "speedups": charts.speedup_distribution(kernel_figures, overall, overall_flagged),
        },
        kernel_figures=kernel_figures,
        case_figures=data.case_figures(graded),
        grid=cells, reviews=reviews, flagged_names=flagged_names,
        flagged=flagged[:FLAGGED_SHOWN], flagged_total=len(flagged), flagged_cut=len(flagged) > FLAGGED_SHOWN,
        not_graded=[s for s in graded.students if s.status != "graded"], skipped=graded.skipped,
        skipped_recorded=graded.skipped_recorded,
        similarity_pairs=pairs[:SIMILAR_PAIRS_SHOWN], similarity_total=len(pairs),
        similarity_checked=graded.similarity_report is not None or bool(pairs),
        similarity_report=similarity_report,
        inconsistencies=data.consistency_notes(graded), notes=notes,
        leaderboard=pseudonym_of is not None, pseudonym_of=pseudonym_of or {},
        leaderboard_href=relative_href(public / "leaderboard.html", output),
        hold=hold, reviewed=set(reviewed),
        href=href, details=details, student_link=student_link, name_link=name_link)
    (output / "index.html").write_text(index, encoding="utf-8")
    written = [output / "index.html"]

    template = env.get_template("student.html")
    for student in graded.students:
        page = output / pages[student.name]
        base = page.parent
        page.write_text(template.render(
            **assets, title=title, generated=generated, student=student, kernels=graded.kernels,
            cells=cells[student.name], flagged=student.name in flagged_names,
            files=[(label, href(student, key, base)) for key, label in
                   (("summary", "summary.md"), ("results", "results.json"), ("build_log", "build.log"))
                   if href(student, key, base)],
            pseudonym=(pseudonym_of or {}).get(student.name, ""),
            closest=graded.closest.get(student.name, {})), encoding="utf-8")

    if pseudonym_of is not None:
        with open(output / "pseudonyms.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["student", "pseudonym"])
            for student in graded.students:
                writer.writerow([spreadsheet_safe(student.name), spreadsheet_safe(pseudonym_of[student.name])])
        written.append(output / "pseudonyms.csv")
        public.mkdir(parents=True, exist_ok=True)
        boards = data.leaderboard(graded, after_due_date, hold, reviewed)
        noise = data.timing_noise(graded)
        shown = [{"name": "overall", "title": "Overall (every kernel)",
                  "entries": data.ranked(boards["overall"], pseudonym_of, noise)}]
        shown += [{"name": k, "title": k, "entries": data.ranked(boards[k], pseudonym_of, noise)}
                  for k in graded.kernels]
        scope = "every case, public and hidden" if after_due_date else "the public cases"
        page = env.get_template("leaderboard.html").render(
            **assets, title=title, generated=generated, scope=scope, after_due_date=after_due_date, boards=shown,
            noise=noise, hold=hold)
        (public / "leaderboard.html").write_text(page, encoding="utf-8")
        with open(public / "leaderboard.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["board", "rank", "pseudonym", "geomean_speedup", "tied"])
            for board in shown:
                for rank, pseudonym, speedup, tied in board["entries"]:
                    writer.writerow([board["name"], rank, spreadsheet_safe(pseudonym), f"{speedup:.4f}",
                                     "yes" if tied else ""])
        written += [public / "leaderboard.html", public / "leaderboard.csv"]
    return written
