// Catch2's main, compiled once in its own translation unit (it takes ~11 s).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
