#include "reduction/reduce_testing.h"

#include <cmath>
#include <limits>

namespace ember::test {

namespace {
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

double round_to(ScalarType t, double v) {
  switch (t) {
    case kFloat16:
      return static_cast<float>(Half(static_cast<float>(v)));
    case kBFloat16:
      return static_cast<float>(BFloat16(static_cast<float>(v)));
    case kFloat32:
      return static_cast<float>(v);
    default:
      return v;
  }
}

ReduceArgs reduce_args(const std::vector<Tensor>& inputs) {
  ReduceArgs a;
  for (double d : values(inputs.at(1))) a.dims.push_back(static_cast<int64_t>(d));
  auto flags = values(inputs.at(2));
  a.keepdim = flags.at(0) != 0;
  a.has_dims = flags.at(1) != 0;
  return a;
}

Sample reduce_sample(const Tensor& x, std::vector<int64_t> dims, bool keepdim, bool has_dims,
                     std::string desc) {
  std::vector<double> dv(dims.begin(), dims.end());
  Tensor dt = from_values({static_cast<int64_t>(dv.size())}, dv, kInt64);
  Tensor flags = from_values({2}, {keepdim ? 1.0 : 0.0, has_dims ? 1.0 : 0.0}, kInt64);
  std::string d = desc + " dims=[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) d += ",";
    d += std::to_string(dims[i]);
  }
  d += std::string("]") + (keepdim ? " keepdim" : "") + (has_dims ? "" : " (no dim arg)");
  return {{x, dt, flags}, d};
}

std::vector<Sample> reduce_samples(ScalarType dt, const ReduceSampleOptions& o) {
  std::vector<Sample> s;
  auto mk = [&](std::vector<int64_t> shape, uint64_t seed) {
    return make_tensor(shape, dt, o.low, o.high, seed);
  };
  auto add = [&](const Tensor& x, std::vector<int64_t> dims, bool keepdim, const char* desc) {
    if (!o.multi_dims && dims.size() > 1) return;
    s.push_back(reduce_sample(x, dims, keepdim && o.keepdim, true, desc));
  };
  auto add_all = [&](const Tensor& x, const char* desc) {
    if (o.no_dim) s.push_back(reduce_sample(x, {}, false, false, desc));
  };
  Tensor x0 = mk({}, 1), x1 = mk({7}, 2), xs = mk({2, 1, 5}, 4);
  Tensor x3 = o.small ? mk({2, 3, 4}, 3) : mk({3, 4, 5}, 3);
  add_all(x0, "0-d");
  add(x0, {0}, true, "0-d");
  add(x0, {-1}, false, "0-d");
  add_all(x1, "1-d");
  add(x1, {0}, true, "1-d");
  add(x1, {-1}, false, "1-d");
  add(x3, {1}, false, "3-d");
  add(x3, {-1}, true, "3-d");
  add(x3, {0}, false, "3-d");
  add(x3, {0, 2}, false, "3-d");
  add(x3, {-1, 0}, true, "3-d");
  add(x3, {0, 1, 2}, false, "3-d");
  add(xs, {1}, false, "3-d-single-dim");
  add(xs, {0, 1}, true, "3-d-single-dim");
  if (!o.small) {
    Tensor big = mk({40, 37}, 5);
    add(big, {1}, false, "2-d-large");
    add(big, {0}, false, "2-d-large");
    add_all(big, "2-d-large");
  }
  Tensor nc = make_noncontiguous(mk({4, 6}, 6));
  add(nc, {0}, false, "non-contiguous");
  add(nc, {1}, true, "non-contiguous");
  add_all(nc, "non-contiguous");
  Tensor nc3 = make_noncontiguous(mk({3, 2, 6}, 7));
  add(nc3, {0, 2}, false, "non-contiguous-3d");
  Tensor ex = make_expanded(mk({1, 4}, 8), {5, 4});
  add(ex, {0}, false, "expanded");
  add(ex, {1}, true, "expanded");
  add_all(ex, "expanded");
  // Empty: reducing a non-empty dim of an empty tensor is always allowed.
  add(mk({0, 3}, 9), {1}, false, "empty-kept");
  add(mk({2, 0, 3}, 9), {2}, true, "empty-kept");
  if (o.empty_reduce) {
    add(mk({0, 3}, 9), {0}, false, "empty-reduced");
    add(mk({2, 0, 3}, 9), {1}, true, "empty-reduced");
    add(mk({2, 0, 3}, 9), {0, 1}, false, "empty-reduced");
    add_all(mk({0, 3}, 9), "empty");
  }
  if (o.large && !o.small) {
    add_all(mk({70000}, 10), "long");
    add(mk({50000, 8}, 11), {0}, false, "long-vertical");
    add(mk({3, 30000}, 12), {1}, false, "long-rows");
    add(mk({2, 20000, 3}, 13), {1}, true, "long-strided");
  }
  if (o.nan_inf && is_floating_point(dt)) {
    Tensor sp = from_values({4, 5}, {1,     kNan, 3,     -2,   0.5,  // NaN
                                     kInf,  2,    -1,    4,    0,    // +inf
                                     -kInf, kInf, 1,     2,    3,    // both infinities
                                     -kInf, -1,   -kInf, 0.25, 2},   // -inf twice
                            dt);
    add(sp, {1}, false, "nan-inf");
    add(sp, {0}, true, "nan-inf");
    add_all(sp, "nan-inf");
    Tensor nan2 = from_values({2, 4}, {kNan, 1, kNan, 2, 3, 3, -kInf, 3}, dt);
    add(nan2, {1}, false, "nan-ties");
  }
  return s;
}

std::vector<Sample> reduce_grad_samples(ReduceSampleOptions opts) {
  opts.small = true;
  opts.nan_inf = false;
  std::vector<Sample> samples = reduce_samples(kFloat64, opts);
  for (Sample& s : samples) {
    const ReduceArgs a = reduce_args(s.inputs);
    if (s.inputs[0].numel() == 0) continue;
    const Groups g = group_by_output(s.inputs[0], a.has_dims ? a.dims : std::vector<int64_t>{},
                                     a.has_dims && a.keepdim);
    const auto n = static_cast<int64_t>(g.groups.at(0).size());
    if (n < opts.gradcheck_min_group) {
      s.no_gradcheck = "reduces " + std::to_string(n) +
                       " element(s), fewer than the correction needs: the result is inf/NaN";
    }
  }
  return samples;
}

Groups group_by_output(const Tensor& x, const std::vector<int64_t>& dims_in, bool keepdim) {
  const int64_t nd = x.dim();
  std::vector<bool> red(std::max<int64_t>(nd, 1), dims_in.empty());
  for (int64_t d : dims_in) red[d < 0 ? d + std::max<int64_t>(nd, 1) : d] = true;
  Groups g;
  std::vector<int64_t> kept;  // input dims that survive
  for (int64_t d = 0; d < nd; ++d) {
    if (!red[d]) {
      g.shape.push_back(x.sizes()[d]);
      kept.push_back(d);
    } else if (keepdim) {
      g.shape.push_back(1);
    }
  }
  int64_t nout = 1;
  for (int64_t d : kept) nout *= x.sizes()[d];
  g.groups.assign(nout, {});
  const auto v = values(x);
  std::vector<int64_t> idx(nd, 0);
  for (double e : v) {
    int64_t o = 0;
    for (int64_t d : kept) o = o * x.sizes()[d] + idx[d];
    g.groups[o].push_back(e);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < x.sizes()[d]) break;
      idx[d] = 0;
    }
  }
  return g;
}

