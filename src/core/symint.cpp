#include "ember/core/symint.h"

namespace ember {

SymInt::SymInt(SymNodePtr node) {
  EMBER_CHECK_VALUE(node != nullptr, "[SymInt] a symbolic SymInt needs a SymNode, got null");
  data_ = box(std::move(node));
}

void SymInt::unrepresentable(int64_t v) {
  EMBER_THROW(ValueError, "[SymInt] ", v,
              " lies in the range [-2^62, -2^62 + 2^61) that SymInt reserves for symbolic values; "
              "no size, stride or index can take it");
}

int64_t SymInt::box(SymNodePtr node) {
  const auto address = reinterpret_cast<uintptr_t>(new SymNodePtr(std::move(node)));
  // Heap addresses of every supported platform (x86-64, AArch64) lie below 2^48.
  EMBER_INTERNAL_ASSERT((address & kTagMask) == 0, "SymInt: heap address above 2^61");
  return static_cast<int64_t>(address | kTag);
}

void SymInt::release() { delete node_box(); }

}  // namespace ember
