#pragma once

namespace attn {

// The engine's version, "major.minor.patch"; set from CMakeLists.txt's project version.
const char* version();

}  // namespace attn
