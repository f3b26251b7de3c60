// report.html: the student's page of a grading, one file with nothing to
// fetch (no script, no network; opened from file://). Per kernel: its
// summary, its failing rows first with their cause and hint, and two bar
// charts drawn as inline SVG, the speedup per case (a correctness-only
// row's apart, grey) and the share of a same-size copy's bandwidth.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "reports/report.hpp"

namespace spmv::grade {
namespace {

std::string escaped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:2em;max-width:70em;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}"
    ".failing{background:#fdecea;border-left:4px solid #c62828;padding:.5em 1em;margin:.5em 0}"
    ".failing pre{white-space:pre-wrap;margin:.3em 0 0}.summary{background:#f4f6f8;padding:.5em 1em}"
    ".problem{background:#fff3cd;padding:.5em 1em;font-weight:bold}"
    "svg text{font-size:12px;font-family:sans-serif}.legend{color:#555;font-size:.9em}";

struct Bar {
  std::string label;
  double value = 0;
  bool scored = true;
};

// A horizontal bar chart: one bar a case, scaled to the largest value (at
// least `floor`), with a rule at `mark` (1x, 100%) when it is given.
std::string bar_chart(const std::string& title, const std::vector<Bar>& bars, double floor, double mark,
                      const std::string& unit, int digits) {
  if (bars.empty()) return {};
  constexpr int kLabel = 170;
  constexpr int kWidth = 420;
  constexpr int kRow = 18;
  double top = floor;
  for (const Bar& bar : bars) top = std::max(top, bar.value);
  const int height = static_cast<int>(bars.size()) * kRow + 24;
  std::ostringstream svg;
  svg << "<figure><figcaption>" << escaped(title) << "</figcaption><svg role=\"img\" width=\"" << kLabel + kWidth + 80
      << "\" height=\"" << height << "\" aria-label=\"" << escaped(title) << "\">";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const Bar& bar = bars[i];
    const int y = static_cast<int>(i) * kRow + 4;
    const double length = top > 0 ? bar.value / top * kWidth : 0;
    svg << "<text x=\"" << kLabel - 6 << "\" y=\"" << y + 12 << "\" text-anchor=\"end\">" << escaped(bar.label)
        << "</text><rect class=\"bar\" data-case=\"" << escaped(bar.label) << "\" data-scored=\""
        << (bar.scored ? "yes" : "no") << "\" x=\"" << kLabel << "\" y=\"" << y << "\" width=\"" << fixed(length, 1)
        << "\" height=\"" << kRow - 4 << "\" fill=\"" << (bar.scored ? "#1f77b4" : "#bbbbbb") << "\"/><text x=\""
        << kLabel + length + 4 << "\" y=\"" << y + 12 << "\">" << (bar.scored ? "" : "(") << fixed(bar.value, digits)
        << unit << (bar.scored ? "" : ")") << "</text>";
  }
  if (mark > 0 && mark <= top) {
    const double x = kLabel + mark / top * kWidth;
    svg << "<line x1=\"" << fixed(x, 1) << "\" x2=\"" << fixed(x, 1) << "\" y1=\"0\" y2=\"" << height - 20
        << "\" stroke=\"#c62828\" stroke-dasharray=\"4 3\"/><text x=\"" << fixed(x, 1) << "\" y=\"" << height - 6
        << "\" text-anchor=\"middle\">" << fixed(mark, 0) << unit << "</text>";
  }
  svg << "</svg></figure>";
  return svg.str();
}

std::string kernel_section(const std::vector<RowResult>& rows, std::size_t first, std::size_t end,
                           const std::string& summary) {
  std::ostringstream out;
  const std::string& kernel = rows[first].kernel;
  out << "<section class=\"kernel\" id=\"kernel-" << escaped(kernel) << "\"><h2>" << escaped(kernel)
      << "</h2><p class=\"summary\">" << escaped(summary) << "</p>";
  for (std::size_t i = first; i < end; ++i) {
    const RowResult& row = rows[i];
    if (is_success(row.verdict) || row.verdict == Verdict::kNotRun) continue;
    out << "<div class=\"failing\" data-case=\"" << escaped(row.case_name) << "\"><b>" << escaped(row.case_name)
        << "</b>: " << escaped(describe(row.verdict)) << (row.cause.empty() ? "" : " (" + escaped(row.cause) + ")")
        << "<pre>" << escaped(row.summary) << (row.detail.empty() ? "" : "\n" + escaped(row.detail)) << "</pre></div>";
  }
  std::vector<Bar> speedups;
  std::vector<Bar> copies;
  for (std::size_t i = first; i < end; ++i) {
    const RowResult& row = rows[i];
    if (row.verdict != Verdict::kPass) continue;
    const bool scored = row.correctness_only.empty();
    if (row.speedup) speedups.push_back({row.case_name, *row.speedup, scored});
    if (row.percent_of_copy) copies.push_back({row.case_name, *row.percent_of_copy, scored});
  }
  out << bar_chart("Speedup against the reference, per case", speedups, 1.0, 1.0, "x", 2)
      << bar_chart("Bandwidth, % of a same-size copy", copies, 100.0, 100.0, "%", 0);
  if (!speedups.empty()) {
    out << "<p class=\"legend\">Grey bars, their values in brackets, are correctness-only rows: their speed "
           "counts nothing.</p>";
  }
  out << "</section>";
  return out.str();
}

}  // namespace

std::string html_report(const Policy& policy, const std::vector<RowResult>& unordered, const RunInfo& info) {
  const auto rows = in_report_order(unordered);
  const ScoreSummary summary = score_rows(policy, rows);
  const std::vector<std::string> summaries = kernel_summaries(rows, info);
  std::ostringstream out;
  out << "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
         "<title>SpMV grading report</title><style>"
      << kStyle << "</style></head><body><h1>SpMV grading report</h1><p id=\"score\"><b>"
      << escaped(score_line(summary, rows)) << "</b></p>";
  if (const std::string problems = setup_problems_note(rows); !problems.empty()) {
    out << "<p class=\"problem\">" << escaped(problems) << "</p>";
  }
  std::size_t k = 0;
  for (std::size_t first = 0; first < rows.size(); ++k) {
    std::size_t end = first;
    while (end < rows.size() && rows[end].kernel == rows[first].kernel) ++end;
    out << kernel_section(rows, first, end, k < summaries.size() ? summaries[k] : "");
    first = end;
  }
  out << "<p class=\"legend\">Speedup = reference time / your time. GB/s counts the bytes a kernel must move at "
         "least; a same-size copy moves them at the GPU's copy bandwidth";
  if (info.copy_gbps) out << " (" << fixed(*info.copy_gbps, 0) << " GB/s on " << escaped(info.device) << ")";
  out << ". summary.md and rows.jsonl beside this page hold every figure.</p></body></html>\n";
  return out.str();
}

}  // namespace spmv::grade
