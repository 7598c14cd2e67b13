// The parser of pasted vector tables: one row of numbers per line, as spreadsheets, CSV
// files and NumPy or PyTorch print them. It reads arbitrary bytes (attn/text/limits.hpp)
// and either returns a matrix or throws attn::InvalidArgument naming where and what.
#pragma once

#include <string_view>

#include "attn/matrix.hpp"
#include "attn/text/limits.hpp"

namespace attn::text {

// A table of vectors, one row per line, e.g. pasted from a spreadsheet, a CSV file or
// printed by NumPy/PyTorch:
//   - a line ends at \n, \r\n or \r; '#' starts a comment that runs to the end of its line;
//   - numbers are separated by spaces, tabs or commas (one comma between two numbers,
//     with spaces around it or not); a comma may also end a row;
//   - a row may open with any number of '[' and close with any number of ']', then an
//     optional comma ("[[1, 2],", " [3, 4]]");
//   - a number is decimal: optional sign (+, - or the minus sign U+2212), digits with an
//     optional decimal point, optional exponent (1, -0.5, .25, 3., 6.02e23), read with
//     strtod and rounded to float32 (a float printed with 9 significant digits reads back
//     bit for bit); NaN, Infinity, hexadecimal and values that round beyond float32's range
//     (±3.4028235e+38) are errors;
//   - lines without numbers (blank, comments, lone brackets) are skipped; a byte-order
//     mark at the start is ignored;
//   - every row has the same count of numbers.
// Returns rows×cols. Throws attn::InvalidArgument naming the line and column (1-based,
// columns count code points) and what was found there: "line 3, column 8: expected a
// number, found 'abc'", "line 4 has 2 numbers but line 1 has 3".
Matrix parse_vectors(std::string_view text);

}  // namespace attn::text