OpInfo reduction_op(std::string name, std::vector<ScalarType> dtypes, ReduceSampleOptions opts,
                    std::function<Tensor(const Tensor&, const ReduceArgs&)> call,
                    std::function<double(const std::vector<double>&)> ref,
                    std::function<ScalarType(ScalarType)> out_dtype,
                    std::vector<ScalarType> rejected, double tol_scale) {
  OpInfo info;
  info.name = std::move(name);
  info.dtypes = std::move(dtypes);
  info.samples = [opts](ScalarType dt) { return reduce_samples(dt, opts); };
  info.grad_samples = [opts] { return reduce_grad_samples(opts); };
  info.op = [call](const std::vector<Tensor>& in) { return call(in[0], reduce_args(in)); };
  info.arg_inputs = {1, 2};
  info.reference = [ref, out_dtype](const std::vector<Tensor>& in) {
    ReduceArgs a = reduce_args(in);
    Groups g = group_by_output(in[0], a.has_dims ? a.dims : std::vector<int64_t>{},
                               a.has_dims && a.keepdim);
    Reference r{g.shape, {}, out_dtype(in[0].dtype())};
    for (const auto& grp : g.groups) r.values.push_back(round_to(r.dtype, ref(grp)));
    return r;
  };
  info.tol_scale = tol_scale;
  info.rejected_dtypes = std::move(rejected);
  info.not_differentiable = nondifferentiable_reason(info.dtypes, out_dtype(kFloat64));
  return info;
}

