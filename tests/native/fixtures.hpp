// Golden values from tests/fixtures/, read through nlohmann::json.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "attn/matrix.hpp"

namespace fixtures {

inline const nlohmann::json& seed_examples() {
  static const nlohmann::json examples = [] {
    std::ifstream file(std::string(ATTN_FIXTURES_DIR) + "/seed-examples.json");
    return nlohmann::json::parse(file);
  }();
  return examples;
}

// The example named `name` of seed-examples.json.
inline const nlohmann::json& example(const std::string& name) {
  for (const auto& entry : seed_examples()["examples"]) {
    if (entry["name"] == name) return entry;
  }
  throw std::runtime_error("no example named " + name);
}

inline attn::Matrix matrix(const nlohmann::json& rows) {
  auto result = attn::Matrix::from_shape({rows.size(), rows[0].size()});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = 0; j < rows[i].size(); ++j) result(i, j) = rows[i][j].get<float>();
  }
  return result;
}

inline attn::Vector vector(const nlohmann::json& values) {
  auto result = attn::Vector::from_shape({values.size()});
  for (std::size_t i = 0; i < values.size(); ++i) result(i) = values[i].get<float>();
  return result;
}

// The two tutorial examples.
inline const char* const kEmbedding = "attention-mechanism-drives-contextual-embedding";
inline const char* const kJourney = "your-journey-starts-with-one-step";

}  // namespace fixtures
