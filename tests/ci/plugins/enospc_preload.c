/* Fault injection for the "disk full while writing a report" test: an LD_PRELOAD library whose
 * write(2) and writev(2) fail with ENOSPC for every file whose path contains the text of the
 * environment variable PECHECK_FAULT_ENOSPC, and pass everything else through. Root can write
 * to a read-only folder and cannot mount a small tmpfs in every CI container; this works
 * everywhere. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static int should_fail(int fd) {
  const char* pattern = getenv("PECHECK_FAULT_ENOSPC");
  char link[64], path[4096];
  ssize_t n;
  if (pattern == NULL || *pattern == '\0' || fd <= 2) return 0;
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  return strstr(path, pattern) != NULL;
}

ssize_t write(int fd, const void* buf, size_t count) {
  static ssize_t (*next)(int, const void*, size_t);
  if (next == NULL) next = (ssize_t(*)(int, const void*, size_t))dlsym(RTLD_NEXT, "write");
  if (count > 0 && should_fail(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return next(fd, buf, count);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  static ssize_t (*next)(int, const struct iovec*, int);
  if (next == NULL) next = (ssize_t(*)(int, const struct iovec*, int))dlsym(RTLD_NEXT, "writev");
  if (iovcnt > 0 && should_fail(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return next(fd, iov, iovcnt);
}
