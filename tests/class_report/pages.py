"""What the tests read back from a class folder and from the pages, computed
here from rows.jsonl and class.csv, apart from tools/class-report's code."""

import csv
import html.parser
import json
import math
import pathlib

NOT_GRADED = {"not_applicable", "case_error", "grader_error"}


def read_class(folder):
    with open(pathlib.Path(folder) / "class.csv", newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames
        records = list(reader)
    return header[3:-3], records


def read_rows(folder, student):
    path = pathlib.Path(folder) / student / "rows.jsonl"
    if not path.is_file():
        return None
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def open_flags(row):
    return set(row["flags"]) - set(row.get("accepted_flags", []))


def expected_boards(folder, after_due_date, hold="every", reviewed=()):
    """{board: {student: speedup}}: who must be on each board, and the figure.
    With hold "every", a student with an unaccepted flag among the rows the
    boards count is on none, unless reviewed."""
    kernels, records = read_class(folder)
    boards = {name: {} for name in ["overall"] + kernels}
    for record in records:
        rows = read_rows(folder, record["student"])
        if record["status"] != "graded" or rows is None:
            continue
        seen = [r for r in rows if r["verdict"] not in NOT_GRADED
                and (after_due_date or r["visibility"] == "visible")]
        if hold == "every" and record["student"] not in reviewed and any(open_flags(r) for r in seen):
            continue
        everywhere, speedups = True, []
        for kernel in kernels:
            mine = [r for r in seen if r["kernel"] == kernel]
            good = mine and all(r["verdict"] == "pass" and not set(r["flags"]) - set(r.get("accepted_flags", []))
                                and (r["speedup"] or 0) > 0 for r in mine)
            if not good:
                everywhere = False
                continue
            boards[kernel][record["student"]] = geometric_mean([r["speedup"] for r in mine])
            speedups += [r["speedup"] for r in mine]
        if everywhere:
            boards["overall"][record["student"]] = geometric_mean(speedups)
    return boards


class Document(html.parser.HTMLParser):
    """The tags, the text and the tables of a page."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags = []            # (tag, attrs dict)
        self.texts = []
        self.tables = []          # {"attrs", "head": [text], "rows": [{"attrs", "cells": [(text, attrs)]}]}
        self._table = None
        self._row = None
        self._cell = None
        self._in_script = False
        self._script = []
        self.scripts = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "table":
            self._table = {"attrs": attrs, "head": [], "rows": []}
            self.tables.append(self._table)
        elif tag == "tr" and self._table is not None:
            self._row = {"attrs": attrs, "cells": []}
        elif tag in ("td", "th") and self._row is not None:
            self._cell = [[], attrs, tag]
        elif tag == "script":
            self._in_script = True
            self._script = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row["cells"].append(("".join(self._cell[0]).strip(), self._cell[1], self._cell[2]))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            if self._row["cells"] and all(kind == "th" for _, _, kind in self._row["cells"]) and not self._table["head"]:
                self._table["head"] = [text for text, _, _ in self._row["cells"]]
            else:
                self._table["rows"].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "script":
            self._in_script = False
            self.scripts.append("".join(self._script))

    def handle_data(self, data):
        if self._in_script:
            self._script.append(data)
            return
        self.texts.append(data)
        if self._cell is not None:
            self._cell[0].append(data)

    @property
    def text(self):
        return "".join(self.texts)

    def table(self, table_id=None, **attrs):
        for table in self.tables:
            if table_id is not None and table["attrs"].get("id") != table_id:
                continue
            if all(table["attrs"].get(k.replace("_", "-")) == v for k, v in attrs.items()):
                return table
        raise AssertionError(f"no table {table_id or attrs}")


def read_leaderboard_csv(path):
    boards = {}
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == ["board", "rank", "pseudonym", "geomean_speedup", "tied"], reader.fieldnames
        for record in reader:
            pseudonym = record["pseudonym"]
            if pseudonym[:1] == "'" and pseudonym[1:2] in ("=", "+", "-", "@"):
                pseudonym = pseudonym[1:]
            boards.setdefault(record["board"], []).append((int(record["rank"]), pseudonym, float(record["geomean_speedup"]),
                                                           record["tied"] == "yes"))
    return boards


def expected_cell(rows, status, kernel):
    """The grid's kind of cell for one student's kernel: pass, flagged,
    not_implemented, failed or not_graded."""
    graded = [r for r in rows or [] if r["kernel"] == kernel and r["verdict"] not in NOT_GRADED]
    if not graded:
        return "not_graded"
    failing = {r["verdict"] for r in graded if r["verdict"] != "pass"}
    if failing:
        return "not_implemented" if failing == {"not_implemented"} else "failed"
    return "flagged" if any(open_flags(r) for r in graded) else "pass"


def reference_noise(folder):
    """The relative noise of a speedup measured by the class's gradings: the
    median over (kernel, case) pairs (timed at least 3 times) of the robust
    spread of the reference's log times, times the square root of 2."""
    import statistics
    kernels, records = read_class(folder)
    times = {}
    for record in records:
        for row in read_rows(folder, record["student"]) or []:
            if (row.get("reference_ms") or 0) > 0:
                times.setdefault((row["kernel"], row["case"]), []).append(math.log(row["reference_ms"]))
    spreads = []
    for values in times.values():
        if len(values) >= 3:
            middle = statistics.median(values)
            spreads.append(1.4826 * statistics.median([abs(v - middle) for v in values]))
    return math.expm1(math.sqrt(2) * statistics.median(spreads)) if spreads else None
