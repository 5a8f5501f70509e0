#include "verify/isolation/channel.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace pecheck::verifier {

Io read_full(int fd, void* buf, std::size_t n, double timeout_s) {
  using Clock = std::chrono::steady_clock;
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

namespace {

// One message of n bytes with room for one attached descriptor (SCM_RIGHTS).
struct FdMessage {
  iovec iov;
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  FdMessage(void* buf, std::size_t n) : iov{buf, n} {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = ctl;
    msg.msg_controllen = sizeof ctl;
  }
  FdMessage(const FdMessage&) = delete;
  FdMessage& operator=(const FdMessage&) = delete;
};

}  // namespace

bool send_with_fd(int sock, const void* buf, std::size_t n, int fd) {
  FdMessage m(const_cast<void*>(buf), n);
  cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  for (;;) {
    const ssize_t k = sendmsg(sock, &m.msg, MSG_NOSIGNAL);
    if (k == static_cast<ssize_t>(n)) return true;
    if (k < 0 && errno == EINTR) continue;
    return false;
  }
}

bool recv_with_fd(int sock, void* buf, std::size_t n, int* fd) {
  *fd = -1;
  FdMessage m(buf, n);
  ssize_t k;
  do {
    k = recvmsg(sock, &m.msg, MSG_CMSG_CLOEXEC);
  } while (k < 0 && errno == EINTR);
  if (k != static_cast<ssize_t>(n)) return false;
  for (cmsghdr* c = CMSG_FIRSTHDR(&m.msg); c; c = CMSG_NXTHDR(&m.msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(fd, CMSG_DATA(c), sizeof(int));
  }
  return true;
}

}  // namespace pecheck::verifier
