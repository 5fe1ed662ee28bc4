#pragma once
// Loop references for the matrix-product tests: every product is written as an einsum equation
// and evaluated by brute force over all label values, in double (floats) or exact wrapping
// integers. Independent of Ember's kernels: inputs are read through test::values.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "opdb.h"

namespace ember::test {

/// v converted to dtype `dt` the way C++ integer conversion wraps (two's complement), as double.
inline double wrap_to(ScalarType dt, uint64_t v) {
  switch (dt) {
    case kUInt8:
      return static_cast<uint8_t>(v);
    case kInt8:
      return static_cast<int8_t>(v);
    case kInt16:
      return static_cast<int16_t>(v);
    case kInt32:
      return static_cast<int32_t>(v);
    case kInt64:
      return static_cast<double>(static_cast<int64_t>(v));
    default:
      return static_cast<double>(v);
  }
}

struct EinsumTerm {
  std::vector<std::string> inputs;
  std::string output;
};

inline EinsumTerm parse_terms(const std::string& eq) {
  EinsumTerm t;
  auto arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow), cur;
  for (char c : lhs) {
    if (c == ',') {
      t.inputs.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  t.inputs.push_back(cur);
  t.output = eq.substr(arrow + 2);
  return t;
}

/// Evaluates an explicit einsum equation (letters only, "->" required). A size-1 operand dim
/// broadcasts against the other operands' size for that letter. Integer dtypes (and bool, with
/// `count_bool`) accumulate exactly with wraparound to `out_dtype`; bool as logical or/and.
/// `alpha`/`beta`/`self` give beta * self + alpha * sum (self broadcast to the output).
struct EinsumRef {
  std::string eq;
  ScalarType out_dtype;
  double alpha = 1, beta = 0;
  const Tensor* self = nullptr;

  Reference operator()(const std::vector<Tensor>& ops) const {
    EinsumTerm terms = parse_terms(eq);
    std::map<char, int64_t> size;
    std::string letters;
    for (size_t i = 0; i < terms.inputs.size(); ++i) {
      for (size_t d = 0; d < terms.inputs[i].size(); ++d) {
        char c = terms.inputs[i][d];
        int64_t s = ops[i].sizes()[d];
        if (!size.count(c)) {
          letters += c;
          size[c] = s;
        } else if (size[c] == 1) {
          size[c] = s;
        }
      }
    }
    std::vector<std::vector<double>> vals;
    for (const auto& t : ops) vals.push_back(values(t));
    Reference ref;
    ref.dtype = out_dtype;
    for (char c : terms.output) ref.shape.push_back(size.at(c));
    int64_t out_numel = 1;
    for (auto s : ref.shape) out_numel *= s;
    const bool integral = is_integral(out_dtype, /*include_bool=*/true);
    std::vector<double> acc(out_numel, 0);
    std::vector<uint64_t> iacc(out_numel, 0);
    std::map<char, int64_t> idx;
    for (char c : letters) idx[c] = 0;
    int64_t total = 1;
    for (char c : letters) total *= size[c];
    for (int64_t it = 0; it < total; ++it) {
      int64_t rem = it;
      for (int64_t l = static_cast<int64_t>(letters.size()) - 1; l >= 0; --l) {
        idx[letters[l]] = rem % size[letters[l]];
        rem /= size[letters[l]];
      }
      double prod = 1;
      uint64_t iprod = 1;
      for (size_t i = 0; i < ops.size(); ++i) {
        int64_t flat = 0;
        for (size_t d = 0; d < terms.inputs[i].size(); ++d) {
          int64_t s = ops[i].sizes()[d];
          flat = flat * s + (s == 1 ? 0 : idx[terms.inputs[i][d]]);
        }
        double v = vals[i][flat];
        if (integral) {
          iprod *= static_cast<uint64_t>(static_cast<int64_t>(v));
        } else {
          prod *= v;
        }
      }
      int64_t oflat = 0;
      for (char c : terms.output) oflat = oflat * size[c] + idx[c];
      if (out_dtype == kBool) {
        iacc[oflat] |= iprod != 0;
      } else {
        acc[oflat] += prod;
        iacc[oflat] += iprod;
      }
    }
    std::vector<double> selfv;
    if (self) {
      // Broadcast self to the output shape (right-aligned, size-1 dims repeat).
      auto sv = values(*self);
      const auto& ss = self->sizes();
      selfv.resize(out_numel);
      for (int64_t o = 0; o < out_numel; ++o) {
        int64_t rem = o, sflat = 0, mul = 1;
        for (int64_t d = static_cast<int64_t>(ref.shape.size()) - 1; d >= 0; --d) {
          int64_t i = rem % ref.shape[d];
          rem /= ref.shape[d];
          int64_t sd = d - (static_cast<int64_t>(ref.shape.size()) - self->dim());
          if (sd >= 0) {
            if (ss[sd] != 1) sflat += i * mul;
            mul *= ss[sd];
          }
        }
        selfv[o] = sv[sflat];
      }
    }
    for (int64_t o = 0; o < out_numel; ++o) {
      if (integral && out_dtype != kBool) {
        uint64_t r = static_cast<uint64_t>(static_cast<int64_t>(alpha)) * iacc[o];
        if (self && beta != 0) {
          r += static_cast<uint64_t>(static_cast<int64_t>(beta)) *
               static_cast<uint64_t>(static_cast<int64_t>(selfv[o]));
        }
        ref.values.push_back(wrap_to(out_dtype, r));
      } else if (out_dtype == kBool) {
        ref.values.push_back(iacc[o] ? 1 : 0);
      } else {
        double r = alpha * acc[o];
        if (self && beta != 0) r += beta * selfv[o];
        ref.values.push_back(r);
      }
    }
    return ref;
  }
};

/// The einsum equation of torch.matmul for operands of rank da and db (batch dims broadcast,
/// right-aligned; 1-D operands lose their dim in the output).
inline std::string matmul_equation(int64_t da, int64_t db) {
  const int64_t ba = std::max<int64_t>(da - 2, 0), bb = std::max<int64_t>(db - 2, 0);
  const int64_t nb = std::max(ba, bb);
  std::string batch;
  for (int64_t i = 0; i < nb; ++i) batch += static_cast<char>('A' + i);
  std::string a = da == 1 ? "k" : batch.substr(nb - ba) + "nk";
  std::string b = db == 1 ? "k" : batch.substr(nb - bb) + "kp";
  std::string out = batch + (da > 1 ? "n" : "") + (db > 1 ? "p" : "");
  return a + "," + b + "->" + out;
}

}  // namespace ember::test
