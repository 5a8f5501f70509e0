// Running the built `pecheck` binary from the CI-gate tests: exit status, stdout, stderr, an
// environment to add, an optional signal sent after a delay (the Ctrl-C test), and a limit
// after which the process is killed.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pecheck::ci {

struct Run {
  int exit_code = -1;  // the exit status; 128 + signal when it was killed by one
  bool signaled = false;
  bool timed_out = false;
  std::string out, err;
  std::string all() const { return out + err; }
};

struct RunSpec {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing in) the environment
  double timeout_s = 120;
  double signal_after_s = -1;  // > 0: send `signal` to the process after this many seconds
  int signal = 0;
  bool unprivileged = false;   // when run as root: drop to nobody (setpriv), so permissions bite
  std::string cwd;             // the folder to run in ("" = this process's)
};

Run run(const RunSpec& spec);
Run run(const std::vector<std::string>& argv, double timeout_s = 120);

// The path of the pecheck binary, the examples folder, the CI test plug-ins, pecheck_simd.
std::string pecheck_bin();
std::string example(const std::string& name);  // "kernels" -> .../libexample_kernels.so
std::string ci_plugin(const std::string& name);
std::string simd_plugin();

// A fresh temporary folder (mode 0755, so that an unprivileged run may enter it), removed with
// its contents on destruction.
struct TempDir {
  std::string path;
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

std::string slurp(const std::string& path);
void spit(const std::string& path, const std::string& text);
// Files in a folder (names only, sorted); empty when it does not exist.
std::vector<std::string> list_dir(const std::string& path);
// The number of non-empty lines of a text.
int count_lines(const std::string& text);

}  // namespace pecheck::ci
