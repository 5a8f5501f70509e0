// The budget table: parsed from spec/budgets.tsv as compiled in, equal to the file on disk,
// mirrored row for row by spec/contracts.md, every clause it names defined there.
// Clause: PREC-BUDGET-1, PREC-BUDGET-2
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "oracle/budget.hpp"

namespace po = pecheck::oracle;

namespace {
std::string slurp(const std::string& rel) {
  std::ifstream in(std::string(PECHECK_SOURCE_DIR) + "/" + rel);
  EXPECT_TRUE(in.good()) << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST(Budget, CompiledTableEqualsSpecFile) {
  EXPECT_EQ(std::string(po::budgets_tsv_text()), slurp("spec/budgets.tsv"));
  EXPECT_GE(po::budgets().size(), 10u);
}

TEST(Budget, LookupAndBoundFormula) {
  const auto& b = po::budget("rope", po::Format::F32);
  EXPECT_EQ(b.variant, "reference");
  const double u = po::format_info(b.arith).unit_roundoff;
  const double ua = po::format_info(b.angle_fmt).unit_roundoff;
  const double m = 3.0, th = 1000.0;
  EXPECT_EQ(b.bound({m, th}), m * (b.c_const * u + b.c_angle * th * ua + b.c_out * po::format_info(b.storage).unit_roundoff) +
                                  b.c_floor * po::format_info(b.storage).min_subnormal);
  EXPECT_EQ(b.units(0.0, {m, th}), 0.0);
  EXPECT_EQ(b.units(b.bound({m, th}), {m, th}), 1.0);
  EXPECT_TRUE(std::isinf(b.units(NAN, {m, th})));
  EXPECT_THROW(po::budget("rope", "f32", "no-such-variant"), pecheck::InvalidArgument);
}

// Clause: PREC-ROPE-10 PREC-ALIBI-3 PREC-SIN-3
// The per-pair terms (c_kconst, c_kangle, c_logb): the ggml row grows with the pair index and
// |ln f_i|; the reference row ignores both; ALiBi's powf row grows with the slope power.
TEST(Budget, PairIndexAndLogFrequencyTerms) {
  const auto& g = po::budget("rope", "f32", "ggml");
  const double u = po::format_info(g.arith).unit_roundoff;
  const double m = 2.0, th = 50.0, k = 10.0, lf = 3.5;
  EXPECT_EQ(g.bound({m, th, k, lf}),
            m * ((g.c_const + g.c_kconst * k) * u + (g.c_angle + g.c_kangle * k + g.c_logb * lf) * th * u) +
                g.c_floor * po::format_info(g.storage).min_subnormal);
  EXPECT_GT(g.bound({m, th, k, lf}), g.bound({m, th}));
  const auto& r = po::budget("rope", "f32", "reference");
  EXPECT_EQ(r.bound({m, th, k, lf}), r.bound({m, th}));
  const auto& a = po::budget("alibi", "f32", "powf");
  EXPECT_GT(a.bound({1.0, 0.0, 7.0}), a.bound({1.0, 0.0, 1.0}));
  // The default class contains every standard class term by term.
  const auto& f = po::budget("rope", "f32", "field");
  for (const char* v : {"reference", "fma", "powf", "ggml"}) {
    const auto& c = po::budget("rope", "f32", v);
    EXPECT_GE(f.bound({m, th, k, lf}), c.bound({m, th, k, lf})) << v;
  }
  for (const char* v : {"reference", "accurate"}) {
    EXPECT_GE(po::budget("sinusoidal", "f32", "field").bound({1.0, th, k, lf}),
              po::budget("sinusoidal", "f32", v).bound({1.0, th, k, lf})) << v;
  }
  EXPECT_GE(po::budget("alibi", "f32", "field").bound({m, 0.0, k}), po::budget("alibi", "f32", "reference").bound({m, 0.0, k}));
  EXPECT_THROW(po::budget("nope", po::Format::F32), pecheck::InvalidArgument);
}

// PREC-BUDGET-2: contracts.md's table lists exactly the rows of budgets.tsv, same numbers, and
// each row's clause is defined in contracts.md.
TEST(Budget, ContractsMarkdownMirrorsTheTable) {
  const std::string md = slurp("spec/contracts.md");
  std::set<std::string> md_rows;
  std::istringstream in(md);
  std::string line;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.find("<!-- budgets:begin -->") != std::string::npos) in_table = true;
    if (line.find("<!-- budgets:end -->") != std::string::npos) in_table = false;
    if (in_table && line.rfind("| ", 0) == 0 && line.find("---") == std::string::npos &&
        line.find("| scheme") == std::string::npos) {
      md_rows.insert(line);
    }
  }
  std::set<std::string> tsv_rows;
  for (const auto& b : po::budgets()) {
    std::ostringstream r;
    r << "| " << b.scheme << " | " << b.dtype << " | " << b.variant << " | "
      << po::to_string(b.arith) << " | " << po::to_string(b.angle_fmt) << " | " << b.c_const
      << " | " << b.c_angle << " | " << b.c_out << " | " << b.c_floor << " | " << b.c_kconst << " | "
      << b.c_kangle << " | " << b.c_logb << " | " << b.max_position
      << " | " << b.clause << " |";
    if (b.has_result_column) r << " " << b.c_result << " |";
    tsv_rows.insert(r.str());
    EXPECT_NE(md.find("- **" + b.clause + "**"), std::string::npos) << b.clause;
  }
  EXPECT_EQ(md_rows, tsv_rows);
}

