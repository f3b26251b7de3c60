"""The pictures of the instructor's page: matplotlib figures as SVG, returned
as data: URIs for <img> elements, so the page stays one self-contained file
and nothing in a picture can run. No student-controlled text goes into a
picture: the axes name kernels and score ranges only."""

import base64
import io
import random
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

matplotlib.rcParams.update({
    "svg.fonttype": "none",     # text stays text: small files, the page's font
    "svg.hashsalt": "spmv-class-report",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
})

BLUE = "#3465a4"
GREEN = "#4e9a06"
GREY = "#888a85"
RED = "#cc0000"


def svg_data_uri(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def score_histogram(percentages):
    figure, axes = plt.subplots(figsize=(6.4, 2.8))
    bins = list(range(0, 101, 5))
    clipped = [min(max(p, 0.0), 100.0) for p in percentages]
    axes.hist(clipped, bins=bins, color=BLUE, edgecolor="white")
    if clipped:
        middle = statistics.median(clipped)
        axes.axvline(middle, color=RED, linestyle="--", linewidth=1, label=f"median {middle:.0f}%")
        axes.legend(loc="upper left", frameon=False)
    axes.set_xlim(0, 100)
    axes.set_xlabel("score, % of the maximum")
    axes.set_ylabel("students")
    axes.yaxis.get_major_locator().set_params(integer=True)
    return svg_data_uri(figure)


def pass_rates(kernel_figures):
    names = [f["kernel"] for f in kernel_figures]
    figure, axes = plt.subplots(figsize=(6.4, 0.45 * len(names) + 1.1))
    positions = list(range(len(names)))
    student_rates = [100 * (f["student_pass_rate"] or 0) for f in kernel_figures]
    row_rates = [100 * (f["row_pass_rate"] or 0) for f in kernel_figures]
    height = 0.38
    axes.barh([p - height / 2 for p in positions], row_rates, height, color=GREY, label="rows passing")
    axes.barh([p + height / 2 for p in positions], student_rates, height, color=GREEN,
              label="students with every row passing")
    axes.set_yticks(positions, names)
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel("% of graded rows / of students with rows of the kernel")
    axes.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    return svg_data_uri(figure)


def speedup_distribution(kernel_figures, overall, overall_flagged=()):
    """Per kernel, each student's geometric-mean speedup (a dot) over a box,
    on a log axis, with 1x (the reference) marked. The dots of students with
    a flagged row of the kernel (overall: of any kernel) are red crosses."""
    groups = [("overall", overall)] + [(f["kernel"], f["speedups"]) for f in kernel_figures]
    marked = [list(overall_flagged)] + [list(f.get("flagged_speedups", [])) for f in kernel_figures]
    any_marked = False
    figure, axes = plt.subplots(figsize=(7.2, 3.6))
    axes.set_yscale("log")
    values = [v for _, vs in groups for v in vs]
    jitter = random.Random(0)
    for index, (_, speedups) in enumerate(groups):
        if not speedups:
            continue
        axes.boxplot([speedups], positions=[index], widths=0.55, showfliers=False,
                     medianprops={"color": RED}, boxprops={"color": GREY},
                     whiskerprops={"color": GREY}, capprops={"color": GREY})
        flagged = list(marked[index])
        plain = []
        for value in speedups:
            if value in flagged:
                flagged.remove(value)
            else:
                plain.append(value)
        axes.scatter([index + jitter.uniform(-0.18, 0.18) for _ in plain], plain,
                     s=12, color=BLUE if index else GREEN, alpha=0.75, zorder=3, linewidths=0)
        shown = list(marked[index])
        if shown:
            any_marked = True
            axes.scatter([index + jitter.uniform(-0.18, 0.18) for _ in shown], shown, s=30, marker="x",
                         color=RED, zorder=4, linewidths=1.4)
    axes.axhline(1.0, color=GREY, linestyle=":", linewidth=1)
    axes.set_xticks(range(len(groups)), [name for name, _ in groups], rotation=25, ha="right")
    axes.set_xlim(-0.6, len(groups) - 0.4)
    if values:
        low, high = min(values + [1.0]), max(values + [1.0])
        axes.set_ylim(low / 1.4, high * 1.4)
    else:
        axes.set_ylim(0.1, 10)
        axes.text(0.5, 0.5, "no timed rows", transform=axes.transAxes, ha="center", color=GREY)
    axes.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    axes.yaxis.set_minor_formatter(NullFormatter())
    axes.set_ylabel("speedup over the reference (log)")
    if any_marked:
        axes.scatter([], [], s=30, marker="x", color=RED, linewidths=1.4, label="a flagged row")
        axes.legend(loc="upper right", frameon=False, fontsize=8)
    return svg_data_uri(figure)

