#include "verify/isolation/worker.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <string.h>
#include <vector>

#include "core/error.hpp"
#include "verify/isolation/channel.hpp"
#include "verify/isolation/guard.hpp"
#include "verify/isolation/kernel_call.hpp"

namespace pecheck::verifier {

namespace {

using Clock = std::chrono::steady_clock;

struct Request {
  std::int32_t fn;
  std::uint64_t args, x, y, x2, y2;  // x2/y2: the key and key output of the query+key functions
  std::uint64_t x3;                  // attention: v
  GuardSpans guards;                 // inputs' guard pages for this call (guard.hpp)
};

struct HelloMsg {
  std::int32_t ok;
  std::uint32_t mask;
  std::int32_t has_version;
  std::int32_t version;
  char error[480];
  char domain[4096];  // pec_domain()'s text (ABI-DOM-1), NUL-terminated; "" when not exported
  std::int32_t domain_truncated;
};

std::string signal_name(int s) {
  const char* abbrev = sigabbrev_np(s);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(s);
}

// Dispositions and streams of a process that runs kernel code (the fork server and every
// worker): it dies with its parent, and a crashing kernel ends it by its own signal, so the
// report can name it, even when pecheck runs inside a host with its own handlers (a sanitizer
// runtime, a test framework).
void child_setup() {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGCHLD}) {
    signal(s, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Whatever the kernel prints goes to stderr: pecheck's stdout may be a JSON document.
  dup2(STDERR_FILENO, STDOUT_FILENO);
}

// A worker's call loop; never returns.
[[noreturn]] void serve_calls(int fd, const KernelTable& table) {
  for (;;) {
    Request rq{};
    if (read_full(fd, &rq, sizeof rq, 1e9) != Io::Ok) _exit(0);
    Response rs{};
    arm_guards(rq.guards);
    bool raised = false;
    rs.rc = invoke_noting(table, static_cast<Fn>(rq.fn), reinterpret_cast<const void*>(rq.args),
                          reinterpret_cast<const void*>(rq.x), reinterpret_cast<void*>(rq.y),
                          reinterpret_cast<const void*>(rq.x2), reinterpret_cast<void*>(rq.y2),
                          reinterpret_cast<const void*>(rq.x3), &raised, rs.what, sizeof rs.what);
    disarm_guards(rq.guards);
    rs.raised = raised;
    if (!write_full(fd, &rs, sizeof rs)) _exit(0);
  }
}

HelloMsg hello_of(const KernelTable& table) {
  HelloMsg hello{};
  hello.ok = 1;
  hello.mask = table.mask();
  if (table.abi_version) {
    hello.has_version = 1;
    hello.version = table.abi_version();
  }
  if (table.domain) {  // kernel code: called in the server / worker, never in pecheck
    const char* d = table.domain();
    if (d != nullptr) {
      const std::size_t n = strnlen(d, sizeof hello.domain);
      hello.domain_truncated = n == sizeof hello.domain;
      std::memcpy(hello.domain, d, std::min(n, sizeof hello.domain - 1));
    }
  }
  return hello;
}

// Table mode: a worker forked from pecheck itself, answering calls at once.
[[noreturn]] void table_worker_main(int fd, const KernelTable& table) {
  child_setup();
  const HelloMsg hello = hello_of(table);
  if (!write_full(fd, &hello, sizeof hello)) _exit(0);
  serve_calls(fd, table);
}

// Fork-server protocol on the control socket (pecheck -> server: ServerCmd; the answer is one
// int32). Fork: the worker's end of a fresh socketpair travels with the command (SCM_RIGHTS);
// the answer is the worker's pid or -1. Wait: the answer is the raw waitpid status of that
// worker (the server is its parent, so only it can reap it).
// Channel: the passed descriptor becomes one more control socket of the server, served like the
// first (answer 0), so that parallel check lanes (Executor::become_lane) each talk to the one
// server over their own socket; the server exits when its last control socket closes.
struct ServerCmd {
  std::int32_t op;  // 1 fork, 2 wait, 3 channel
  std::int32_t pid;
};
constexpr std::int32_t kOpFork = 1, kOpWait = 2, kOpChannel = 3;

// Library mode: the fork server. It dlopens the plug-in once (its constructors run once per
// run, README "Verifying a kernel"), answers with the exports, then forks one worker per
// request; every worker starts from the state the constructors left. Never returns.
// A kernel provider (provider_spec set) loads what the spec names here, once, and fills the table.
[[noreturn]] void server_main(int ctl, const std::string& path, const std::string& provider_spec) {
  child_setup();
  HelloMsg hello{};
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    std::snprintf(hello.error, sizeof hello.error, "%s", e ? e : "dlopen failed");
    write_full(ctl, &hello, sizeof hello);
    _exit(0);
  }
  KernelTable table;
  std::string error;
  if (!open_table(h, provider_spec, &table, &error)) {
    std::snprintf(hello.error, sizeof hello.error, "%s", error.c_str());
    write_full(ctl, &hello, sizeof hello);
    _exit(0);
  }
  hello = hello_of(table);
  if (!write_full(ctl, &hello, sizeof hello)) _exit(0);
  std::vector<int> ctls{ctl};
  for (;;) {
    std::vector<pollfd> pfds;
    for (int c : ctls) pfds.push_back({c, POLLIN, 0});
    if (poll(pfds.data(), pfds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      _exit(0);
    }
    std::vector<int> closed;
    for (const pollfd& p : pfds) {
      if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const int c = p.fd;
      ServerCmd cmd{};
      int fd = -1;
      if (!recv_with_fd(c, &cmd, sizeof cmd, &fd)) {
        closed.push_back(c);
        continue;
      }
      std::int32_t answer = -1;
      if (cmd.op == kOpFork && fd >= 0) {
        std::fflush(nullptr);
        const pid_t pid = fork();
        if (pid == 0) {
          for (int o : ctls) close(o);
          prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the server
          serve_calls(fd, table);
        }
        answer = pid;
      } else if (cmd.op == kOpWait) {
        int st = 0;
        pid_t w;
        do {
          w = waitpid(cmd.pid, &st, 0);
        } while (w < 0 && errno == EINTR);
        answer = w < 0 ? -1 : st;
      } else if (cmd.op == kOpChannel && fd >= 0) {
        ctls.push_back(fd);  // kept open: it is a control socket now
        fd = -1;
        answer = 0;
      }
      if (fd >= 0) close(fd);
      if (!write_full(c, &answer, sizeof answer)) closed.push_back(c);
    }
    for (int c : closed) {
      close(c);
      std::erase(ctls, c);
    }
    if (ctls.empty()) _exit(0);
  }
}

}  // namespace

std::string CallOutcome::describe() const {
  char buf[96];
  switch (kind) {
    case Kind::Returned: return "returned " + std::to_string(rc);
    case Kind::Signal: return "killed by " + signal_name(signo) + (fault.empty() ? "" : " (" + fault + ")");
    case Kind::Exited: return "exited the process with status " + std::to_string(rc);
    case Kind::Timeout:
      std::snprintf(buf, sizeof buf, "did not return within %.3g s (killed)", seconds);
      return buf;
    case Kind::Lost: return "worker process could not be started";
    case Kind::Cut: return "was not run: the run's time cap was reached";
    case Kind::Raised: return what;
  }
  return "unknown outcome";
}

// A name without a slash is a file in the current folder, as for open(2) and every other
// pecheck input (issue 20, finding 10): dlopen would search the library path for it instead.
Executor::Executor(std::string library_path, ExecutorConfig cfg)
    : path_(library_path.find('/') == std::string::npos ? "./" + library_path : std::move(library_path)),
      library_mode_(true), cfg_(cfg), arena_(cfg.arena_bytes) {}

Executor::Executor(const KernelTable& table, ExecutorConfig cfg)
    : table_(table), library_mode_(false), cfg_(cfg), arena_(cfg.arena_bytes) {}

Executor::~Executor() {
  kill_worker();
  stop_server();
}

void Executor::stop_server() {
  if (server_fd_ >= 0) close(server_fd_);  // the server exits on EOF; SIGKILL in case it is stuck
  server_fd_ = -1;
  if (server_pid_ > 0 && !owns_server_) {  // a lane's server belongs to its parent: just let go
    server_pid_ = -1;
    owns_server_ = true;  // a server this lane starts later is its own
    return;
  }
  if (server_pid_ > 0) {
    kill(server_pid_, SIGKILL);
    int st = 0;
    while (waitpid(server_pid_, &st, 0) < 0 && errno == EINTR) {
    }
  }
  server_pid_ = -1;
}

int Executor::reap_worker() {
  int st = 0;
  if (!via_server()) {
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    return st;
  }
  const ServerCmd cmd{kOpWait, static_cast<std::int32_t>(pid_)};
  std::int32_t answer = -1;
  if (!write_full(server_fd_, &cmd, sizeof cmd) ||
      read_full(server_fd_, &answer, sizeof answer, cfg_.load_timeout_s) != Io::Ok || answer < 0) {
    stop_server();  // a server that cannot answer is replaced on the next call
    return -1;
  }
  return answer;
}

void Executor::kill_worker() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    reap_worker();
  }
  pid_ = -1;
}

