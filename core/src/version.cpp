#include "attn/version.hpp"

namespace attn {

const char* version() { return ATTN_VERSION; }

}  // namespace attn
