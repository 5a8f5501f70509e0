// Errors raised by pecheck's own code. An InvalidArgument names the spec clause whose
// domain was violated, so that a message can point the user to the rule.
#pragma once

#include <stdexcept>
#include <string>

namespace pecheck {

class InvalidArgument : public std::invalid_argument {
 public:
  InvalidArgument(std::string clause, const std::string& what)
      : std::invalid_argument(clause.empty() ? what : clause + ": " + what),
        clause_(std::move(clause)) {}
  const std::string& clause() const noexcept { return clause_; }

 private:
  std::string clause_;
};

// Bad usage or bad input from the outside world (files, libraries, command line): exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An output could not be written: exit 3.
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pecheck
