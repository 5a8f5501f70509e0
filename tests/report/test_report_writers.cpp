// report.md, report.html (with its SVG plot), JUnit XML and the SVG helper: content and
// escaping of hostile text, for passing and failing runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "fixtures.hpp"
#include "report/svg_plot.hpp"
#include "report/write.hpp"
#include "xml_check.hpp"

namespace pecheck::report {
namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(ReportMarkdown, ShowsVerdictTableAndCounterexample) {
  const std::string md = render_markdown(testing::nasty_result());
  EXPECT_TRUE(md.starts_with("# pecheck verify: FAIL\n"));
  EXPECT_NE(md.find("| rope.oracle | rope | ABI-ROPE-4 | **fail** |"), std::string::npos) << md;
  EXPECT_NE(md.find("## Counterexamples"), std::string::npos);
  EXPECT_NE(md.find("| rotary_dim | 2 |"), std::string::npos);
  EXPECT_NE(md.find("0x1p-149"), std::string::npos);  // inputs in hex
  EXPECT_NE(md.find("--only rope.oracle"), std::string::npos);
  EXPECT_NE(md.find("**timeout**"), std::string::npos);
  // A '|' inside a cell is escaped, so every table row keeps its column count.
  EXPECT_NE(md.find("\\| pipe"), std::string::npos);
  EXPECT_EQ(md.find('\x01'), std::string::npos);
}

TEST(ReportMarkdown, PassingRunSaysPassAndHasNoCounterexamples) {
  const std::string md = render_markdown(testing::passing_result());
  EXPECT_TRUE(md.starts_with("# pecheck verify: PASS\n"));
  EXPECT_EQ(md.find("## Counterexamples"), std::string::npos);
}

TEST(ReportHtml, IsOneWellFormedSelfContainedPage) {
  const std::string html = render_html(testing::nasty_result());
  EXPECT_EQ(testing::xml_problem(html, /*html=*/true), "");
  EXPECT_EQ(html.find("<script"), std::string::npos);  // hostile text was escaped
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  // Self-contained: no external stylesheet, script, image or font.
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(count(html, "http://"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(count(html, "<svg"), 1u);  // one plot: only the failing check has a series
  EXPECT_NE(html.find("ABI-ROPE-4 (mismatch)"), std::string::npos);
  EXPECT_NE(html.find("0x1p-149"), std::string::npos);
}

TEST(ReportJunit, CountsFailuresErrorsAndSkipsAndIsWellFormed) {
  const std::string xml = render_junit(testing::nasty_result());
  EXPECT_EQ(testing::xml_problem(xml), "");
  EXPECT_NE(xml.find(R"(tests="4" failures="1" errors="1" skipped="1")"), std::string::npos) << xml;
  EXPECT_EQ(count(xml, "<testcase "), 4u);
  EXPECT_EQ(count(xml, "<failure "), 1u);
  EXPECT_EQ(count(xml, "<error "), 1u);  // the timeout: undecided is not a pass
  EXPECT_EQ(count(xml, "<skipped "), 1u);
  EXPECT_EQ(xml.find("<script"), std::string::npos);
}

TEST(ReportText, SummarisesForATerminal) {
  const std::string t = render_text(testing::nasty_result());
  EXPECT_NE(t.find("verdict: fail"), std::string::npos);
  EXPECT_NE(t.find("reproduce: pecheck verify"), std::string::npos);
  EXPECT_NE(render_text(testing::passing_result()).find("verdict: pass"), std::string::npos);
}

TEST(ReportEscaping, XmlAndMarkdownHelpers) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(xml_escape(std::string("x\x01y", 3)), "x?y");
  EXPECT_EQ(utf8_sanitize("ok \xc3\xa9"), "ok \xc3\xa9");      // é stays
  EXPECT_EQ(utf8_sanitize("\xff"), "\xEF\xBF\xBD");            // stray byte replaced
  EXPECT_EQ(utf8_sanitize("\xc3"), "\xEF\xBF\xBD");            // truncated sequence
  EXPECT_EQ(markdown_cell("a|b\nc"), "a\\|b c");
}

TEST(SvgPlot, LinearTicksAreNiceAndCoverTheRange) {
  auto t = axis_ticks(0, 7.3, false);
  ASSERT_GE(t.size(), 2u);
  EXPECT_EQ(t.front(), 0);
  EXPECT_GE(t.back(), 7.3);
  for (std::size_t i = 1; i < t.size(); ++i) EXPECT_GT(t[i], t[i - 1]);
  EXPECT_EQ(t[1] - t[0], 2);  // steps from {1, 2, 5} x 10^k
}

TEST(SvgPlot, LogTicksArePowersOfTen) {
  EXPECT_EQ(axis_ticks(1, 1000, true), (std::vector<double>{1, 10, 100, 1000}));
  EXPECT_TRUE(axis_ticks(-1, 10, true).empty());
  EXPECT_LE(axis_ticks(1, 1e30, true).size(), 9u);
}

// Issue #13: eleven series (pecheck precision draws up to eight) look different from each other,
// the legend wraps inside the width and the note has its own line below it, and the log x axis
// starts at the smallest positive position (1), not at 0.1 for position 0.
TEST(SvgPlot, SeriesAreDistinctAndLegendNoteAndAxisDoNotMislead) {
  PlotOptions opt;
  opt.log_x = opt.log_y = true;
  opt.width = 500;
  std::vector<PlotSeries> ss;
  for (int i = 0; i < 11; ++i) {
    PlotSeries s;
    s.label = "variant_" + std::to_string(i);
    s.points = {{0, 1}, {1, 2.0 + i}, {1000, NAN}};
    ss.push_back(s);
  }
  const std::string svg = svg_line_plot(opt, ss);
  EXPECT_EQ(testing::xml_problem(svg), "");
  std::set<std::string> looks;  // colour + dash of each drawn line
  std::size_t at = 0;
  while ((at = svg.find("<path d=", at)) != std::string::npos) {
    const std::size_t end = svg.find("/>", at);
    const std::string p = svg.substr(at, end - at);
    const std::size_t st = p.find("stroke=\"");
    const std::size_t da = p.find("stroke-dasharray=");
    looks.insert(p.substr(st, 16) + (da == std::string::npos ? "" : p.substr(da)));
    at = end;
  }
  EXPECT_EQ(looks.size(), 11u) << svg;
  // Text baselines: every legend row and the note lie below the axis labels and apart.
  std::vector<double> ys;
  for (std::size_t k = 0; (k = svg.find("<text x=", k)) != std::string::npos; ++k) {
    const std::size_t y = svg.find("y=\"", k) + 3;
    const std::string tail = svg.substr(k, svg.find("</text>", k) - k);
    if (tail.find("variant_") != std::string::npos || tail.find("not drawn") != std::string::npos) {
      ys.push_back(std::stod(svg.substr(y)));
    }
  }
  std::sort(ys.begin(), ys.end());
  ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
  ASSERT_GE(ys.size(), 3u) << "at least two legend rows and the note";
  for (std::size_t i = 1; i < ys.size(); ++i) EXPECT_GE(ys[i] - ys[i - 1], 12) << svg;
  EXPECT_NE(svg.find("11 point(s) at position 0 (or below) not drawn"), std::string::npos);
  EXPECT_EQ(svg.find(">0.1</text>"), std::string::npos) << "no 0.1 tick for position 0";
  EXPECT_NE(svg.find(">1</text>"), std::string::npos);
}

TEST(SvgPlot, DrawsSeriesAndReportsWhatItCouldNotDraw) {
  PlotOptions opt;
  opt.title = "err <&> vs position";
  opt.log_x = opt.log_y = true;
  opt.hlines = {{4, "budget"}};
  PlotSeries s;
  s.label = "max \"err\"";
  s.points = {{0, 0.5}, {10, 0}, {1000, 2}, {1e6, 3e5}, {NAN, 1}, {5, INFINITY}};
  const std::string svg = svg_line_plot(opt, {s});
  EXPECT_EQ(testing::xml_problem(svg), "");
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(count(svg, "<circle"), 3u);  // the finite points at positive positions
  EXPECT_NE(svg.find("2 non-finite point(s) not drawn; 1 point(s) at position 0 (or below) not drawn (no place on a log "
                     "axis); 1 at or below the log-axis minimum drawn on its edge"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("(log scale)"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);  // the budget line
  // An empty plot is still a valid image.
  EXPECT_EQ(testing::xml_problem(svg_line_plot(PlotOptions{}, {})), "");
}

}  // namespace
}  // namespace pecheck::report
