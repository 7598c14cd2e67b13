// The name of each value of an option, as the JavaScript API spells it: one table per
// option, read in both directions. to_string(value) names a value in results and messages;
// parse<Enum>(text) reads what a caller wrote, and a name the table does not hold is an
// error that names the option, the names it takes and the name given, never a default.
//
// The header that defines an option's enum defines its table beside it, and the function
// that finds the table by the enum's type:
//
//   inline constexpr OptionNames<Normalization, 3> kNormalizationNames{"normalization", {{
//       {Normalization::softmax, "softmax"}, ...}}};
//   constexpr const auto& names_of(Normalization) { return kNormalizationNames; }
//
// A new option adds those two lines; a new value adds one line to its table.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <string_view>
#include <type_traits>
#include <vector>

namespace attn {

template <class Enum>
struct Named {
  Enum value;
  const char* name;
};

template <class Enum, std::size_t N>
struct OptionNames {
  const char* option;                 // the option as the API spells it: "positional.type"
  std::array<Named<Enum>, N> values;  // every value, in the order messages list them
};

// The values a call takes of an option: a list in braces, or a std::array the core names
// (attn::lab::kDistanceBiasTypes); empty means every value. Messages list them in order.
template <class Enum>
class Accepted {
 public:
  Accepted() = default;
  Accepted(std::initializer_list<Enum> values) : values_(values) {}
  template <std::size_t M>
  Accepted(const std::array<Enum, M>& values) : values_(values.begin(), values.end()) {}

  const std::vector<Enum>& values() const { return values_; }
  bool contains(Enum value) const {
    return values_.empty() || std::find(values_.begin(), values_.end(), value) != values_.end();
  }

 private:
  std::vector<Enum> values_;
};

namespace names_detail {

// "<option> must be one of 'a', 'b', got 'given'" and, when given, " (<hint>)" (given
// quoted with anything but printable ASCII escaped as \xNN, and cut after 40 bytes), thrown
// as attn::InvalidArgument.
[[noreturn]] void fail_unknown(const char* option, const std::vector<const char*>& accepted,
                               std::string_view given, const char* hint = nullptr);

// For an enum value that its table lacks: a table is missing a line.
[[noreturn]] void fail_unnamed(const char* option, long value);

template <class Enum>
using if_named = std::enable_if_t<std::is_enum_v<Enum>, decltype(names_of(Enum{}))>;

template <class Enum>
struct NotDeduced {
  using type = Accepted<Enum>;
};

}  // namespace names_detail

// Accepted<Enum> for a parameter beside one that alone deduces Enum, so that a braced list
// or a std::array converts to it.
template <class Enum>
using AcceptedOf = typename names_detail::NotDeduced<Enum>::type;

// The name of `value`.
template <class Enum, class = names_detail::if_named<Enum>>
const char* to_string(Enum value) {
  const auto& names = names_of(value);
  for (const auto& named : names.values) {
    if (named.value == value) return named.name;
  }
  names_detail::fail_unnamed(names.option, static_cast<long>(value));
}

namespace names_detail {

// The names of `accepted` (of every value when it is empty), in order.
template <class Enum>
std::vector<const char*> names_in(const Accepted<Enum>& accepted) {
  std::vector<const char*> result;
  if (accepted.values().empty()) {
    for (const auto& named : names_of(Enum{}).values) result.push_back(named.name);
  } else {
    for (Enum value : accepted.values()) result.push_back(to_string(value));
  }
  return result;
}

}  // namespace names_detail

// The value named `given`, which must be one of `accepted`.
template <class Enum, class = names_detail::if_named<Enum>>
Enum parse(std::string_view given, AcceptedOf<Enum> accepted = {}) {
  for (const auto& named : names_of(Enum{}).values) {
    if (given == named.name && accepted.contains(named.value)) return named.value;
  }
  names_detail::fail_unknown(names_of(Enum{}).option, names_detail::names_in(accepted), given);
}

// Throws the message parse would, with `hint` after it, unless `value` is one of `accepted`.
template <class Enum, class = names_detail::if_named<Enum>>
void require_one_of(Enum value, AcceptedOf<Enum> accepted, const char* hint = nullptr) {
  if (accepted.contains(value)) return;
  names_detail::fail_unknown(names_of(value).option, names_detail::names_in(accepted),
                             to_string(value), hint);
}

}  // namespace attn
