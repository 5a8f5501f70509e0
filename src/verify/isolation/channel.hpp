// Socket I/O of the worker protocol (worker.cpp): whole messages with a deadline, and a message
// with one file descriptor attached (SCM_RIGHTS), as the fork server's commands carry them.
#pragma once

#include <cstddef>

namespace pecheck::verifier {

enum class Io { Ok, Eof, Timeout, Error };

// Reads exactly n bytes, waiting at most timeout_s seconds in all (> 3600: no deadline).
Io read_full(int fd, void* buf, std::size_t n, double timeout_s);
// Writes exactly n bytes (no SIGPIPE); false when the peer is gone.
bool write_full(int fd, const void* buf, std::size_t n);
// Sends n bytes with descriptor fd attached; false on error.
bool send_with_fd(int sock, const void* buf, std::size_t n, int fd);
// Receives exactly n bytes; *fd gets an attached descriptor (close-on-exec) or -1. False on EOF
// or error.
bool recv_with_fd(int sock, void* buf, std::size_t n, int* fd);

}  // namespace pecheck::verifier
