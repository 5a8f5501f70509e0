#include "verify/worker.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string.h>

#include "core/error.hpp"

namespace pecheck::verifier {

namespace {

using Clock = std::chrono::steady_clock;

struct Request {
  std::int32_t fn;
  std::uint64_t args, x, y;
};

struct HelloMsg {
  std::int32_t ok;
  std::uint32_t mask;
  std::int32_t has_version;
  std::int32_t version;
  char error[480];
};

enum class Io { Ok, Eof, Timeout, Error };

Io read_full(int fd, void* buf, std::size_t n, double timeout_s) {
  auto* p = static_cast<unsigned char*>(buf);
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  std::size_t got = 0;
  while (got < n) {
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0) return Io::Timeout;
    pollfd pfd{fd, POLLIN, 0};
    const int r = poll(&pfd, 1, left > 3600 ? -1 : static_cast<int>(left * 1000) + 1);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Io::Error;
    }
    if (r == 0) continue;  // re-evaluate the deadline
    const ssize_t k = read(fd, p + got, n - got);
    if (k == 0) return Io::Eof;
    if (k < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Io::Error;
    }
    got += static_cast<std::size_t>(k);
  }
  return Io::Ok;
}

bool write_full(int fd, const void* buf, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(buf);
  std::size_t put = 0;
  while (put < n) {
    const ssize_t k = send(fd, p + put, n - put, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    put += static_cast<std::size_t>(k);
  }
  return true;
}

int invoke(const KernelTable& t, Fn fn, const void* args, const float* x, float* y) {
  switch (fn) {
    case Fn::Rope: return t.rope_f32(static_cast<const pec_rope_args*>(args), x, y);
    case Fn::Alibi: return t.alibi_bias_f32(static_cast<const pec_alibi_args*>(args), y);
    case Fn::T5: return t.t5_bias_f32(static_cast<const pec_t5_args*>(args), y);
    case Fn::Sinusoidal: return t.sinusoidal_f32(static_cast<const pec_sinusoidal_args*>(args), y);
    case Fn::Learned: return t.learned_f32(static_cast<const pec_learned_args*>(args), y);
  }
  return -1;
}

// Resolves the pec_* symbols of an opened library.
KernelTable resolve(void* h) {
  KernelTable t;
  t.abi_version = reinterpret_cast<int (*)(void)>(dlsym(h, "pec_abi_version"));
  t.rope_f32 = reinterpret_cast<decltype(t.rope_f32)>(dlsym(h, "pec_rope_f32"));
  t.alibi_bias_f32 = reinterpret_cast<decltype(t.alibi_bias_f32)>(dlsym(h, "pec_alibi_bias_f32"));
  t.t5_bias_f32 = reinterpret_cast<decltype(t.t5_bias_f32)>(dlsym(h, "pec_t5_bias_f32"));
  t.sinusoidal_f32 = reinterpret_cast<decltype(t.sinusoidal_f32)>(dlsym(h, "pec_sinusoidal_f32"));
  t.learned_f32 = reinterpret_cast<decltype(t.learned_f32)>(dlsym(h, "pec_learned_f32"));
  return t;
}

std::string signal_name(int s) {
  const char* abbrev = sigabbrev_np(s);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(s);
}

// The worker's main loop; never returns.
[[noreturn]] void worker_main(int fd, const std::string& path, bool library_mode, KernelTable table) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Default dispositions: a crashing kernel must end the worker by its signal, so the report
  // can name it, even when pecheck runs inside a host with its own handlers (a sanitizer
  // runtime, a test framework).
  for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) {
    signal(s, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Whatever the kernel prints goes to stderr: pecheck's stdout may be a JSON document.
  dup2(STDERR_FILENO, STDOUT_FILENO);
  HelloMsg hello{};
  if (library_mode) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      std::snprintf(hello.error, sizeof hello.error, "%s", e ? e : "dlopen failed");
      write_full(fd, &hello, sizeof hello);
      _exit(0);
    }
    table = resolve(h);
  }
  hello.ok = 1;
  hello.mask = table.mask();
  if (table.abi_version) {
    hello.has_version = 1;
    hello.version = table.abi_version();
  }
  if (!write_full(fd, &hello, sizeof hello)) _exit(0);
  for (;;) {
    Request rq{};
    if (read_full(fd, &rq, sizeof rq, 1e9) != Io::Ok) _exit(0);
    const int rc = invoke(table, static_cast<Fn>(rq.fn), reinterpret_cast<const void*>(rq.args),
                          reinterpret_cast<const float*>(rq.x), reinterpret_cast<float*>(rq.y));
    const std::int32_t rc32 = rc;
    if (!write_full(fd, &rc32, sizeof rc32)) _exit(0);
  }
}

}  // namespace

std::string CallOutcome::describe() const {
  char buf[96];
  switch (kind) {
    case Kind::Returned: return "returned " + std::to_string(rc);
    case Kind::Signal: return "killed by " + signal_name(signo);
    case Kind::Exited: return "exited the process with status " + std::to_string(rc);
    case Kind::Timeout:
      std::snprintf(buf, sizeof buf, "did not return within %.3g s (killed)", seconds);
      return buf;
    case Kind::Lost: return "worker process could not be started";
  }
  return "unknown outcome";
}

