#pragma once
// Helpers for the compiler's tests.
#include <ember/compiler.h>

#include <sstream>
#include <string>

#include "dispatch/primitive.h"

namespace ember::test {

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

}  // namespace ember::test
