#include "attn/names.hpp"

#include <cstdio>

#include "attn/errors.hpp"

namespace attn::names_detail {

namespace {

// The most bytes of a given name a message repeats.
constexpr std::size_t kShownBytes = 40;

// `given` in single quotes, printable ASCII as it is and every other byte as \xNN, so that
// no control or bidi character reaches a message.
std::string quoted(std::string_view given) {
  std::string text = "'";
  for (std::size_t i = 0; i < given.size() && i < kShownBytes; ++i) {
    const unsigned char byte = static_cast<unsigned char>(given[i]);
    if (byte >= 0x20 && byte < 0x7F) {
      text += static_cast<char>(byte);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
      text += escaped;
    }
  }
  return text + (given.size() > kShownBytes ? "…'" : "'");
}

}  // namespace

void fail_unknown(const char* option, const std::vector<const char*>& accepted,
                  std::string_view given, const char* hint) {
  std::string list;
  for (const char* name : accepted) list += (list.empty() ? "'" : ", '") + std::string(name) + "'";
  fail(std::string(option) + " must be one of " + list + ", got " + quoted(given) +
       (hint ? std::string(" (") + hint + ")" : std::string()));
}

void fail_unnamed(const char* option, long value) {
  fail(std::string(option) + " has no name for the value " + std::to_string(value) +
       ": its table in the core lacks a line");
}

}  // namespace attn::names_detail