int64_t scan_dim(const std::vector<Tensor>& inputs) {
  return static_cast<int64_t>(values(inputs.at(1)).at(0));
}

std::vector<Sample> scan_samples(ScalarType dt, double low, double high, bool nan_inf, bool small) {
  std::vector<Sample> s;
  auto mk = [&](std::vector<int64_t> shape, uint64_t seed) {
    return make_tensor(shape, dt, low, high, seed);
  };
  auto add = [&](const Tensor& x, int64_t dim, const std::string& desc) {
    s.push_back({{x, from_values({}, {static_cast<double>(dim)}, kInt64)},
                 desc + " dim=" + std::to_string(dim)});
  };
  add(mk({}, 1), 0, "0-d");
  add(mk({}, 1), -1, "0-d");
  add(mk({9}, 2), 0, "1-d");
  const std::vector<int64_t> s3 =
      small ? std::vector<int64_t>{2, 3, 4} : std::vector<int64_t>{3, 4, 5};
  add(mk(s3, 3), 1, "3-d");
  add(mk(s3, 3), -1, "3-d");
  add(mk(s3, 3), 0, "3-d");
  add(mk({2, 1, 5}, 4), 1, "3-d-single-dim");
  if (!small) {
    add(mk({40, 37}, 5), 0, "2-d-large");
    add(mk({40, 37}, 5), 1, "2-d-large");
  }
  add(make_noncontiguous(mk({4, 6}, 6)), 1, "non-contiguous");
  add(make_noncontiguous(mk({4, 6}, 6)), 0, "non-contiguous");
  add(make_expanded(mk({1, 4}, 7), {5, 4}), 0, "expanded");
  add(make_expanded(mk({1, 4}, 7), {5, 4}), 1, "expanded");
  add(mk({0, 3}, 8), 0, "empty");
  add(mk({0, 3}, 8), 1, "empty");
  if (small) return s;
  add(mk({3000, 12}, 9), 0, "long-vertical");
  if (nan_inf && is_floating_point(dt)) {
    Tensor sp = from_values(
        {3, 6},
        {1, kNan, 3, -2, kNan, 0.5, kInf, 2, kInf, 4, -kInf, 0, -kInf, -kInf, 1, 2, kInf, 3}, dt);
    add(sp, 1, "nan-inf");
    add(sp, 0, "nan-inf");
  }
  return s;
}

std::vector<double> scan_reference(
    const Tensor& x, int64_t dim,
    const std::function<std::vector<double>(const std::vector<double>&)>& line) {
  const auto v = values(x);
  const int64_t nd = x.dim();
  if (nd == 0) return line(v);
  dim = dim < 0 ? dim + nd : dim;
  int64_t len = x.sizes()[dim], inner = 1, outer = 1;
  for (int64_t d = dim + 1; d < nd; ++d) inner *= x.sizes()[d];
  for (int64_t d = 0; d < dim; ++d) outer *= x.sizes()[d];
  std::vector<double> out(v.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<double> l;
      for (int64_t k = 0; k < len; ++k) l.push_back(v[(o * len + k) * inner + i]);
      auto r = line(l);
      for (int64_t k = 0; k < len; ++k) out[(o * len + k) * inner + i] = r[k];
    }
  }
  return out;
}

bool any_nan(const std::vector<double>& v) {
  for (double e : v) {
    if (std::isnan(e)) return true;
  }
  return false;
}

int64_t arg_extreme(const std::vector<double>& v, bool max) {
  int64_t best = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[i])) return static_cast<int64_t>(i);
    if (max ? v[i] > v[best] : v[i] < v[best]) best = static_cast<int64_t>(i);
  }
  return best;
}

double int_product(const std::vector<double>& v) {
  uint64_t p = 1;
  for (double e : v) p *= static_cast<uint64_t>(static_cast<int64_t>(e));
  return static_cast<double>(static_cast<int64_t>(p));
}

ScalarType int_to_long(ScalarType t) { return is_integral(t, true) ? kInt64 : t; }

}  // namespace ember::test
