//===- Status.h - Errors as values for the metaattn runtime -----*- C++ -*-===//
//
// `Status` and `StatusOr<T>`: every runtime operation that can fail returns one of these. The
// runtime never aborts on a user or environment error and does not rely on exceptions; an error
// carries a human-readable message (the compiler's log, the driver's message, ...).
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_STATUS_H
#define METAATTN_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace metaattn::rt {

/// The result of an operation that returns nothing: success, or an error with a message.
class [[nodiscard]] Status {
public:
  /// A successful status.
  Status() = default;

  /// A successful status (spelled out, for readability at return sites).
  static Status success() { return Status(); }

  /// An error whose message is formatted with fmt, e.g.
  /// `Status::error("tensor '{}': rank is {}, expected {}", name, got, want)`.
  template <typename... Args>
  static Status error(fmt::format_string<Args...> format, Args &&...args) {
    return fromMessage(fmt::format(format, std::forward<Args>(args)...));
  }

  /// An error with an already formatted message. An empty message is replaced by a generic one
  /// so that an error can never look like success.
  static Status fromMessage(std::string message) {
    Status status;
    status.failed = true;
    status.text = message.empty() ? std::string("unknown error") : std::move(message);
    return status;
  }

  /// True when the operation succeeded.
  bool ok() const { return !failed; }

  /// The error message; empty on success.
  const std::string &message() const { return text; }

  /// Returns this error with `context` and ": " prepended to its message; success stays success.
  Status withContext(std::string_view context) const {
    if (ok())
      return *this;
    return fromMessage(fmt::format("{}: {}", context, text));
  }

private:
  bool failed = false;
  std::string text;
};

/// Either a value of type `T` or an error `Status`.
template <typename T> class [[nodiscard]] StatusOr {
public:
  /// Holds `value` (implicit, so functions can `return value;`).
  StatusOr(T value) : storage(std::move(value)) {}

  /// Holds an error. `status` must not be a success: that is a bug in the caller.
  StatusOr(Status status) : errorStatus(std::move(status)) {
    assert(!errorStatus.ok() && "StatusOr built from a success Status without a value");
    if (errorStatus.ok())
      errorStatus = Status::error("StatusOr built from a success Status without a value");
  }

  /// True when a value is held.
  bool ok() const { return storage.has_value(); }

  /// The error, or success when a value is held.
  const Status &status() const { return errorStatus; }

  /// The error message; empty when a value is held.
  const std::string &message() const { return errorStatus.message(); }

  /// The held value. Calling these on an error is a bug (asserts).
  T &value() & {
    assert(ok() && "StatusOr::value() on an error");
    return *storage;
  }
  const T &value() const & {
    assert(ok() && "StatusOr::value() on an error");
    return *storage;
  }
  T &&value() && {
    assert(ok() && "StatusOr::value() on an error");
    return std::move(*storage);
  }

  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T &&operator*() && { return std::move(*this).value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  std::optional<T> storage;
  Status errorStatus;
};

} // namespace metaattn::rt

/// Returns from the enclosing function when `expr` (a Status) is an error.
#define METAATTN_RETURN_IF_ERROR(expr)                                                             \
  do {                                                                                             \
    ::metaattn::rt::Status metaattnStatus_ = (expr);                                               \
    if (!metaattnStatus_.ok())                                                                     \
      return metaattnStatus_;                                                                      \
  } while (false)

#define METAATTN_STATUS_CONCAT_INNER(a, b) a##b
#define METAATTN_STATUS_CONCAT(a, b) METAATTN_STATUS_CONCAT_INNER(a, b)

/// Evaluates `expr` (a StatusOr); on error returns its Status from the enclosing function,
/// otherwise moves the value into `lhs` (which may be a declaration such as `auto x`).
#define METAATTN_ASSIGN_OR_RETURN(lhs, expr)                                                       \
  METAATTN_ASSIGN_OR_RETURN_IMPL(METAATTN_STATUS_CONCAT(metaattnStatusOr_, __LINE__), lhs, expr)
#define METAATTN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)                                             \
  auto tmp = (expr);                                                                               \
  if (!tmp.ok())                                                                                   \
    return tmp.status();                                                                           \
  lhs = std::move(tmp).value()

#endif // METAATTN_RUNTIME_STATUS_H
