#include "attn/text/limits.hpp"

#include <string>

#include "attn/errors.hpp"

namespace attn::text {

void require_text_size(std::string_view text) {
  if (text.size() > kMaxTextBytes) {
    fail("text is " + std::to_string(text.size()) + " bytes of UTF-8, more than the " +
         std::to_string(kMaxTextBytes) + " accepted; paste less");
  }
}

}  // namespace attn::text
