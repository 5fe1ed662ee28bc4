// Dim, derived dims and static pins, and the checks of a DynamicSpec against the example inputs
// that give make_fx its symbolic input sizes (Note [Symbolic shapes] in symbolic.h).
#include <limits>

#include "compiler/symbolic.h"
#include "ember/compiler.h"

namespace ember {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string opt_str(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : std::string("None");
}

constexpr const char* kOnlyIncreasing =
    " (Only increasing linear operations with integer coefficients are supported.)";

int64_t saturating(__int128 v) {
  constexpr int64_t top = std::numeric_limits<int64_t>::max() - 1;
  return v > top ? top : static_cast<int64_t>(v);
}

// scale * root + offset with its name ("2*seq + 1") and range.
Dim derive(const Dim& d, int64_t scale, int64_t offset) {
  EMBER_CHECK_NOT_IMPL(!d.value, "[Dim] a static dim (", *d.value, ") cannot be derived from");
  Dim r = d;
  if (!d.is_derived()) {
    r.root = d.name;
    r.root_min = d.min;
    r.root_max = d.max;
    r.scale = 1;
    r.offset = 0;
  }
  r.scale = r.scale * scale;
  r.offset = r.offset * scale + offset;
  std::string name = (r.scale == 1 ? "" : std::to_string(r.scale) + "*") + r.root;
  if (r.offset != 0) name += (r.offset > 0 ? " + " : " - ") + std::to_string(std::abs(r.offset));
  r.name = name;
  r.min = saturating(static_cast<__int128>(r.scale) * r.root_min + r.offset);
  r.max = saturating(static_cast<__int128>(r.scale) * r.root_max + r.offset);
  return r;
}

}  // namespace

Dim::Dim(std::string name_, std::optional<int64_t> min_, std::optional<int64_t> max_)
    : name(std::move(name_)) {
  EMBER_CHECK_VALUE(is_identifier(name), "[Dim] Dim name must be a valid identifier, got ", name);
  min = min_.value_or(0);
  max = max_.value_or(std::numeric_limits<int64_t>::max() - 1);
  EMBER_CHECK_VALUE(max > min, "[Dim] Cannot create Dim with inconsistent min=", opt_str(min_),
                    ", max=", opt_str(max_));
  EMBER_CHECK_VALUE(min >= 0, "[Dim] a size cannot be negative: min=", min, " for ", name);
}

Dim::Dim(int64_t static_size) : name(std::to_string(static_size)), value(static_size) {
  EMBER_CHECK_VALUE(static_size >= 0, "[Dim] a static size cannot be negative, got ", static_size);
  min = max = static_size;
}

Dim operator+(const Dim& d, int64_t k) { return derive(d, 1, k); }
Dim operator+(int64_t k, const Dim& d) { return derive(d, 1, k); }
Dim operator-(const Dim& d, int64_t k) { return derive(d, 1, -k); }
Dim operator-(int64_t, const Dim& d) {
  EMBER_THROW(NotImplementedError, "[Dim] Attempted to negate ", d.name, ".", kOnlyIncreasing);
}
Dim operator*(const Dim& d, int64_t k) {
  EMBER_CHECK_NOT_IMPL(k > 0, "[Dim] Attempted to multiply ", k, " with ", d.name,
                       ", where a positive integer was expected.", kOnlyIncreasing);
  return derive(d, k, 0);
}
Dim operator*(int64_t k, const Dim& d) { return d * k; }

namespace {
Assumption relation(const Dim& a, const char* op, const Dim& b) { return {a, op, b}; }
std::string side(const Dim& d) { return d.value ? std::to_string(*d.value) : d.name; }
}  // namespace

Assumption operator>(const Dim& a, const Dim& b) { return relation(a, ">", b); }
Assumption operator>=(const Dim& a, const Dim& b) { return relation(a, ">=", b); }
Assumption operator<(const Dim& a, const Dim& b) { return relation(a, "<", b); }
Assumption operator<=(const Dim& a, const Dim& b) { return relation(a, "<=", b); }
Assumption operator==(const Dim& a, const Dim& b) { return relation(a, "==", b); }
std::string Assumption::str() const { return side(lhs) + " " + op + " " + side(rhs); }

bool DynamicSpec::empty() const {
  for (const auto& dims : inputs) {
    if (!dims.empty()) return false;
  }
  return true;
}

