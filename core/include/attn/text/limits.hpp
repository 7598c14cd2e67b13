// Text that users paste, as the tokenizer (attn/text/tokenizer.hpp) and the vector-table
// parser (attn/text/vectors.hpp) read it: arbitrary bytes (valid UTF-8 or not) of a bounded
// size. Neither interprets anything: markup, entities, escapes and scripts are plain
// characters, and error messages never echo control or bidi characters.
#pragma once

#include <cstddef>
#include <string_view>

namespace attn::text {

// The most bytes of text either reads: 16 MiB of UTF-8.
constexpr std::size_t kMaxTextBytes = std::size_t{1} << 24;

// Throws attn::InvalidArgument naming the size when text is longer than kMaxTextBytes.
void require_text_size(std::string_view text);

}  // namespace attn::text
