// Helpers for the verify engine's tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_kernels.hpp"
#include "verify/verify.hpp"

namespace vt {

// Options for a focused, deterministic run: no wall-clock cap (so the cases run are a function
// of the seed alone), a short per-call timeout for the hang tests.
inline pecheck::VerifyOptions options(std::vector<std::string> only, double case_scale = 0.3) {
  pecheck::VerifyOptions o;
  o.only = std::move(only);
  o.case_scale = case_scale;
  o.budget_seconds = 0;
  o.call_timeout_seconds = 0.3;
  o.regressions = false;  // the shipped regression vectors are the CI gate's tests (tests/ci)
  return o;
}

inline const pecheck::report::CheckResult& check(const pecheck::VerifyResult& r, const std::string& name) {
  const auto* c = r.find(name);
  if (!c) throw std::runtime_error("no check " + name);
  return *c;
}

inline const pecheck::report::ArgValue& arg(const pecheck::report::Counterexample& cx, const std::string& name) {
  for (const auto& a : cx.args)
    if (a.name == name) return a.value;
  throw std::runtime_error("no argument " + name);
}

inline std::int64_t int_arg(const pecheck::report::Counterexample& cx, const std::string& name) {
  return std::get<std::int64_t>(arg(cx, name));
}

inline std::vector<std::int64_t> ints_arg(const pecheck::report::Counterexample& cx, const std::string& name) {
  return std::get<std::vector<std::int64_t>>(arg(cx, name));
}

// Runs with one injected bug and restores the correct kernel afterwards.
inline pecheck::VerifyResult run_with(testk::Bug bug, const pecheck::VerifyOptions& o) {
  testk::g_bug = bug;
  auto r = pecheck::verify(testk::all(), o);
  testk::g_bug = testk::Bug::None;
  return r;
}

}  // namespace vt
