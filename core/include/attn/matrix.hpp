// Matrix types and the letter legend used by every header of the engine.
//
//   n   queries (rows of q)              m   keys and values (rows of k and v)
//   dk  query/key width, all heads       dv  value width, all heads
//   H   heads                            dh  = dk / H, one head's query/key width
//   dvh = dv / H, one head's value width  L   layers (rollout)
//   p   position of a query: p = i + (m - n), so the last query sits beside the last key
//
// Every matrix is row-major float32. A comment on each matrix argument gives its shape.
#pragma once

#include <cstddef>
#include <string>
#include <xtensor/xtensor.hpp>

namespace attn {

using Matrix = xt::xtensor<float, 2>;
using Vector = xt::xtensor<float, 1>;

// "3×4": how shapes are written in error messages.
std::string shape_string(const Matrix& matrix);

}  // namespace attn