void Executor::recycle() { kill_worker(); }

int Executor::open_channel() {
  kill_worker();
  if (!via_server() || server_fd_ < 0) return -1;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
  const ServerCmd cmd{kOpChannel, 0};
  std::int32_t answer = -1;
  const bool sent = send_with_fd(server_fd_, &cmd, sizeof cmd, sv[1]);
  close(sv[1]);
  if (!sent || read_full(server_fd_, &answer, sizeof answer, cfg_.load_timeout_s) != Io::Ok || answer != 0) {
    close(sv[0]);
    return -1;
  }
  return sv[0];
}

void Executor::become_lane(int channel_fd, std::size_t slice, std::size_t slices) {
  // This process is a fork of the one that owns the server: forget its worker (it has none:
  // open_channel ended it) and its server connection without touching them, and talk to the
  // same server over the lane's own channel. Without a channel (table mode, or a server that
  // could not open one) the lane forks its own workers or starts its own server.
  pid_ = -1;
  fd_ = -1;
  if (server_fd_ >= 0) close(server_fd_);
  server_fd_ = channel_fd;
  if (channel_fd < 0) server_pid_ = -1;
  owns_server_ = false;
  loads_ = 0;  // loads() counts this lane's own (none while the channel works)
  arena_.narrow(slice, slices);
}

