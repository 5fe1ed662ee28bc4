#pragma once
// Helpers for the compiler's tests.
#include <ember/compiler.h>
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "dispatch/primitive.h"

namespace ember::test {

/// A copy with the same storage size, offset, sizes and strides (expanded and non-contiguous
/// layouts included), so that each run of a graph starts from the same inputs.
inline Tensor exact_copy(const Tensor& t) {
  if (!t.defined()) return t;
  const TensorImpl* impl = t.unsafeGetTensorImpl();
  const size_t nbytes = impl->storage()->nbytes();
  auto storage = std::make_shared<StorageImpl>(nbytes, t.device());
  if (nbytes && impl->storage()->data()) {
    std::memcpy(storage->data(), impl->storage()->data(), nbytes);
  }
  auto copy = std::make_shared<TensorImpl>(storage, t.dtype(), t.sizes(), t.strides(),
                                           impl->storage_offset());
  copy->set_wrapped_number(impl->is_wrapped_number());
  return Tensor(copy);
}

inline std::vector<Tensor> exact_copies(const std::vector<Tensor>& ts) {
  std::vector<Tensor> r;
  for (const Tensor& t : ts) r.push_back(exact_copy(t));
  return r;
}

/// graph.to_string() with the parameters of view calls shown as "...": views are being
/// redesigned (absolute geometry -> logical view kinds), and the printer tests pin the rest.
inline std::string text_without_view_params(const fx::Graph& g) {
  std::istringstream in(g.to_string());
  std::string line, out;
  while (std::getline(in, line)) {
    for (const fx::Node& n : g.nodes()) {
      if (n.kind != fx::NodeKind::Call || !n.prim->is_view() || n.args.empty()) continue;
      const std::string head = "    " + n.name + ": ";
      const std::string call =
          std::string("= ember.") + n.prim->name() + "(" + g.value_name(n.args[0]);
      const size_t at = line.find(call);
      if (line.rfind(head, 0) == 0 && at != std::string::npos) {
        line = line.substr(0, at + call.size()) + ", ...)";
      }
    }
    out += line + "\n";
  }
  return out;
}

/// Fails the test unless `part` occurs in `text`.
inline void expect_has(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

/// The message of the E that `f` throws; a failure (and "") when it throws none.
template <typename E = ConstraintViolationError>
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception of the expected type";
  return "";
}

}  // namespace ember::test
