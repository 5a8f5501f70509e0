// Isolated execution of kernel calls (ABI-GEN-7).
//
// An Executor runs kernel calls either in a forked worker process (the default) or in-process.
// The worker is forked lazily and kept for a batch of calls (pecheck recycles it between
// checks); it receives each call as pointers into the shared Arena over a socket and answers
// with the return value. When the kernel crashes, aborts, exits or runs past the per-call time
// limit, the worker is gone or killed, the call's outcome says so, and the next call forks a
// fresh worker: pecheck's own state is never touched by kernel code.
//
// Library mode: the worker, not pecheck, dlopens the plug-in, so even a library whose
// constructors crash cannot take pecheck down. Table mode: the worker inherits the function
// pointers of a KernelTable through fork.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "verify/arena.hpp"
#include "verify/kernel_table.hpp"

namespace pecheck::verifier {

struct CallOutcome {
  enum class Kind { Returned, Signal, Exited, Timeout, Lost };
  Kind kind = Kind::Returned;
  int rc = 0;      // Returned: the kernel's return value; Exited: the exit status
  int signo = 0;   // Signal: the signal that ended the worker
  double seconds = 0;
  bool returned() const { return kind == Kind::Returned; }
  bool ok() const { return kind == Kind::Returned && rc == 0; }
  std::string describe() const;  // "returned 3", "killed by SIGSEGV", "timed out after 1 s", ...
};

// What a library offers, learned by loading it in a worker.
struct LibraryInfo {
  std::uint32_t mask = 0;            // bit i: kAllFns[i] exported
  bool has_abi_version = false;
  int abi_version = 0;
};

struct ExecutorConfig {
  bool fork = true;               // false: call in-process (no isolation)
  double call_timeout_s = 1.0;    // per call, forked mode only
  double load_timeout_s = 10.0;   // for dlopen + pec_abi_version in the worker
  std::size_t arena_bytes = std::size_t{256} << 20;
};

class Executor {
 public:
  // Library mode: `library_path` is dlopened inside each worker.
  Executor(std::string library_path, ExecutorConfig cfg);
  // Table mode.
  Executor(const KernelTable& table, ExecutorConfig cfg);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  Arena& arena() { return arena_; }
  const ExecutorConfig& config() const { return cfg_; }

  // Loads the library in a fresh worker and reports its exports. Throws UsageError with a
  // one-line reason when it cannot be loaded (ABI-GEN-1).
  LibraryInfo probe();

  // One call. args/x/y must point into arena(); x may be null for functions without it.
  CallOutcome call(Fn fn, const void* args, const float* x, float* y);

  // Ends the current worker; the next call forks a new one.
  void recycle();

 private:
  struct Hello;
  bool spawn(std::string* error, LibraryInfo* info);
  void kill_worker();

  std::string path_;
  KernelTable table_{};
  bool library_mode_ = false;
  ExecutorConfig cfg_;
  Arena arena_;
  pid_t pid_ = -1;
  int fd_ = -1;
};

// Checks the file before any process loads it: exists, readable, an ELF shared object of the
// host's class and machine. Throws UsageError with a one-line reason.
void check_library_file(const std::string& path);

}  // namespace pecheck::verifier