bool Executor::past_cap() const {
  return cap_ > 0 && std::chrono::duration<double>(Clock::now().time_since_epoch()).count() > cap_;
}

bool Executor::handshake(int fd, pid_t pid, std::string* error, LibraryInfo* info) {
  HelloMsg hello{};
  const Io io = read_full(fd, &hello, sizeof hello, cfg_.load_timeout_s);
  if (io == Io::Ok && hello.ok) {
    info->mask = hello.mask;
    info->has_abi_version = hello.has_version != 0;
    info->abi_version = hello.version;
    hello.domain[sizeof hello.domain - 1] = '\0';
    info->domain = hello.domain;
    info->domain_truncated = hello.domain_truncated != 0;
    return true;
  }
  if (io == Io::Ok) {
    *error = hello.error;
  } else if (io == Io::Timeout) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", cfg_.load_timeout_s);
    *error = std::string("loading did not finish within ") + buf + " s (at most 10 s, and at most --budget-seconds + --call-timeout)";
  } else {
    kill(pid, SIGKILL);  // no-op when already dead; reaps below either way
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    *error = WIFSIGNALED(st) ? "crashed while loading (" + signal_name(WTERMSIG(st)) + ")"
                             : "exited while loading (status " + std::to_string(WEXITSTATUS(st)) + ")";
    return false;
  }
  kill(pid, SIGKILL);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return false;
}

bool Executor::start_server(std::string* error, LibraryInfo* info) {
  stop_server();
  int fd = -1;
  const pid_t pid = fork_child([this](int child_fd) { server_main(child_fd, path_, cfg_.provider_spec); }, error, info, &fd);
  if (pid < 0) return false;
  server_pid_ = pid;
  server_fd_ = fd;
  ++loads_;
  return true;
}

bool Executor::spawn(std::string* error, LibraryInfo* info) {
  if (via_server() && server_pid_ < 0 && !start_server(error, info)) return false;
  if (via_server()) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      *error = std::string("socketpair: ") + std::strerror(errno);
      return false;
    }
    const ServerCmd cmd{kOpFork, 0};
    std::int32_t pid = -1;
    const bool sent = send_with_fd(server_fd_, &cmd, sizeof cmd, sv[1]);
    close(sv[1]);
    if (!sent || read_full(server_fd_, &pid, sizeof pid, cfg_.load_timeout_s) != Io::Ok || pid <= 0) {
      close(sv[0]);
      stop_server();
      *error = "the fork server did not start a worker";
      return false;
    }
    pid_ = pid;
    fd_ = sv[0];
    return true;
  }
  int fd = -1;
  const pid_t pid = fork_child([this](int child_fd) { table_worker_main(child_fd, table_); }, error, info, &fd);
  if (pid < 0) return false;
  pid_ = pid;
  fd_ = fd;
  return true;
}