Executor::Executor(std::string library_path, ExecutorConfig cfg)
    : path_(std::move(library_path)), library_mode_(true), cfg_(cfg), arena_(cfg.arena_bytes) {}

Executor::Executor(const KernelTable& table, ExecutorConfig cfg)
    : table_(table), library_mode_(false), cfg_(cfg), arena_(cfg.arena_bytes) {}

Executor::~Executor() { kill_worker(); }

void Executor::kill_worker() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
}

void Executor::recycle() { kill_worker(); }

bool Executor::spawn(std::string* error, LibraryInfo* info) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    *error = std::string("socketpair: ") + std::strerror(errno);
    return false;
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    close(sv[0]);
    worker_main(sv[1], path_, library_mode_, table_);
  }
  close(sv[1]);
  pid_ = pid;
  fd_ = sv[0];
  HelloMsg hello{};
  const Io io = read_full(fd_, &hello, sizeof hello, cfg_.load_timeout_s);
  if (io == Io::Ok && hello.ok) {
    info->mask = hello.mask;
    info->has_abi_version = hello.has_version != 0;
    info->abi_version = hello.version;
    return true;
  }
  if (io == Io::Ok) {
    *error = hello.error;
  } else if (io == Io::Timeout) {
    *error = "loading did not finish within " + std::to_string(static_cast<int>(cfg_.load_timeout_s)) + " s";
  } else {
    kill(pid_, SIGKILL);  // no-op when already dead; reaps below either way
    int st = 0;
    waitpid(pid_, &st, 0);
    pid_ = -1;
    *error = WIFSIGNALED(st) ? "crashed while loading (" + signal_name(WTERMSIG(st)) + ")"
                             : "exited while loading (status " + std::to_string(WEXITSTATUS(st)) + ")";
  }
  kill_worker();
  return false;
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
      t = table_ = resolve(h);
    }
    info.mask = t.mask();
    if (t.abi_version) {
      info.has_abi_version = true;
      info.abi_version = t.abi_version();
    }
    return info;
  }
  kill_worker();
  std::string error;
  if (!spawn(&error, &info)) throw UsageError("cannot load kernel library " + path_ + ": " + error);
  return info;
}

CallOutcome Executor::call(Fn fn, const void* args, const float* x, float* y) {
  CallOutcome out;
  const auto t0 = Clock::now();
  if (!cfg_.fork) {
    out.rc = invoke(table_, fn, args, x, y);
    out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return out;
  }
  const Request rq{static_cast<std::int32_t>(fn), reinterpret_cast<std::uint64_t>(args),
                   reinterpret_cast<std::uint64_t>(x), reinterpret_cast<std::uint64_t>(y)};
  if (pid_ < 0) {
    std::string error;
    LibraryInfo info;
    if (!spawn(&error, &info)) {
      out.kind = CallOutcome::Kind::Lost;
      return out;
    }
  }
  std::int32_t rc = 0;
  Io io = write_full(fd_, &rq, sizeof rq) ? read_full(fd_, &rc, sizeof rc, cfg_.call_timeout_s) : Io::Eof;
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (io == Io::Ok) {
    out.rc = rc;
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
  int st = 0;
  while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFSIGNALED(st)) {
    out.kind = CallOutcome::Kind::Signal;
    out.signo = WTERMSIG(st);
  } else {
    out.kind = CallOutcome::Kind::Exited;
    out.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  return out;
}

void check_library_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UsageError("cannot open kernel library " + path + ": " + std::strerror(errno));
  unsigned char h[64] = {};
  const ssize_t n = read(fd, h, sizeof h);
  const int err = errno;
  close(fd);
  if (n < 0) throw UsageError("cannot read kernel library " + path + ": " + std::strerror(err));
  if (n < 20 || std::memcmp(h, ELFMAG, SELFMAG) != 0) {
    throw UsageError("kernel library " + path + " is not an ELF shared object");
  }
#if defined(__x86_64__)
  constexpr int kMachine = EM_X86_64;
  constexpr const char* kArch = "x86-64";
#elif defined(__aarch64__)
  constexpr int kMachine = EM_AARCH64;
  constexpr const char* kArch = "aarch64";
#else
  constexpr int kMachine = -1;
  constexpr const char* kArch = "this host";
#endif
  if (h[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32)) {
    throw UsageError("kernel library " + path + " is a " + (h[EI_CLASS] == ELFCLASS32 ? "32" : "64") +
                     "-bit ELF file; pecheck needs a " + std::to_string(sizeof(void*) * 8) + "-bit library");
  }
  std::uint16_t type = 0, machine = 0;
  std::memcpy(&type, h + 16, 2);
  std::memcpy(&machine, h + 18, 2);
  if (kMachine >= 0 && machine != kMachine) {
    throw UsageError("kernel library " + path + " is built for another architecture (ELF machine " +
                     std::to_string(machine) + "), not " + kArch);
  }
  if (type != ET_DYN) throw UsageError("kernel library " + path + " is an ELF file but not a shared object");
}

}  // namespace pecheck::verifier
