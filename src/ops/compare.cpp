// Whole-tensor comparisons (equal, isclose, allclose) and ember::testing::assert_close.
#include "ember/ops/compare.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ember/testing.h"
#include "ops/binary.h"
#include "ops/promotion.h"
#include "ops/util.h"
#include "primitives/ternary.h"

namespace ember {

namespace {

// Whether every element of a bool tensor is true (reads the op's own contiguous output).
bool all_true(const Tensor& t) {
  Tensor c = t.contiguous();
  const bool* p = c.data_ptr<bool>();
  for (int64_t i = 0; i < c.numel(); ++i) {
    if (!p[i]) return false;
  }
  return true;
}

}  // namespace

bool equal(const Tensor& a, const Tensor& b) {
  ops::check_defined(a, "equal", "input");
  ops::check_defined(b, "equal", "other");
  if (a.sizes() != b.sizes()) return false;
  if (a.numel() == 0) return true;
  return all_true(ops::binary_op(BinaryOp::Eq, a, b, 1, "equal"));
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  ops::check_defined(a, "isclose", "input");
  ops::check_defined(b, "isclose", "other");
  EMBER_CHECK(a.dtype() == b.dtype(), "[isclose] ", scalar_type_name(a.dtype()), " did not match ",
              scalar_type_name(b.dtype()));
  ops::check_implemented(a.dtype(), "isclose");
  EMBER_CHECK(rtol >= 0, "[isclose] rtol must be greater than or equal to zero, but got ", rtol);
  EMBER_CHECK(atol >= 0, "[isclose] atol must be greater than or equal to zero, but got ", atol);
  ops::check_broadcastable(a, b, "isclose");  // SymInts: a dynamic dim stays symbolic
  return dispatch(IsClose(rtol, atol, equal_nan), {a, b})[0];
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return all_true(isclose(a, b, rtol, atol, equal_nan));
}

bool Tensor::equal(const Tensor& other) const { return ember::equal(*this, other); }
bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::allclose(*this, other, rtol, atol, equal_nan);
}
Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::isclose(*this, other, rtol, atol, equal_nan);
}

}  // namespace ember

namespace ember::testing {

namespace {

// Python's repr of a float: shortest round-trip digits, scientific below 1e-4 and from 1e16.
std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  const size_t e = s.find('e');
  std::string mant = s.substr(0, e);
  const int exp = std::stoi(s.substr(e + 1));
  const bool neg = mant[0] == '-';
  std::string digits;
  for (char c : mant) {
    if (c >= '0' && c <= '9') digits += c;
  }
  // Built with appends only: GCC 12 warns (-Wrestrict, a false positive) on "lit" + string.
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= 16) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    char eb[16];
    std::snprintf(eb, sizeof(eb), "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += eb;
  } else if (exp >= 0) {
    const size_t whole = static_cast<size_t>(exp) + 1;
    if (digits.size() <= whole) {
      out += digits;
      out.append(whole - digits.size(), '0');
      out += ".0";
    } else {
      out.append(digits, 0, whole);
      out += '.';
      out.append(digits, whole, std::string::npos);
    }
  } else {
    out += "0.";
    out.append(static_cast<size_t>(-exp - 1), '0');
    out += digits;
  }
  return out;
}

std::string py_number(double v, bool integral) {
  if (integral && std::isfinite(v)) {
    std::ostringstream ss;
    ss << static_cast<int64_t>(v);
    return ss.str();
  }
  return py_float(v);
}

std::string size_str(const std::vector<int64_t>& s) { return "torch.Size(" + shape_str(s) + ")"; }

std::string index_str(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string r = "(";
  for (size_t i = 0; i < idx.size(); ++i) {
    if (i) r += ", ";
    r += std::to_string(idx[i]);
  }
  r += idx.size() == 1 ? ",)" : ")";
  return r;
}