// Forks a process that runs `child_main` on its end of a fresh socket pair (it never returns)
// and waits for its hello; returns the child's pid and our end in *fd, or -1 with *error set.
template <class ChildMain>
pid_t Executor::fork_child(ChildMain child_main, std::string* error, LibraryInfo* info, int* fd) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    *error = std::string("socketpair: ") + std::strerror(errno);
    return -1;
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    *error = std::string("fork: ") + std::strerror(errno);
    return -1;
  }
  if (pid == 0) {
    close(sv[0]);
    child_main(sv[1]);  // never returns
    _exit(127);
  }
  close(sv[1]);
  if (!handshake(sv[0], pid, error, info)) {
    close(sv[0]);
    return -1;
  }
  *fd = sv[0];
  return pid;
}

LibraryInfo Executor::probe() {
  LibraryInfo info;
  if (!cfg_.fork) {
    KernelTable t = table_;
    if (library_mode_) {
      void* h = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        const char* e = dlerror();
        throw UsageError("cannot load kernel library: " + std::string(e ? e : path_));
      }
      std::string error;
      if (!open_table(h, cfg_.provider_spec, &table_, &error)) {
        throw UsageError("cannot load " + (cfg_.provider_spec.empty() ? path_ : cfg_.provider_spec) + ": " + error);
      }
      t = table_;
      ++loads_;
    }
    info.mask = t.mask();
    if (t.abi_version) {
      info.has_abi_version = true;
      info.abi_version = t.abi_version();
    }
    if (t.domain && t.domain()) info.domain = t.domain();
    return info;
  }
  kill_worker();
  std::string error;
  if (via_server()) {
    if (!start_server(&error, &info)) {
      throw UsageError(cfg_.provider_spec.empty() ? "cannot load kernel library " + path_ + ": " + error
                                                  : "cannot load " + cfg_.provider_spec + ": " + error);
    }
    return info;
  }
  if (!spawn(&error, &info)) throw UsageError("cannot load kernel library " + path_ + ": " + error);
  return info;
}

CallOutcome Executor::call(Fn fn, const void* args, const void* x, void* y, const void* x2, void* y2,
                           const void* x3) {
  CallOutcome out;
  const auto t0 = Clock::now();
  if (cap_ > 0 && std::chrono::duration<double>(t0.time_since_epoch()).count() > cap_) {
    out.kind = CallOutcome::Kind::Cut;  // a call never starts after the cap: the run ends in time
    return out;
  }
  if (!cfg_.fork) {
    bool raised = false;
    char what[sizeof(Response::what)] = {};
    out.rc = invoke_noting(table_, fn, args, x, y, x2, y2, x3, &raised, what, sizeof what);
    out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (raised) out.kind = CallOutcome::Kind::Raised, out.what = what;
    return out;
  }
  Request rq{static_cast<std::int32_t>(fn), reinterpret_cast<std::uint64_t>(args),
             reinterpret_cast<std::uint64_t>(x), reinterpret_cast<std::uint64_t>(y),
             reinterpret_cast<std::uint64_t>(x2), reinterpret_cast<std::uint64_t>(y2),
             reinterpret_cast<std::uint64_t>(x3), {}};
  rq.guards = guard_spans_of(arena_);
  if (pid_ < 0) {
    std::string error;
    LibraryInfo info;
    if (!spawn(&error, &info)) {
      out.kind = CallOutcome::Kind::Lost;
      return out;
    }
  }
  Response rs{};
  Io io = write_full(fd_, &rq, sizeof rq) ? read_full(fd_, &rs, sizeof rs, cfg_.call_timeout_s) : Io::Eof;
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (io == Io::Ok) {
    out.rc = rs.rc;
    if (rs.raised) {
      rs.what[sizeof rs.what - 1] = '\0';
      out.kind = CallOutcome::Kind::Raised;
      out.what = rs.what;
    }
    return out;
  }
  if (io == Io::Timeout) {
    out.kind = CallOutcome::Kind::Timeout;
    kill_worker();
    return out;
  }
  // The worker is gone: collect how it ended.
  close(fd_);
  fd_ = -1;
  const int st = reap_worker();
  pid_ = -1;
  if (st >= 0 && WIFSIGNALED(st)) {
    out.kind = CallOutcome::Kind::Signal;
    out.signo = WTERMSIG(st);
    if (out.signo == SIGSEGV && rq.guards.fault_slot != 0 && arena_.fault_slot()[0] != 0) {
      out.fault = arena_.describe_fault(arena_.fault_slot()[0], arena_.fault_slot()[1] != 0);
    }
  } else if (st >= 0) {
    out.kind = CallOutcome::Kind::Exited;
    out.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  } else {
    out.kind = CallOutcome::Kind::Lost;
  }
  return out;
}

}  // namespace pecheck::verifier
