"""Reading a graded class folder and computing what the pages show.

The folder is the one tools/grade-class writes:

    DIR/class.csv        student,score,max_score,<kernel>...,geomean_speedup,status,flags
    DIR/<student>/       results.json, summary.md, rows.jsonl, logs/ (spmv-grade's reports);
                         build.log and results.json only when the submission did not build
    DIR/skipped.json     the entries of the submissions folder that are not students, with
                         why (optional: a folder from an older grade-class has none)
    DIR/similarity/      tools/check-similarity's report.html and pairs.csv (optional)

Nothing here trusts a student-controlled string: names, plugin names, file
names and output are kept as text and escaped when the pages are rendered.
"""

import csv
import dataclasses
import hashlib
import hmac
import json
import math
import pathlib
import statistics
from collections import Counter

HEAD_COLUMNS = ["student", "score", "max_score"]
TAIL_COLUMNS = ["geomean_speedup", "status", "flags"]
STATUSES = ("graded", "build_failed", "grader_error", "no_gpu", "incomplete")
# How the pages name a status: the ones a student was not graded by say so.
STATUS_WORDS = {"no_gpu": "not graded: no GPU"}

# Verdicts whose rows are left out of the score (their points go to the
# kernel's other rows): not the submission's doing, so not "graded"; and
# rows skipped for want of a GPU, which were not graded at all.
NOT_GRADED = {"not_applicable", "case_error", "grader_error", "skipped"}

# Visibility of a row that every student may see before the due date.
PUBLIC_VISIBILITY = "visible"

MAX_ROWS_FILE_BYTES = 64 * 1024 * 1024
OUTPUT_EXCERPT_CHARS = 400


class ClassError(Exception):
    """The class folder cannot be read as a graded class (a usage error)."""


def status_words(status):
    """A student's status as the pages and the console say it."""
    return STATUS_WORDS.get(status, status.replace("_", " "))


@dataclasses.dataclass
class Row:
    kernel: str
    case: str
    case_order: int
    verdict: str
    cause: str
    visibility: str
    speedup: object       # float or None
    flags: list
    summary: str
    output: str
    accepted_flags: list = dataclasses.field(default_factory=list)  # the policy's [flags] accept
    reference_ms: object = None       # float or None: the reference kernel's time on the case
    detail: str = ""
    suspicious: list = dataclasses.field(default_factory=list)  # what in its output looks like an attempt

    @property
    def open_flags(self):
        """Flags the policy did not accept: they keep a row off the boards."""
        return [f for f in self.flags if f not in self.accepted_flags]

    @property
    def graded(self):
        return self.verdict not in NOT_GRADED

    @property
    def passed(self):
        return self.verdict == "pass"

    @property
    def timed(self):
        return is_positive(self.speedup)

    @property
    def public(self):
        return self.visibility == PUBLIC_VISIBILITY

    @property
    def failure(self):
        """How the row failed, as the per-case table counts it."""
        return f"{self.verdict}: {self.cause}" if self.cause else self.verdict


@dataclasses.dataclass
class Student:
    name: str
    score: object         # float or None, from class.csv
    max_score: object
    points: dict          # kernel -> float or None, from class.csv
    geomean: object       # float or None, from class.csv
    status: str
    flags: list           # from class.csv
    folder: object = None             # pathlib.Path of DIR/<student>, when it is one
    rows: list = dataclasses.field(default_factory=list)
    has_rows: bool = False
    plugin: str = ""                  # the plugin's own name, from results.json
    files: dict = dataclasses.field(default_factory=dict)  # summary, results, build_log -> Path
    notes: list = dataclasses.field(default_factory=list)

    def rows_of(self, kernel):
        return [r for r in self.rows if r.kernel == kernel]


@dataclasses.dataclass
class SimilarityPair:
    level: str            # submission or file
    a: str
    b: str
    file_a: str
    file_b: str
    similarity: object


@dataclasses.dataclass
class Closest:
    """A submission's most similar other source, from check-similarity."""
    other: str
    similarity: float
    flagged: bool