namespace fx {

std::vector<std::vector<SymInt>> symbolic_sizes(const DynamicSpec& spec,
                                                const std::vector<Tensor>& inputs) {
  if (spec.empty()) {
    EMBER_CHECK_VALUE(spec.assumptions.empty(), "[make_fx] dynamic_shapes has assumptions (",
                      spec.assumptions[0].str(), ") but no dynamic dims");
    return {};
  }
  EMBER_CHECK_VALUE(spec.inputs.size() == inputs.size(), "[make_fx] dynamic_shapes has ",
                    spec.inputs.size(), " entries, but the function is traced with ", inputs.size(),
                    " inputs (one entry per input, {} for a static one)");
  const auto env = ShapeEnv::make();
  struct Root {
    int64_t min, max;
    SymInt symbol;
  };
  std::map<std::string, Root> roots;
  std::vector<std::vector<SymInt>> result(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (spec.inputs[i].empty()) continue;
    EMBER_CHECK_VALUE(inputs[i].defined(), "[make_fx] dynamic_shapes gives dims of input ", i,
                      ", which is None");
    EMBER_CHECK_NOT_IMPL(inputs[i].is_contiguous() && inputs[i].storage_offset() == 0,
                         "[make_fx] input ", i, " has dynamic dims, and dynamic shapes are traced ",
                         "from contiguous inputs only (call .contiguous() on the example)");
    const std::vector<int64_t>& sizes = inputs[i].sizes();
    result[i].assign(sizes.begin(), sizes.end());
    for (const auto& [dim, d] : spec.inputs[i]) {
      const int64_t ndim = inputs[i].dim();
      EMBER_CHECK_VALUE(dim >= 0 && dim < ndim, "[make_fx] dynamic_shapes of input ", i,
                        " names dim ", dim, " ('", d.name, "'), but the input has ", ndim, " dims");
      const int64_t size = sizes[dim];
      const std::string where = "input " + std::to_string(i) + " dim " + std::to_string(dim);
      if (d.value) {
        if (size != *d.value) {
          EMBER_THROW(ConstraintViolationError, "[make_fx] Constraints violated! ", where,
                      " is pinned to the static size ", *d.value, ", but the example input has ",
                      size, ". Suggested fix: pin it to ", size, " or make it a Dim");
        }
        continue;
      }
      if (size < d.min || size > d.max) {
        EMBER_THROW(ConstraintViolationError, "[make_fx] Constraints violated (", d.name,
                    ")! The example input ", i, " has size ", size, " in dim ", dim,
                    ", outside the range of ", d.name, " [", d.min, ", ", d.max,
                    "]. Suggested fix: ", d.name, " = Dim(\"", d.name,
                    "\", min=", std::min(d.min, size), ", max=", std::max(d.max, size), ")");
      }
      // The root's size this example implies.
      const std::string root = d.is_derived() ? d.root : d.name;
      const int64_t root_min = d.is_derived() ? d.root_min : d.min;
      const int64_t root_max = d.is_derived() ? d.root_max : d.max;
      if ((size - d.offset) % d.scale != 0) {
        EMBER_THROW(ConstraintViolationError, "[make_fx] Constraints violated (", d.name,
                    ")! Expected ", where, " = ", size, " to be of the form ", d.name, ", where ",
                    root, " is an integer");
      }
      const int64_t hint = (size - d.offset) / d.scale;
      if (hint < 2) {
        EMBER_THROW(ConstraintViolationError, "[make_fx] Constraints violated (", root,
                    ")! The example input ", i, " has size ", size, " in dim ", dim, ", so ", root,
                    " is ", hint, ", and sizes 0 and 1 specialise (as in PyTorch): a dynamic dim ",
                    "is traced from an example of size >= 2. Suggested fix: trace with an example ",
                    "whose ", root, " is at least 2");
      }
      auto it = roots.find(root);
      if (it == roots.end()) {
        SymInt s =
            env->symbol(root, std::max<int64_t>(root_min, 2), root_max, hint, where, root_min);
        it = roots.emplace(root, Root{root_min, root_max, std::move(s)}).first;
      } else {
        EMBER_CHECK_VALUE(it->second.min == root_min && it->second.max == root_max,
                          "[make_fx] two different dims are named '", root, "'");
        if (it->second.symbol.hint() != hint) {
          EMBER_THROW(ConstraintViolationError, "[make_fx] Constraints violated (", root, ")! ",
                      root, " is used for sizes ", it->second.symbol.hint(), " and ", hint,
                      " of the example inputs (", where, " = ", size, " is ", d.name,
                      "), but the same Dim means equal sizes. Suggested fix: use a separate Dim ",
                      "for ", where);
        }
      }
      result[i][dim] = d.scale * it->second.symbol + d.offset;
    }
  }
  // Note [Assumptions]: each relation becomes a fact e >= 0 (or e == 0) over the roots' symbols.
  for (const Assumption& a : spec.assumptions) {
    auto value = [&](const Dim& d) -> SymInt {
      if (d.value) return SymInt(*d.value);
      const std::string root = d.is_derived() ? d.root : d.name;
      auto it = roots.find(root);
      EMBER_CHECK_VALUE(it != roots.end(), "[make_fx] the assumption ", a.str(), " names ", root,
                        ", which no input's dynamic_shapes uses");
      return d.scale * it->second.symbol + d.offset;
    };
    const SymInt l = value(a.lhs), r = value(a.rhs);
    SymInt e;
    if (a.op == ">") {
      e = l - r - 1;
    } else if (a.op == ">=" || a.op == "==") {
      e = l - r;
    } else if (a.op == "<") {
      e = r - l - 1;
    } else if (a.op == "<=") {
      e = r - l;
    } else {
      EMBER_THROW(ValueError, "[make_fx] unknown relation '", a.op, "' in an assumption");
    }
    const bool equal = a.op == "==";
    const int64_t at_example = e.hint();
    if (equal ? at_example != 0 : at_example < 0) {
      std::vector<std::string> names;  // the roots the relation names, once each
      for (const Dim* d : {&a.lhs, &a.rhs}) {
        const std::string root = d->is_derived() ? d->root : d->name;
        if (!d->value && (names.empty() || names[0] != root)) names.push_back(root);
      }
      std::string dims, given;
      for (const std::string& name : names) {
        dims += (dims.empty() ? "" : ", ") + name;
        given += (given.empty() ? "" : ", ") + name + " = " +
                 std::to_string(roots.at(name).symbol.hint());
      }
      EMBER_THROW(ConstraintViolationError, "[make_fx] Constraints violated (", dims,
                  ")! The example inputs break the assumption ", a.str(), " (", given,
                  "). Suggested fix: trace with examples that satisfy it, or drop it from ",
                  "dynamic_shapes' assumptions");
    }
    env->assume(e, equal, a.str());
  }
  return result;
}

}  // namespace fx

}  // namespace ember
