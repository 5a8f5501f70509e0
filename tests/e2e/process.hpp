// Runs a program the way a shell would (no shell involved), capturing its exit status, stdout
// and stderr, with a wall-clock limit after which it is killed.
#pragma once

#include <string>
#include <vector>

namespace pecheck::e2e {

struct ProcessResult {
  int exit_code = -1;     // the exit status, or 128 + signal when killed
  bool timed_out = false;
  std::string out, err;
};

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds);

// Splits a one-line command written for a POSIX shell (the `reproduce` line of a report):
// whitespace separates words, single and double quotes group, backslash escapes, and a
// word starting with '#' begins a comment.
std::vector<std::string> split_command(const std::string& line);

// A fresh temporary directory, removed with its contents on destruction.
struct TempDir {
  std::string path;
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

std::string slurp(const std::string& path);

}  // namespace pecheck::e2e