// Clause: PREC-CACHE-1
// The cached rotation's rows: the optional c_result column adds u(storage) |y| (a bound relative
// to the result), every other row reads it as 0; reference is contained in field; and a kernel
// that rounds a float32 cache's cos/sin to bf16 before the multiply leaves the float32-cache
// bound (field = reference there) where the result cancels.
TEST(Budget, CachedRotationBoundIsRelativeToTheResult) {
  const auto& ref = po::budget("rope_cached", "bf16", "reference");
  const auto& fld = po::budget("rope_cached", "bf16", "field");
  ASSERT_TRUE(ref.has_result_column);
  EXPECT_FALSE(po::budget("rope", "f32", "field").has_result_column);
  EXPECT_EQ(po::budget("rope", "f32", "field").c_result, 0.0);
  const double u = po::format_info(po::Format::F32).unit_roundoff;
  const double ub = po::format_info(po::Format::BF16).unit_roundoff;
  po::BudgetInputs in{2.0, 0.0, 0.0, 0.0, 0.5};
  EXPECT_EQ(ref.bound(in), 2.0 * (ref.c_const * u) + ref.c_result * ub * 0.5 +
                               ref.c_floor * po::format_info(po::Format::BF16).min_subnormal);
  EXPECT_GT(fld.bound(in), ref.bound(in));  // the per-operation term (16-bit caches only)
  for (const char* d : {"f32", "bf16", "f16"}) {
    EXPECT_GE(po::budget("rope_cached", d, "field").bound(in), po::budget("rope_cached", d, "reference").bound(in)) << d;
  }
  // xa = xb = 1 at an angle near pi/4: y = C - S cancels; C, S float32 cache values.
  const float c = std::cos(0.785f), s = std::sin(0.785f);
  const double exact = static_cast<double>(c) - static_cast<double>(s);
  const double degraded = po::round_to(po::round_to(c, po::Format::BF16) - po::round_to(s, po::Format::BF16), po::Format::BF16);
  const po::BudgetInputs at{std::fabs(c) + std::fabs(s), 0.0, 0.0, 0.0, std::fabs(exact)};
  EXPECT_GT(ref.units(std::fabs(degraded - exact), at), 1.0);
  // The honest float32 kernel rounding once to bf16 stays inside.
  const double honest = po::round_to(static_cast<float>(static_cast<float>(c) - static_cast<float>(s)), po::Format::BF16);
  EXPECT_LE(ref.units(std::fabs(honest - exact), at), 1.0);
}