@dataclasses.dataclass
class Skipped:
    """An entry of the submissions folder that grade-class did not grade."""
    entry: str
    why: str
    command: str          # what unpacks an archive into a folder to grade, or ""


@dataclasses.dataclass
class Class:
    folder: pathlib.Path
    kernels: list
    students: list
    skipped: list = dataclasses.field(default_factory=list)  # Skipped, from skipped.json
    skipped_recorded: bool = False    # whether grade-class wrote skipped.json
    similarity_report: object = None  # pathlib.Path of report.html, when present
    similarity_pairs: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)
    # student -> {"reference": Closest, "classmate": Closest}, from submissions.csv
    # (every submission's best scores) or, for older reports, the flagged pairs.
    closest: dict = dataclasses.field(default_factory=dict)

    def student(self, name):
        for s in self.students:
            if s.name == name:
                return s
        return None


# ------------------------------------------------------------------ numbers

def is_positive(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def number(text):
    """A class.csv cell as a float, None when empty; ValueError otherwise."""
    text = (text or "").strip()
    if text == "":
        return None
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {text}")
    return value


def geomean(values):
    values = [v for v in values if is_positive(v)]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


# ------------------------------------------------------------------ reading

def safe_component(name):
    """Whether a student id can name a folder of DIR (one path component)."""
    return name not in ("", ".", "..") and "/" not in name and "\0" not in name


def read_class_csv(path):
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            records = list(reader)
    except OSError as error:
        raise ClassError(f"cannot read {path}: {error.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise ClassError(f"{path}: not a CSV file of UTF-8 text ({error})") from None
    if header is None:
        raise ClassError(f"{path} is empty")
    if header[:3] != HEAD_COLUMNS or header[-3:] != TAIL_COLUMNS or len(header) < 7:
        raise ClassError(f"{path}: the header must be {','.join(HEAD_COLUMNS)},<kernel>...,"
                         f"{','.join(TAIL_COLUMNS)}; it is {','.join(header)}")
    kernels = header[3:-3]
    if len(set(kernels)) != len(kernels) or any(not k for k in kernels):
        raise ClassError(f"{path}: the kernel columns must be distinct names: {','.join(kernels)}")
    students, seen = [], set()
    for line, record in enumerate(records, 2):
        if not record or all(not cell.strip() for cell in record):
            continue
        if len(record) != len(header):
            raise ClassError(f"{path}:{line}: {len(record)} cells, the header has {len(header)}")
        cells = dict(zip(header, record))
        name = cells["student"]
        if name in seen:
            raise ClassError(f"{path}:{line}: student {name!r} appears twice")
        seen.add(name)
        try:
            student = Student(
                name=name,
                score=number(cells["score"]),
                max_score=number(cells["max_score"]),
                points={k: number(cells[k]) for k in kernels},
                geomean=number(cells["geomean_speedup"]),
                status=cells["status"].strip(),
                flags=[f for f in cells["flags"].split(";") if f.strip()])
        except ValueError as error:
            raise ClassError(f"{path}:{line}: {error}") from None
        if student.status not in STATUSES:
            raise ClassError(f"{path}:{line}: status {student.status!r} is not one of {', '.join(STATUSES)}")
        students.append(student)
    return kernels, students


# What a submission printed that is worth a look: it names what a kernel has
# no business reaching (the reference, the cases, the grader's files), or it
# prints what looks like a score. (pattern, why), matched case-insensitively.
SUSPICIOUS_OUTPUT = [
    (r"libspmv_reference|reference[_ ]?(plugin|kernel|runner)|spmv_reference", "names the reference"),
    (r"testcases|hidden|\.mtx\b|cases\.ini", "names the cases"),
    (r"secret|seed", "names the secret or the seed"),
    (r"/proc/|/etc/|/autograder|/home/|\.\./", "names paths of the machine"),
    (r"\bdlopen|\bdlsym|ld_preload|cusparse|cublas|cusolver", "loads libraries"),
    (r"\bscore\b|\bpoints\b|results\.json|\bpass(ed)?\b.*\d+\s*/\s*\d+", "prints a score"),
]


def suspicious_output(text):
    """The reasons text (a submission's output) is worth a look, if any."""
    import re
    return [why for pattern, why in SUSPICIOUS_OUTPUT if re.search(pattern, text, re.IGNORECASE)]


def read_rows(path, student):
    rows = []
    try:
        if path.stat().st_size > MAX_ROWS_FILE_BYTES:
            student.notes.append(f"rows.jsonl is over {MAX_ROWS_FILE_BYTES >> 20} MiB: not read")
            return rows
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        student.notes.append(f"rows.jsonl cannot be read: {error.strerror}")
        return rows
    bad = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            bad += 1
            continue
        if not isinstance(record, dict) or not isinstance(record.get("kernel"), str) \
                or not isinstance(record.get("case"), str):
            bad += 1
            continue
        flags = record.get("flags")
        accepted = record.get("accepted_flags")
        speedup = record.get("speedup")
        order = record.get("case_order")
        output = record.get("submission_output")
        rows.append(Row(
            kernel=record["kernel"],
            case=record["case"],
            case_order=order if isinstance(order, int) and not isinstance(order, bool) else 1 << 30,
            verdict=str(record.get("verdict", "")),
            cause=str(record.get("cause") or ""),
            visibility=str(record.get("visibility") or "visible"),
            speedup=float(speedup) if is_positive(speedup) else None,
            flags=sorted({str(f) for f in flags}) if isinstance(flags, list) else [],
            summary=str(record.get("summary") or ""),
            output=str(output)[:OUTPUT_EXCERPT_CHARS] if output else "",
            accepted_flags=sorted({str(f) for f in accepted}) if isinstance(accepted, list) else [],
            reference_ms=float(record["reference_ms"]) if is_positive(record.get("reference_ms")) else None,
            detail=str(record.get("detail") or "")[:OUTPUT_EXCERPT_CHARS]))
        suspicious = suspicious_output(str(output)) if output else []
        if suspicious:
            rows[-1].suspicious = suspicious
    if bad:
        student.notes.append(f"rows.jsonl: {bad} line(s) that are not rows, left out")
    return rows


def read_student_folder(root, student):
    if not safe_component(student.name):
        student.notes.append("the student id cannot name a folder: no reports linked")
        return
    folder = root / student.name
    if not folder.is_dir() or folder.is_symlink():
        student.notes.append("no report folder")
        return
    student.folder = folder
    for key, name in (("summary", "summary.md"), ("results", "results.json"), ("build_log", "build.log")):
        if (folder / name).is_file():
            student.files[key] = folder / name
    rows_path = folder / "rows.jsonl"
    if rows_path.is_file():
        student.rows = read_rows(rows_path, student)
        student.has_rows = True
    if "results" in student.files:
        try:
            results = json.loads(student.files["results"].read_text(encoding="utf-8", errors="replace"))
            extra = results.get("extra_data") if isinstance(results, dict) else None
            if isinstance(extra, dict) and isinstance(extra.get("submission"), str):
                student.plugin = extra["submission"]
        except (OSError, json.JSONDecodeError):
            student.notes.append("results.json cannot be read")


def unsafe_cell(text):
    """A pairs.csv cell as the student named it (check-similarity prefixes a
    cell a spreadsheet would run as a formula with a quote)."""
    if text[:1] == "'" and text[1:2] in ("=", "+", "-", "@", "\t", "\r"):
        return text[1:]
    return text


def read_similarity(folder, notes):
    pairs_path = folder / "pairs.csv"
    pairs = []
    if not pairs_path.is_file():
        notes.append(f"similarity: no pairs.csv in {folder}")
        return pairs
    try:
        with open(pairs_path, newline="", encoding="utf-8") as handle:
            for record in csv.DictReader(handle):
                try:
                    similarity = float(record.get("similarity") or "")
                except ValueError:
                    similarity = None
                pairs.append(SimilarityPair(
                    level=record.get("level") or "",
                    a=unsafe_cell(record.get("a") or ""), b=unsafe_cell(record.get("b") or ""),
                    file_a=unsafe_cell(record.get("file_a") or ""), file_b=unsafe_cell(record.get("file_b") or ""),
                    similarity=similarity))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        notes.append(f"similarity: {pairs_path} cannot be read ({error})")
    return pairs


def read_closest(folder, pairs, notes):
    """Each submission's highest similarity with the reference (or other
    earlier code) and with a classmate."""
    closest = {}
    path = folder / "submissions.csv"
    if path.is_file():
        try:
            with open(path, newline="", encoding="utf-8") as handle:
                for record in csv.DictReader(handle):
                    name = unsafe_cell(record.get("submission") or "")
                    entry = closest.setdefault(name, {})
                    for kind in ("reference", "classmate"):
                        try:
                            value = float(record.get(f"{kind}_similarity") or "")
                        except ValueError:
                            continue
                        entry[kind] = Closest(unsafe_cell(record.get(kind) or ""), value,
                                              (record.get(f"{kind}_flagged") or "") == "yes")
            return closest
        except (OSError, UnicodeDecodeError, csv.Error) as error:
            notes.append(f"similarity: {path} cannot be read ({error})")
    for pair in pairs:
        if pair.level != "submission" or pair.similarity is None:
            continue
        sides = [(pair.a, pair.b), (pair.b, pair.a)]
        for name, other in sides:
            kind = "reference" if other == "reference" else "classmate"
            entry = closest.setdefault(name, {})
            if kind not in entry or entry[kind].similarity < pair.similarity:
                entry[kind] = Closest(other, pair.similarity, True)
    return closest


def read_skipped(path, notes):
    """The entries of the submissions folder grade-class did not grade
    (DIR/skipped.json), or [] when there is no such file."""
    if not path.is_file():
        return []
    try:
        entries = json.loads(path.read_text(encoding="utf-8", errors="replace")).get("skipped")
        if not isinstance(entries, list):
            raise ValueError("no list of entries")
        return [Skipped(str(e["entry"]), str(e.get("why") or ""), str(e.get("command") or "")) for e in entries]
    except (OSError, ValueError, AttributeError, KeyError, TypeError) as error:
        notes.append(f"{path.name} cannot be read ({error}): entries of the submissions folder may be missing")
        return []


def not_graded_for_want_of_a_gpu(student):
    """A student class.csv calls graded whose rows were skipped for want of
    a GPU (an older grade-class): counted as no_gpu, its zeros no score."""
    if student.status == "graded" and any(r.verdict == "skipped" and r.cause == "no_gpu" for r in student.rows):
        student.status = "no_gpu"
        student.score = student.geomean = None
        student.points = {kernel: None for kernel in student.points}
        student.notes.append("class.csv says graded, but its rows were skipped for want of a GPU: "
                             "counted as not graded: no GPU")


def load_class(folder, similarity=None):
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise ClassError(f"{folder} is not a folder")
    kernels, students = read_class_csv(folder / "class.csv")
    graded = Class(folder=folder, kernels=kernels, students=students)
    graded.skipped = read_skipped(folder / "skipped.json", graded.notes)
    graded.skipped_recorded = (folder / "skipped.json").is_file()
    for student in students:
        read_student_folder(folder, student)
        not_graded_for_want_of_a_gpu(student)
        if student.status == "graded" and not student.has_rows:
            student.notes.append("graded, but no rows.jsonl")
        unknown = sorted({r.kernel for r in student.rows} - set(kernels))
        if unknown:
            student.notes.append(f"rows of kernels class.csv has no column for: {', '.join(unknown)}")
    similarity_folder = pathlib.Path(similarity) if similarity else folder / "similarity"
    if similarity_folder.is_dir():
        graded.similarity_pairs = read_similarity(similarity_folder, graded.notes)
        graded.closest = read_closest(similarity_folder, graded.similarity_pairs, graded.notes)
        if (similarity_folder / "report.html").is_file():
            graded.similarity_report = similarity_folder / "report.html"
    elif similarity:
        raise ClassError(f"--similarity {similarity} is not a folder")
    return graded


# ------------------------------------------------------------------ the instructor's figures

def kernel_figures(graded):
    """Per kernel: points from class.csv; pass rates and speedups from the rows."""
    figures = []
    for kernel in graded.kernels:
        points = [s.points[kernel] for s in graded.students if s.points[kernel] is not None]
        with_rows = full_pass = rows_graded = rows_passed = 0
        speedups, flagged_speedups, clean_speedups = [], [], []
        for student in graded.students:
            rows = [r for r in student.rows_of(kernel) if r.graded]
            if not rows:
                continue
            with_rows += 1
            rows_graded += len(rows)
            rows_passed += sum(r.passed for r in rows)
            full_pass += all(r.passed for r in rows)
            mean = geomean([r.speedup for r in rows if r.passed and r.timed])
            if mean is not None:
                speedups.append(mean)
                if any(r.open_flags for r in rows):
                    flagged_speedups.append(mean)
                else:
                    clean_speedups.append(mean)
        figures.append({
            "kernel": kernel,
            "mean_points": statistics.fmean(points) if points else None,
            "max_points": max(points) if points else None,
            "students_with_rows": with_rows,
            "students_full_pass": full_pass,
            "student_pass_rate": full_pass / with_rows if with_rows else None,
            "rows_graded": rows_graded,
            "rows_passed": rows_passed,
            "row_pass_rate": rows_passed / rows_graded if rows_graded else None,
            "speedups": speedups,
            "median_speedup": median(speedups),
            "flagged_speedups": flagged_speedups,
            "clean_speedups": clean_speedups,
            "median_speedup_unflagged": median(clean_speedups),
        })
    return figures


# Verdicts of a kernel not written yet: counted apart, so that a class's
# stubs do not drown every other cause.
QUIET_VERDICTS = {"not_implemented"}


def case_figures(graded):
    """Per case: the submissions that failed it, by kernel, and how."""
    cases = {}
    for student in graded.students:
        for row in student.rows:
            if not row.graded:
                continue
            entry = cases.setdefault(row.case, {
                "case": row.case, "order": row.case_order, "visibility": Counter(),
                "students": set(), "failed_students": set(), "failed_by_kernel": Counter(), "causes": Counter(),
                "quiet": Counter()})
            entry["order"] = min(entry["order"], row.case_order)
            entry["visibility"][row.visibility] += 1
            entry["students"].add(student.name)
            if not row.passed:
                entry["failed_students"].add(student.name)
                entry["failed_by_kernel"][row.kernel] += 1
                if row.verdict in QUIET_VERDICTS:
                    entry["quiet"][row.verdict] += 1
                else:
                    entry["causes"][row.failure] += 1
    figures = []
    for entry in cases.values():
        graded_count = len(entry["students"])
        failed = len(entry["failed_students"])
        figures.append({
            "case": entry["case"],
            "order": entry["order"],
            "visibility": entry["visibility"].most_common(1)[0][0],
            "students": graded_count,
            "failed": failed,
            "failed_share": failed / graded_count if graded_count else 0.0,
            "failed_by_kernel": [(k, entry["failed_by_kernel"][k]) for k in graded.kernels
                                 if entry["failed_by_kernel"][k]],
            "causes": entry["causes"].most_common(3),
            "quiet": sorted(entry["quiet"].items()),
            "failed_students": sorted(entry["failed_students"], key=str.lower),
        })
    figures.sort(key=lambda f: (-f["failed"], f["order"], f["case"]))
    return figures


def flagged_rows(graded):
    found = []
    for student in graded.students:
        for row in student.rows:
            if row.flags:
                found.append((student, row))
    return found


def score_percentages(graded):
    return [100.0 * s.score / s.max_score for s in graded.students
            if s.score is not None and s.max_score]


def consistency_notes(graded):
    """Where class.csv and a student's rows disagree, for the instructor to look at."""
    notes = []
    for student in graded.students:
        if not student.has_rows:
            continue
        row_flags = sorted({f for r in student.rows for f in r.flags})
        if row_flags != sorted(set(student.flags)):
            notes.append((student, f"class.csv flags {';'.join(student.flags) or '(none)'}, "
                                   f"rows.jsonl flags {';'.join(row_flags) or '(none)'}"))
        mean = geomean([r.speedup for r in student.rows if r.timed])
        if (mean is None) != (student.geomean is None) or \
                (mean is not None and abs(mean - student.geomean) > 0.005 * mean + 0.005):
            shown = "(none)" if student.geomean is None else f"{student.geomean:.3f}"
            computed = "(none)" if mean is None else f"{mean:.3f}"
            notes.append((student, f"class.csv geometric-mean speedup {shown}, from rows.jsonl {computed}"))
    return notes


# ------------------------------------------------------------------ the leaderboard

# Who stays on the boards while a flag is not reviewed: nobody's boards
# ("every", the default) or only the flagged kernel's ("kernel").
HOLD_CHOICES = ("every", "kernel")


def leaderboard(graded, after_due_date, hold="every", reviewed=()):
    """The boards: {"overall": [...], kernel: [...]}, each a list of
    (student, speedup) best first. A student is on a kernel's board when
    every graded row of that kernel (public rows only, unless after the due
    date) passed, carries no flag and was timed; the figure is the
    geometric mean of those rows' speedups. On the overall board when on
    every kernel's board, with the geometric mean over all those rows.
    A student with a flag the policy does not accept, among those rows, is
    held off every board (hold "every") until named in `reviewed`; with hold
    "kernel", only off the flagged kernel's board."""
    boards = {"overall": []}
    for kernel in graded.kernels:
        boards[kernel] = []
    for student in graded.students:
        if student.status != "graded" or not student.has_rows:
            continue
        seen = [r for r in student.rows if r.graded and (after_due_date or r.public)]
        if hold == "every" and student.name not in reviewed and any(r.open_flags for r in seen):
            continue
        on_every_board = True
        speedups = []
        for kernel in graded.kernels:
            rows = [r for r in seen if r.kernel == kernel]
            verified = bool(rows) and all(r.passed and not r.open_flags and r.timed for r in rows)
            if not verified:
                on_every_board = False
                continue
            boards[kernel].append((student, geomean([r.speedup for r in rows])))
            speedups.extend(r.speedup for r in rows)
        if on_every_board:
            boards["overall"].append((student, geomean(speedups)))
    return boards


def timing_noise(graded):
    """The relative noise of a speedup as this class's gradings measured it:
    each (kernel, case) pair's reference kernel was timed once per grading,
    so the spread of its times across the gradings (a robust standard
    deviation of their logarithms: 1.4826 x the median absolute deviation)
    is the noise of one timing; a speedup divides two such timings
    (x sqrt 2). The median over the pairs timed at least 3 times; None when
    there are none. Keyed by kernel as well as case: the reference kernels
    of different formats take different times on one case by design, and
    pooling them would read that difference as noise."""
    times = {}
    for student in graded.students:
        for row in student.rows:
            if row.reference_ms is not None:
                times.setdefault((row.kernel, row.case), []).append(math.log(row.reference_ms))
    spreads = []
    for values in times.values():
        if len(values) >= 3:
            middle = statistics.median(values)
            spreads.append(1.4826 * statistics.median(abs(v - middle) for v in values))
    if not spreads:
        return None
    return math.expm1(math.sqrt(2) * statistics.median(spreads))


def ranked(entries, pseudonym_of, noise=None):
    """[(rank, pseudonym, speedup, tied)], best first. Figures closer than
    the measured noise (relative) to the first of their group share its
    rank: the timings cannot tell them apart. Equal figures always do."""
    order = sorted(entries, key=lambda e: (-e[1], pseudonym_of[e[0].name]))
    result = []
    leader = None
    for index, (student, speedup) in enumerate(order):
        if leader is not None and (speedup == leader[1] or
                                   (noise is not None and leader[1] <= speedup * (1 + noise))):
            rank = leader[0]
        else:
            rank = index + 1
            leader = (rank, speedup)
        result.append([rank, pseudonym_of[student.name], speedup, False])
    counts = Counter(entry[0] for entry in result)
    for entry in result:
        entry[3] = counts[entry[0]] > 1
    return [tuple(entry) for entry in result]


# ------------------------------------------------------------------ the grid and the review list

@dataclasses.dataclass
class Cell:
    """One student's outcome on one kernel, as the grid shows it."""
    kind: str       # pass, flagged, not_implemented, failed, not_graded
    label: str      # the verdict and cause, in a few words
    detail: str     # rows passing of rows graded, flags


def kernel_cell(student, kernel):
    rows = [r for r in student.rows_of(kernel) if r.graded]
    if not rows:
        if student.status == "build_failed":
            return Cell("not_graded", "did not build", "")
        if student.status == "no_gpu":
            return Cell("not_graded", status_words(student.status), "its rows need a GPU")
        if student.rows_of(kernel):
            return Cell("not_graded", "not applicable", "no graded row")
        return Cell("not_graded", status_words(student.status) if student.status != "graded" else "no rows", "")
    passed = sum(r.passed for r in rows)
    flags = sorted({f for r in rows for f in r.open_flags})
    detail = f"{passed}/{len(rows)} rows pass"
    failures = Counter(r.failure for r in rows if not r.passed)
    if failures:
        failure, count = failures.most_common(1)[0]
        verdicts = {r.verdict for r in rows if not r.passed}
        kind = "not_implemented" if verdicts <= QUIET_VERDICTS else "failed"
        label = failure.replace("_", " ")
        if len(failures) > 1:
            label += f" (+{len(failures) - 1} other cause{'s' if len(failures) > 2 else ''})"
        if flags:
            detail += "; flagged " + ", ".join(flags)
        return Cell(kind, label, detail)
    if flags:
        return Cell("flagged", "pass, flagged " + ", ".join(flags), detail)
    return Cell("pass", "pass", detail)


def grid(graded):
    """{student name: {kernel: Cell}}."""
    return {s.name: {k: kernel_cell(s, k) for k in graded.kernels} for s in graded.students}


@dataclasses.dataclass
class Review:
    """Everything about one student worth an instructor's look."""
    student: object
    flagged_rows: list          # rows with flags the policy does not accept
    kernels: list               # the kernels of those rows
    reference: object           # Closest or None
    classmate: object           # Closest or None
    printed: list               # (row, reasons) of output worth a look
    reasons: list               # the entry's headline, in words

    @property
    def severity(self):
        return (bool(self.reference and self.reference.flagged), len(self.reasons),
                len(self.flagged_rows), self.reference.similarity if self.reference else 0.0)


def review_list(graded):
    """One entry per student with anything to review, the most serious first:
    a match with the reference, then the number of reasons."""
    entries = []
    for student in graded.students:
        flagged = [r for r in student.rows if r.open_flags]
        closest = graded.closest.get(student.name, {})
        reference, classmate = closest.get("reference"), closest.get("classmate")
        printed = [(r, r.suspicious) for r in student.rows if r.suspicious]
        reasons = []
        if reference is not None and reference.flagged:
            reasons.append(f"similar to {reference.other} ({reference.similarity:.2f})")
        if classmate is not None and classmate.flagged:
            reasons.append(f"similar to {classmate.other} ({classmate.similarity:.2f})")
        if flagged:
            flags = sorted({f for r in flagged for f in r.open_flags})
            reasons.append(f"{len(flagged)} flagged row(s): {', '.join(flags)}")
        if printed:
            why = sorted({w for _, ws in printed for w in ws})
            reasons.append(f"printed what {' and '.join(why)}" if len(why) < 3 else
                           f"printed suspicious output ({'; '.join(why)})")
        if not reasons:
            continue
        entries.append(Review(student, flagged, sorted({r.kernel for r in flagged}), reference, classmate,
                              printed, reasons))
    entries.sort(key=lambda e: (tuple(-x if isinstance(x, (int, float)) else not x for x in e.severity),
                                e.student.name.lower()))
    return entries


def flagged_students(graded):
    """Names of the students with a flag the policy does not accept."""
    return {s.name for s in graded.students if any(r.open_flags for r in s.rows)}


ADJECTIVES = ("amber", "brisk", "calm", "deft", "eager", "fleet", "gentle", "hardy", "ivory", "jolly",
              "keen", "lively", "mellow", "nimble", "opal", "plucky", "quiet", "rapid", "sturdy", "tidy",
              "upbeat", "vivid", "witty", "young", "zesty", "bold", "clever", "dapper", "earnest", "frank",
              "golden", "humble")
ANIMALS = ("otter", "falcon", "lynx", "heron", "badger", "gecko", "ibis", "koala", "lemur", "marten",
           "newt", "ocelot", "panda", "quokka", "raven", "stoat", "tapir", "urchin", "vole", "walrus",
           "yak", "zebra", "bison", "crane", "dingo", "egret", "ferret", "gibbon", "hare", "iguana",
           "jackal", "kestrel")


def hashed_pseudonym(secret, student, digits=4):
    digest = hmac.new(secret, student.encode("utf-8", "surrogateescape"), hashlib.sha256).digest()
    number = int.from_bytes(digest[2:10], "big") % (16 ** digits)
    return f"{ADJECTIVES[digest[0] % len(ADJECTIVES)]}-{ANIMALS[digest[1] % len(ANIMALS)]}-{number:0{digits}x}"


def read_roster(path):
    roster = {}
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None or [h.strip() for h in header[:2]] != ["student", "pseudonym"]:
                raise ClassError(f"{path}: the roster's header must be student,pseudonym")
            for line, record in enumerate(reader, 2):
                if not record or all(not c.strip() for c in record):
                    continue
                if len(record) < 2 or not record[1].strip():
                    raise ClassError(f"{path}:{line}: a student without a pseudonym")
                if record[0] in roster:
                    raise ClassError(f"{path}:{line}: student {record[0]!r} appears twice")
                roster[record[0]] = record[1].strip()
    except OSError as error:
        raise ClassError(f"cannot read the roster {path}: {error.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise ClassError(f"{path}: not a CSV file of UTF-8 text ({error})") from None
    return roster


def read_secret(path):
    try:
        mode = pathlib.Path(path).stat().st_mode
        if mode & 0o007:
            raise ClassError(f"{path}: the pseudonym secret can be read by every user of this machine "
                             f"(mode {mode & 0o777:o}); chmod 600 it (and make a new secret if others may have read it)")
        with open(path, "rb") as handle:
            line = handle.readline().strip()
    except OSError as error:
        raise ClassError(f"cannot read the pseudonym secret file {path}: {error.strerror}") from None
    if len(line) < 8:
        raise ClassError(f"{path}: the pseudonym secret (its first line) must have at least 8 characters")
    return line


def pseudonyms(students, roster_path=None, secret_path=None):
    """student id -> pseudonym: the roster's name, else the keyed hash."""
    if roster_path is None and secret_path is None:
        raise ClassError("the leaderboard needs pseudonyms: give --roster CSV or --pseudonym-secret-file FILE "
                         "(or --no-leaderboard)")
    roster = read_roster(roster_path) if roster_path else {}
    secret = read_secret(secret_path) if secret_path else None
    result = {}
    missing = []
    for student in students:
        if student.name in roster:
            result[student.name] = roster[student.name]
        elif secret is not None:
            result[student.name] = hashed_pseudonym(secret, student.name)
        else:
            missing.append(student.name)
    if missing:
        raise ClassError(f"{len(missing)} student(s) of class.csv are not in the roster {roster_path} "
                         "(give --pseudonym-secret-file too to name them by a keyed hash)")
    used = Counter(result[s.name] for s in students if s.name in roster)
    if any(count > 1 for count in used.values()):
        raise ClassError(f"{roster_path}: two students share a pseudonym")
    digits = 4
    while len(set(result.values())) != len(result) and digits < 16:
        digits += 2
        for student in students:
            if student.name not in roster:
                result[student.name] = hashed_pseudonym(secret, student.name, digits)
    if len(set(result.values())) != len(result):
        raise ClassError("a hashed pseudonym equals a roster's pseudonym: change one of them")
    return result
