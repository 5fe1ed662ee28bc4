// Makes a primitive of any kind from default parameters: the one switch over every kind (no
// default: a kind added to EMBER_PRIMITIVE_KINDS without a class fails to compile here).
#include "primitives/all.h"

namespace ember {

namespace {
template <typename P>
std::shared_ptr<Primitive> make_default() {
  if constexpr (std::is_constructible_v<P, typename P::ParamsType>) {
    return std::make_shared<P>(typename P::ParamsType{});
  } else {
    return std::make_shared<P>();
  }
}
}  // namespace

std::shared_ptr<Primitive> make_primitive(PrimitiveKind kind) {
  switch (kind) {
#define EMBER_MAKE_KIND(Name) \
  case PrimitiveKind::Name:   \
    return make_default<Name>();
    EMBER_PRIMITIVE_KINDS(EMBER_MAKE_KIND)
#undef EMBER_MAKE_KIND
  }
  EMBER_THROW(ValueError, "[make_primitive] unknown primitive kind ", static_cast<int>(kind));
}

}  // namespace ember