std::vector<double> as_doubles(const Tensor& t) {
  Tensor c = t.to(kFloat64, false, /*copy=*/true);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

std::vector<int64_t> as_longs(const Tensor& t) {
  Tensor c = t.to(kInt64, false, /*copy=*/true);
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

}  // namespace

std::pair<double, double> default_tolerances(ScalarType t) {
  switch (t) {
    case kFloat16:
      return {1e-3, 1e-5};
    case kBFloat16:
      return {1.6e-2, 1e-5};
    case kFloat32:
      return {1.3e-6, 1e-5};
    case kFloat64:
      return {1e-7, 1e-7};
    default:
      return {0.0, 0.0};
  }
}

void assert_close(const Tensor& actual, const Tensor& expected, std::optional<double> rtol,
                  std::optional<double> atol, bool equal_nan, bool check_dtype) {
  ops::check_defined(actual, "assert_close", "actual");
  ops::check_defined(expected, "assert_close", "expected");
  EMBER_CHECK_VALUE(rtol.has_value() == atol.has_value(),
                    "[assert_close] Both 'rtol' and 'atol' "
                    "must be either specified or omitted, but got no ",
                    rtol ? "atol" : "rtol", ".");
  EMBER_CHECK_T(AssertionError, actual.sizes() == expected.sizes(),
                "The values for attribute 'shape' do not match: ", size_str(actual.sizes()),
                " != ", size_str(expected.sizes()), ".");
  EMBER_CHECK_T(AssertionError, !check_dtype || actual.dtype() == expected.dtype(),
                "The values for attribute 'dtype' do not match: torch.", dtype_name(actual.dtype()),
                " != torch.", dtype_name(expected.dtype()), ".");
  if (!rtol) {
    auto [ra, aa] = default_tolerances(actual.dtype());
    auto [re, ae] = default_tolerances(expected.dtype());
    rtol = std::max(ra, re);
    atol = std::max(aa, ae);
  }
  const int64_t n = actual.numel();
  if (n == 0) return;
  const bool integral = !is_floating_point(promote_types(actual.dtype(), expected.dtype()));
  std::vector<double> a, e;
  std::vector<int64_t> la, le;
  if (integral) {
    la = as_longs(actual);
    le = as_longs(expected);
    a.assign(la.begin(), la.end());
    e.assign(le.begin(), le.end());
  } else {
    a = as_doubles(actual);
    e = as_doubles(expected);
  }
  // torch.max semantics for the greatest differences: the first NaN wins, else the first maximum.
  auto track = [](double v, int64_t i, bool first, double& best, int64_t& best_i) {
    if (!first && std::isnan(best)) return;
    if (first || std::isnan(v) || v > best) best = v, best_i = i;
  };
  int64_t mismatches = 0, abs_idx = 0, rel_idx = 0;
  double max_abs = 0, max_rel = 0;
  for (int64_t i = 0; i < n; ++i) {
    double diff;
    bool same;
    if (integral) {  // exact: int64 values may not survive a round trip through double
      same = la[i] == le[i];
      const uint64_t ua = static_cast<uint64_t>(la[i]), ue = static_cast<uint64_t>(le[i]);
      diff = static_cast<double>(la[i] > le[i] ? ua - ue : ue - ua);
    } else {
      same = a[i] == e[i];
      diff = std::abs(a[i] - e[i]);
    }
    const bool ok = same || (equal_nan && std::isnan(a[i]) && std::isnan(e[i])) ||
                    (std::isfinite(diff) && diff <= *atol + *rtol * std::abs(e[i]));
    if (ok) continue;
    const bool first = mismatches++ == 0;
    track(diff, i, first, max_abs, abs_idx);
    track(diff / std::abs(e[i]), i, first, max_rel, rel_idx);
  }
  if (mismatches == 0) return;
  const bool equality = *rtol == 0 && *atol == 0;
  std::ostringstream msg;
  const bool scalar = actual.dim() == 0;
  msg << (scalar ? "Scalars" : "Tensor-likes") << " are not " << (equality ? "equal" : "close")
      << "!\n\n";
  if (scalar) {
    msg << "Expected " << py_number(e[0], integral) << " but got " << py_number(a[0], integral)
        << ".\n";
  } else {
    char pct[32];
    std::snprintf(pct, sizeof(pct), "%.1f%%", 100.0 * static_cast<double>(mismatches) / n);
    msg << "Mismatched elements: " << mismatches << " / " << n << " (" << pct << ")\n";
  }
  auto line = [&](const char* type, double diff, int64_t idx, double tol) {
    if (scalar) {
      msg << (type[0] == 'a' ? "Absolute" : "Relative") << " difference: ";
    } else {
      msg << "Greatest " << type << " difference: ";
    }
    msg << py_number(diff, integral && type[0] == 'a');
    if (!scalar) msg << " at index " << index_str(idx, actual.sizes());
    if (!equality) msg << " (up to " << py_float(tol) << " allowed)";
  };
  line("absolute", max_abs, abs_idx, *atol);
  msg << "\n";
  line("relative", max_rel, rel_idx, *rtol);
  throw AssertionError(msg.str());
}

}  // namespace ember::testing
