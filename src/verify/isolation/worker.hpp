// Isolated execution of kernel calls (ABI-GEN-7).
//
// An Executor runs kernel calls either in a forked worker process (the default) or in-process.
// The worker is forked lazily and kept for a batch of calls (pecheck recycles it between
// checks); it receives each call as pointers into the shared Arena over a socket and answers
// with the return value. When the kernel crashes, aborts, exits or runs past the per-call time
// limit, the worker is gone or killed, the call's outcome says so, and the next call forks a
// fresh worker: pecheck's own state is never touched by kernel code.
//
// Library mode: a fork server, not pecheck, dlopens the plug-in once (its constructors run
// once, however many checks, crashes and hangs follow), and every worker is forked from that
// server on request, so a library with a heavy runtime pays its start-up once and a library
// whose constructors crash cannot take pecheck down. Table mode: the worker is forked from
// pecheck and inherits the function pointers of a KernelTable.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "verify/isolation/arena.hpp"
#include "verify/isolation/kernel_table.hpp"

namespace pecheck::verifier {

struct CallOutcome {
  // Cut: not started, past the cap. Raised: a kernel provider's call failed without returning a
  // status (a Python exception, a return value that is no int; src/python): `what` says how, and
  // the worker lives on.
  enum class Kind { Returned, Signal, Exited, Timeout, Lost, Cut, Raised };
  Kind kind = Kind::Returned;
  int rc = 0;      // Returned: the kernel's return value; Exited: the exit status
  int signo = 0;   // Signal: the signal that ended the worker
  double seconds = 0;
  // Signal SIGSEGV at an input's guard page (Arena::allocate_input): which input, which element
  // ("read x[64]: 1 float after the last of its 64 elements ..."); "" otherwise.
  std::string fault;
  std::string what;  // Raised: the provider's account ("raised ValueError: ... (at f.py:3 in rope)")
  bool returned() const { return kind == Kind::Returned; }
  bool ok() const { return kind == Kind::Returned && rc == 0; }
  std::string describe() const;  // "returned 3", "killed by SIGSEGV", "timed out after 1 s", ...
};

// What a library offers, learned by loading it in a worker.
struct LibraryInfo {
  std::uint32_t mask = 0;            // bit i: kAllFns[i] exported
  bool has_abi_version = false;
  int abi_version = 0;
  std::string domain;             // pec_domain()'s text (ABI-DOM-1), "" when not exported
  bool domain_truncated = false;  // longer than pecheck reads (4 KiB)
  // Exports that look like ABI functions but are not (misspelt, C++-mangled), each described
  // with the ABI name meant (isolation/exports.hpp); filled by verify_library from the ELF file.
  std::vector<std::string> stray_exports;
};

struct ExecutorConfig {
  bool fork = true;               // false: call in-process (no isolation)
  double call_timeout_s = 1.0;    // per call, forked mode only
  double load_timeout_s = 10.0;   // for dlopen + pec_abi_version in the worker
  std::size_t arena_bytes = std::size_t{256} << 20;
  // Library mode: when set, the library is a kernel provider (kernel_call.hpp, open_table) and
  // this is what it loads, in the fork server ("MODULE:OBJECT" for the Python provider).
  std::string provider_spec;
};

class Executor {
 public:
  // Library mode: `library_path` is dlopened inside each worker; a name without a slash is a
  // file in the current folder (not a search of the library path).
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

  // One call of `fn` with its own signature (float or uint16_t tensors by storage(fn)).
  // args/x/y/x2/y2 point into arena() (or are null where the call passes NULL): x the input and
  // y the output (RoPE x, y; the biases and tables only y; the cache builder y = cache); x2/y2
  // the key and key output of the query+key and cached functions (x = q, y = q_out).
  // Attention: x = q, x2 = k, x3 = v, y = out, y2 = lse.
  CallOutcome call(Fn fn, const void* args, const void* x, void* y, const void* x2 = nullptr, void* y2 = nullptr,
                   const void* x3 = nullptr);

  // Ends the current worker; the next call forks a new one (from the fork server).
  void recycle();

  // The run's time cap (monotonic seconds as verifier::now_seconds(), 0 = none): a call asked
  // for after it does not start and returns Kind::Cut, so no call ends later than the cap plus
  // one call timeout.
  void set_cap(double deadline_s) { cap_ = deadline_s; }
  // The per-call limit (forked mode). Shrinking a hang lowers it for its candidates only and
  // confirms the shrunk case under the configured limit (verify/check_impl.hpp).
  void set_call_timeout(double s) { cfg_.call_timeout_s = s; }
  bool past_cap() const;

  // How many times the library was loaded (the fork server started) in this Executor.
  int loads() const { return loads_; }

  // Parallel check lanes (verify/engine.cpp): open_channel(), in the process that owns the fork
  // server, returns a new control socket to that same server (-1 without one); become_lane(),
  // in a forked copy of that process, makes this Executor use that channel and slice `slice` of
  // `slices` equal parts of the arena, so that lanes share one loaded library (its constructors
  // still run once) and never each other's memory.
  int open_channel();
  void become_lane(int channel_fd, std::size_t slice, std::size_t slices);

 private:
  bool via_server() const { return library_mode_ && cfg_.fork; }
  bool spawn(std::string* error, LibraryInfo* info);
  bool start_server(std::string* error, LibraryInfo* info);
  bool handshake(int fd, pid_t pid, std::string* error, LibraryInfo* info);
  template <class ChildMain>
  pid_t fork_child(ChildMain child_main, std::string* error, LibraryInfo* info, int* fd);
  void stop_server();
  int reap_worker();  // raw wait status of pid_, or -1 when it could not be collected
  void kill_worker();

  std::string path_;
  KernelTable table_{};
  bool library_mode_ = false;
  ExecutorConfig cfg_;
  Arena arena_;
  pid_t pid_ = -1;
  int fd_ = -1;
  pid_t server_pid_ = -1;
  int server_fd_ = -1;
  bool owns_server_ = true;  // false in a lane: the server is its parent's
  double cap_ = 0;
  int loads_ = 0;
};

// Checks the file before any process loads it: exists, readable, an ELF shared object of the
// host's class and machine. Throws UsageError with a one-line reason.
void check_library_file(const std::string& path);

}  // namespace pecheck::verifier
