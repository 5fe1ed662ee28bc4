// Op database entries for the shape ops that move data (cat, stack, split family, unflatten,
// repeat, tile, flip, roll, diag, tril/triu, view(dtype), index, index_put_, broadcast_tensors),
// references by plain index arithmetic on test::values.
#include <gtest/gtest.h>

#include <optional>

#include "dispatch/dispatch.h"
#include "ember/ember.h"
#include "opdb.h"
#include "shape/shape_util.h"

using namespace ember;
using namespace ember::test;

namespace {

Tensor mk(const std::vector<int64_t>& shape, ScalarType dt, uint64_t seed = 1) {
  return make_tensor(shape, dt, -9, 9, seed);
}

// Single-input samples whose rank is at least `min_dim`: contiguous, empty, non-contiguous,
// permuted, sliced (non-zero storage offset) and expanded (stride 0) inputs.
std::vector<Sample> nd_samples(ScalarType dt, int min_dim, bool with_0d = false) {
  std::vector<Sample> s;
  if (with_0d) s.push_back({{mk({}, dt)}, "0-d"});
  if (min_dim <= 1) {
    s.push_back({{mk({7}, dt)}, "1-d"});
    s.push_back({{mk({0}, dt)}, "empty-1d"});
    s.push_back({{make_noncontiguous(mk({5}, dt))}, "non-contiguous-1d"});
  }
  if (min_dim <= 2) {
    s.push_back({{mk({3, 5}, dt)}, "2-d"});
    s.push_back({{mk({5, 3}, dt, 2)}, "2-d-tall"});
    s.push_back({{mk({0, 4}, dt)}, "empty-2d"});
    s.push_back({{make_noncontiguous(mk({4, 6}, dt))}, "non-contiguous-2d"});
    s.push_back({{make_expanded(mk({1, 5}, dt), {3, 5})}, "expanded-2d"});
    s.push_back({{mk({6, 4}, dt, 3).narrow(0, 2, 3)}, "offset-2d"});
  }
  s.push_back({{mk({2, 3, 4}, dt)}, "3-d"});
  s.push_back({{mk({2, 0, 3}, dt)}, "empty-3d"});
  s.push_back({{make_noncontiguous(mk({2, 3, 4}, dt))}, "non-contiguous-3d"});
  s.push_back({{mk({3, 4, 2}, dt, 4).permute({2, 0, 1})}, "permuted-3d"});
  s.push_back({{make_expanded(mk({2, 1, 4}, dt), {2, 3, 4})}, "expanded-3d"});
  return s;
}

std::vector<Sample> keep_if(std::vector<Sample> s, const std::function<bool(const Tensor&)>& pred) {
  s.erase(std::remove_if(s.begin(), s.end(), [&](const Sample& x) { return !pred(x.inputs[0]); }),
          s.end());
  return s;
}
std::vector<Sample> with_dim(std::vector<Sample> s, int64_t dim) {
  return keep_if(std::move(s), [dim](const Tensor& t) { return t.dim() == dim; });
}
// Index tensors into dim 1 need that dim to be non-empty (an index into a size-0 dim is an error).
std::vector<Sample> nonempty_dim1(std::vector<Sample> s) {
  return keep_if(std::move(s), [](const Tensor& t) { return t.size(1) > 0; });
}

ScalarType partner(ScalarType dt) { return dt == kFloat64 ? kInt8 : kFloat64; }

// ---- cat / stack

Reference cat_ref(const std::vector<Tensor>& in, int64_t dim) {
  ScalarType dt = in[0].dtype();
  for (const auto& t : in) dt = promote_types(dt, t.dtype());
  std::vector<Tensor> kept;
  for (const auto& t : in) {
    if (!(t.dim() == 1 && t.size(0) == 0)) kept.push_back(t);
  }
  if (kept.empty()) return {{0}, {}, dt};
  const int64_t d = dim < 0 ? dim + kept[0].dim() : dim;
  std::vector<int64_t> shape = kept[0].sizes();
  shape[d] = 0;
  for (const auto& t : kept) shape[d] += t.size(d);
  std::vector<Nd> nds;
  for (const auto& t : kept) nds.emplace_back(t);
  return generate(shape, dt, [&](const Coord& c) {
    Coord src = c;
    for (const auto& nd : nds) {
      if (src[d] < nd.shape[d]) return nd.at(src);
      src[d] -= nd.shape[d];
    }
    return 0.0;
  });
}

std::vector<Sample> cat_samples(ScalarType dt, int64_t dim) {
  // Shapes agree except along `dim` (0 or the last of two dims).
  auto shp = [&](int64_t n, int64_t other) {
    return dim == 0 ? std::vector<int64_t>{n, other} : std::vector<int64_t>{other, n};
  };
  std::vector<Sample> s;
  s.push_back({{mk(shp(2, 3), dt, 1), mk(shp(4, 3), dt, 2)}, "two"});
  s.push_back(
      {{mk(shp(1, 4), dt, 1), make_noncontiguous(mk(shp(3, 4), dt, 2)),
        make_expanded(mk(dim == 0 ? std::vector<int64_t>{1, 4} : std::vector<int64_t>{4, 1}, dt, 3),
                      shp(2, 4))},
       "non-contiguous+expanded"});
  s.push_back({{mk(shp(2, 3), dt, 1), mk({0}, dt, 2), mk(shp(0, 3), dt, 3), mk(shp(1, 3), dt, 4)},
               "legacy-empty-1d-skipped"});
  s.push_back({{mk({0}, dt, 1), mk({0}, dt, 2)}, "all-empty-1d"});
  s.push_back({{mk({5}, dt, 1), mk({2}, dt, 2)}, "1-d"});
  s.push_back({{mk(shp(2, 3), dt, 1), mk(shp(1, 3), partner(dt), 2), mk(shp(2, 3), kBool, 3)},
               "mixed-dtypes"});
  s.push_back({{mk(shp(3, 2), dt, 1)}, "single"});
  return s;
}

Reference stack_ref(const std::vector<Tensor>& in, int64_t dim) {
  ScalarType dt = in[0].dtype();
  for (const auto& t : in) dt = promote_types(dt, t.dtype());
  const int64_t nd = in[0].dim() + 1;
  const int64_t d = dim < 0 ? dim + nd : dim;
  std::vector<int64_t> shape = in[0].sizes();
  shape.insert(shape.begin() + d, static_cast<int64_t>(in.size()));
  std::vector<Nd> nds;
  for (const auto& t : in) nds.emplace_back(t);
  return generate(shape, dt, [&](const Coord& c) {
    Coord src = c;
    src.erase(src.begin() + d);
    return nds[c[d]].at(src);
  });
}

std::vector<Sample> stack_samples(ScalarType dt) {
  return {
      {{mk({}, dt, 1), mk({}, dt, 2), mk({}, dt, 3)}, "0-d"},
      {{mk({3, 4}, dt, 1), make_noncontiguous(mk({3, 4}, dt, 2)),
        make_expanded(mk({1, 4}, dt, 3), {3, 4})},
       "non-contiguous+expanded"},
      {{mk({0, 2}, dt, 1), mk({0, 2}, dt, 2)}, "empty"},
      {{mk({2, 3}, dt, 1), mk({2, 3}, partner(dt), 2)}, "mixed-dtypes"},
  };
}

// ---- split family: results are packed into one float64 tensor
// [count, (ndim, sizes..., values...) per piece] after checking dtype and aliasing.

Tensor pack(const std::vector<Tensor>& pieces, const Tensor& input) {
  std::vector<double> v{static_cast<double>(pieces.size())};
  for (const auto& p : pieces) {
    if (p.dtype() != input.dtype()) throw std::runtime_error("piece dtype differs from input");
    if (!p.is_alias_of(input)) throw std::runtime_error("piece is not a view of the input");
    v.push_back(static_cast<double>(p.dim()));
    for (auto s : p.sizes()) v.push_back(static_cast<double>(s));
    if (p.device().is_meta()) {  // no values: only the packed length (Note [Meta device])
      v.resize(v.size() + static_cast<size_t>(p.numel()));
      continue;
    }
    auto pv = values(p);
    v.insert(v.end(), pv.begin(), pv.end());
  }
  if (input.device().is_meta()) {
    return empty({static_cast<int64_t>(v.size())}, TensorOptions(kFloat64).device(kMeta));
  }
  return from_values({static_cast<int64_t>(v.size())}, v, kFloat64);
}

// An entry for an op that returns several views (chunk, split, unbind): `op` packs the pieces
// with raw reads (checking that they alias the input); `grad_op` joins them with cat, which
// keeps the gradient path.
OpInfo pieces_entry(std::string name, std::function<std::vector<Sample>(ScalarType)> samples,
                    std::function<std::vector<Tensor>(const Tensor&)> pieces,
                    std::function<Reference(const std::vector<Tensor>&)> ref) {
  OpInfo info{std::move(name), all_dtypes(), std::move(samples),
              [pieces](const std::vector<Tensor>& in) { return pack(pieces(in[0]), in[0]); },
              std::move(ref)};
  info.grad_op = [pieces](const std::vector<Tensor>& in) {
    std::vector<Tensor> flat{zeros({0}, TensorOptions().dtype(in[0].dtype()))};
    for (const Tensor& p : pieces(in[0])) flat.push_back(p.reshape({-1}));
    return cat(flat);
  };
  return info;
}

// Pieces of x along dim d with the given lengths, packed like pack().
Reference pack_ref(const Tensor& x, int64_t dim, const std::vector<int64_t>& lengths,
                   bool keep_dim = true) {
  const Nd nd(x);
  const int64_t d = dim < 0 ? dim + x.dim() : dim;
  std::vector<double> v{static_cast<double>(lengths.size())};
  int64_t start = 0;
  for (int64_t len : lengths) {
    std::vector<int64_t> shape = x.sizes();
    shape[d] = len;
    if (!keep_dim) shape.erase(shape.begin() + d);
    v.push_back(static_cast<double>(shape.size()));
    for (auto s : shape) v.push_back(static_cast<double>(s));
    for_each_index(shape, [&](const Coord& c) {
      Coord src = c;
      if (!keep_dim) src.insert(src.begin() + d, 0);
      src[d] += start;
      v.push_back(nd.at(src));
    });
    start += len;
  }
  return {{static_cast<int64_t>(v.size())}, v, kFloat64};
}

std::vector<int64_t> chunk_lengths(int64_t size, int64_t chunks) {
  if (size == 0) return std::vector<int64_t>(chunks, 0);
  const int64_t each = (size + chunks - 1) / chunks;
  std::vector<int64_t> r;
  for (int64_t start = 0; start < size; start += each) r.push_back(std::min(each, size - start));
  return r;
}

std::vector<int64_t> split_lengths(int64_t size, int64_t each) {
  if (size == 0) return {0};
  std::vector<int64_t> r;
  for (int64_t start = 0; start < size; start += each) r.push_back(std::min(each, size - start));
  return r;
}

// ---- the database

std::vector<OpInfo> shape_ops() {
  std::vector<OpInfo> ops;
  const auto& all = all_dtypes();
  for (int64_t dim : {0, -1}) {
    ops.push_back({"cat_dim" + std::to_string(dim), all,
                   [dim](ScalarType dt) { return cat_samples(dt, dim); },
                   [dim](const std::vector<Tensor>& in) { return cat(in, dim); },
                   [dim](const std::vector<Tensor>& in) { return cat_ref(in, dim); }});
  }
  ops.push_back({"concat", all, [](ScalarType dt) { return cat_samples(dt, 0); },
                 [](const std::vector<Tensor>& in) { return concat(in); },
                 [](const std::vector<Tensor>& in) { return cat_ref(in, 0); }});
  for (int64_t dim : {0, 1, -1}) {
    ops.push_back({"stack_dim" + std::to_string(dim), all,
                   [dim](ScalarType dt) {
                     auto s = stack_samples(dt);
                     if (dim == 1) s.erase(s.begin());  // 0-d inputs only allow dims 0 and -1
                     return s;
                   },
                   [dim](const std::vector<Tensor>& in) { return stack(in, dim); },
                   [dim](const std::vector<Tensor>& in) { return stack_ref(in, dim); }});
  }
  ops.push_back(pieces_entry(
      "chunk_3_dim1", [](ScalarType dt) { return nd_samples(dt, 2); },
      [](const Tensor& x) { return x.chunk(3, 1); },
      [](const std::vector<Tensor>& in) {
        return pack_ref(in[0], 1, chunk_lengths(in[0].size(1), 3));
      }));
  ops.push_back(pieces_entry(
      "chunk_2_dim0", [](ScalarType dt) { return nd_samples(dt, 1); },
      [](const Tensor& x) { return chunk(x, 2); },
      [](const std::vector<Tensor>& in) {
        return pack_ref(in[0], 0, chunk_lengths(in[0].size(0), 2));
      }));
  ops.push_back(pieces_entry(
      "split_2_dim-1", [](ScalarType dt) { return nd_samples(dt, 1); },
      [](const Tensor& x) { return x.split(2, -1); },
      [](const std::vector<Tensor>& in) {
        return pack_ref(in[0], -1, split_lengths(in[0].size(-1), 2));
      }));
  ops.push_back(pieces_entry(
      "split_with_sizes_dim-2",
      [](ScalarType dt) {
        return std::vector<Sample>{{{mk({3, 5}, dt)}, "2-d"},
                                   {{make_noncontiguous(mk({3, 4}, dt))}, "non-contiguous"},
                                   {{make_expanded(mk({3, 1}, dt), {3, 4})}, "expanded"},
                                   {{mk({2, 3, 0}, dt)}, "empty"}};
      },
      [](const Tensor& x) {
        return x.split_with_sizes({1, 0, 2}, -2);
      },
      [](const std::vector<Tensor>& in) {
        return pack_ref(in[0], -2, {1, 0, 2});
      }));
  ops.push_back(pieces_entry(
      "split_sizes_list",
      [](ScalarType dt) {
        return std::vector<Sample>{{{mk({5, 2}, dt)}, "2-d"}};
      },
      [](const Tensor& x) {
        return split(x, {3, 2});
      },
      [](const std::vector<Tensor>& in) {
        return pack_ref(in[0], 0, {3, 2});
      }));
  ops.push_back(pieces_entry(
      "unbind_dim1", [](ScalarType dt) { return nd_samples(dt, 2); },
      [](const Tensor& x) { return x.unbind(1); },
      [](const std::vector<Tensor>& in) {
        return pack_ref(in[0], 1, std::vector<int64_t>(in[0].size(1), 1), false);
      }));
  ops.push_back(pieces_entry(
      "unbind_dim-1", [](ScalarType dt) { return nd_samples(dt, 1); },
      [](const Tensor& x) { return unbind(x, -1); },
      [](const std::vector<Tensor>& in) {
        return pack_ref(in[0], -1, std::vector<int64_t>(in[0].size(-1), 1), false);
      }));
  ops.push_back({"unflatten_dim-1", all,
                 [](ScalarType dt) {
                   return std::vector<Sample>{
                       {{mk({3, 6}, dt)}, "2-d"},
                       {{mk({0, 4}, dt)}, "empty"},
                       {{make_noncontiguous(mk({2, 6}, dt))}, "non-contiguous"},
                       {{make_expanded(mk({1, 4}, dt), {3, 4})}, "expanded"},
                       {{mk({2, 2, 8}, dt)}, "3-d"}};
                 },
                 [](const std::vector<Tensor>& in) {
                   return in[0].unflatten(-1, {2, -1});
                 },
                 [](const std::vector<Tensor>& in) {
                   auto shape = in[0].sizes();
                   const int64_t n = shape.back();
                   shape.back() = 2;
                   shape.push_back(n / 2);
                   return Reference{shape, values(in[0]), in[0].dtype()};
                 }});
  // repeat / tile
  auto repeat_ref = [](const Tensor& x, std::vector<int64_t> reps) {
    const Nd nd(x);
    const int64_t pad = static_cast<int64_t>(reps.size()) - x.dim();
    std::vector<int64_t> shape(reps.size());
    for (size_t i = 0; i < reps.size(); ++i) {
      shape[i] = reps[i] * (static_cast<int64_t>(i) < pad ? 1 : x.size(i - pad));
    }
    return generate(shape, x.dtype(), [&](const Coord& c) {
      Coord src;
      for (int64_t d = pad; d < static_cast<int64_t>(c.size()); ++d) {
        src.push_back(c[d] % x.size(d - pad));
      }
      return nd.at(src);
    });
  };
  ops.push_back({"repeat_2_1_3", all,
                 [](ScalarType dt) {
                   auto s = nd_samples(dt, 1, /*with_0d=*/true);
                   std::vector<Sample> r;
                   for (auto& smp : s) {
                     if (smp.inputs[0].dim() <= 3) r.push_back(smp);
                   }
                   return r;
                 },
                 [](const std::vector<Tensor>& in) {
                   return in[0].repeat({2, 1, 3});
                 },
                 [repeat_ref](const std::vector<Tensor>& in) {
                   return repeat_ref(in[0], {2, 1, 3});
                 }});
  ops.push_back({"repeat_zero", all, [](ScalarType dt) { return nd_samples(dt, 2); },
                 [](const std::vector<Tensor>& in) {
                   return repeat(in[0], {1, 0, 2, 1});
                 },
                 [repeat_ref](const std::vector<Tensor>& in) {
                   return repeat_ref(in[0], {1, 0, 2, 1});
                 }});
  ops.push_back({"tile_2_3", all, [](ScalarType dt) { return nd_samples(dt, 1, true); },
                 [](const std::vector<Tensor>& in) {
                   return tile(in[0], {2, 3});
                 },
                 [repeat_ref](const std::vector<Tensor>& in) {
                   std::vector<int64_t> reps = {2, 3};
                   while (static_cast<int64_t>(reps.size()) < in[0].dim())
                     reps.insert(reps.begin(), 1);
                   return repeat_ref(in[0], reps);
                 }});
  // flip
  auto flip_ref = [](const Tensor& x, std::vector<int64_t> dims) {
    const Nd nd(x);
    for (auto& d : dims) d = d < 0 ? d + std::max<int64_t>(x.dim(), 1) : d;
    return generate(x.sizes(), x.dtype(), [&](const Coord& c) {
      Coord src = c;
      for (int64_t d : dims) {
        if (x.dim() > 0) src[d] = x.size(d) - 1 - c[d];
      }
      return nd.at(src);
    });
  };
  ops.push_back({"flip_0", all, [](ScalarType dt) { return nd_samples(dt, 1, true); },
                 [](const std::vector<Tensor>& in) { return in[0].flip(0); },
                 [flip_ref](const std::vector<Tensor>& in) { return flip_ref(in[0], {0}); }});
  ops.push_back({"flip_none", all, [](ScalarType dt) { return nd_samples(dt, 1, true); },
                 [](const std::vector<Tensor>& in) { return flip(in[0], {}); },
                 [flip_ref](const std::vector<Tensor>& in) { return flip_ref(in[0], {}); }});
  ops.push_back({"flip_-1_0", all, [](ScalarType dt) { return nd_samples(dt, 2); },
                 [](const std::vector<Tensor>& in) {
                   return flip(in[0], {-1, 0});
                 },
                 [flip_ref](const std::vector<Tensor>& in) {
                   return flip_ref(in[0], {-1, 0});
                 }});
  // roll: out[i] = x[(i - shift) mod n] along each rolled dim
  auto roll_ref = [](const Tensor& x, std::vector<int64_t> shifts, std::vector<int64_t> dims) {
    if (dims.empty()) {  // flattened
      auto v = values(x);
      const int64_t n = static_cast<int64_t>(v.size());
      std::vector<double> r(n);
      for (int64_t i = 0; i < n; ++i) r[i] = v[(((i - shifts[0]) % n) + n) % n];
      return Reference{x.sizes(), r, x.dtype()};
    }
    const Nd nd(x);
    return generate(x.sizes(), x.dtype(), [&](const Coord& c) {
      Coord src = c;
      for (size_t j = 0; j < dims.size(); ++j) {
        const int64_t d = dims[j] < 0 ? dims[j] + x.dim() : dims[j];
        const int64_t n = x.size(d);
        src[d] = (((src[d] - shifts[j]) % n) + n) % n;
      }
      return nd.at(src);
    });
  };
  ops.push_back({"roll_flat_3", all, [](ScalarType dt) { return nd_samples(dt, 1, true); },
                 [](const std::vector<Tensor>& in) { return in[0].roll(3); },
                 [roll_ref](const std::vector<Tensor>& in) { return roll_ref(in[0], {3}, {}); }});
  ops.push_back({"roll_dim1_-1", all, [](ScalarType dt) { return nd_samples(dt, 2); },
                 [](const std::vector<Tensor>& in) { return roll(in[0], {-1}, {1}); },
                 [roll_ref](const std::vector<Tensor>& in) { return roll_ref(in[0], {-1}, {1}); }});
  ops.push_back({"roll_dims_0_-1", all, [](ScalarType dt) { return nd_samples(dt, 2); },
                 [](const std::vector<Tensor>& in) {
                   return roll(in[0], {1, 7}, {0, -1});
                 },
                 [roll_ref](const std::vector<Tensor>& in) {
                   return roll_ref(in[0], {1, 7}, {0, -1});
                 }});
  ops.push_back(
      {"roll_same_dim_twice", all, [](ScalarType dt) { return nd_samples(dt, 2); },
       [](const std::vector<Tensor>& in) {
         return roll(in[0], {2, -5}, {-1, -1});
       },
       [roll_ref](const std::vector<Tensor>& in) { return roll_ref(in[0], {-3}, {-1}); }});
  // diag
  for (int64_t k : {0, 1, -2}) {
    ops.push_back({"diag_1d_" + std::to_string(k), all,
                   [](ScalarType dt) {
                     return std::vector<Sample>{
                         {{mk({4}, dt)}, "1-d"},
                         {{mk({0}, dt)}, "empty"},
                         {{make_noncontiguous(mk({3}, dt))}, "non-contiguous"},
                         {{make_expanded(mk({1}, dt), {3})}, "expanded"}};
                   },
                   [k](const std::vector<Tensor>& in) { return diag(in[0], k); },
                   [k](const std::vector<Tensor>& in) {
                     const Nd nd(in[0]);
                     const int64_t n = in[0].size(0) + (k < 0 ? -k : k);
                     return generate({n, n}, in[0].dtype(), [&](const Coord& c) {
                       if (c[1] - c[0] != k) return 0.0;
                       return nd.at({k >= 0 ? c[0] : c[1]});
                     });
                   }});
    ops.push_back({"diag_2d_" + std::to_string(k), all,
                   [](ScalarType dt) { return with_dim(nd_samples(dt, 2), 2); },
                   [k](const std::vector<Tensor>& in) {
                     Tensor r = diag(in[0], k);
                     if (r.is_alias_of(in[0])) throw std::runtime_error("diag of a matrix copies");
                     return r;
                   },
                   [k](const std::vector<Tensor>& in) {
                     const Nd nd(in[0]);
                     const int64_t m = in[0].size(0), n = in[0].size(1);
                     const int64_t len =
                         std::max<int64_t>(0, k >= 0 ? std::min(m, n - k) : std::min(m + k, n));
                     return generate({len}, in[0].dtype(), [&](const Coord& c) {
                       return k >= 0 ? nd.at({c[0], c[0] + k}) : nd.at({c[0] - k, c[0]});
                     });
                   }});
  }
  // tril / triu, out of place and in place (on a transposed, non-contiguous buffer)
  for (int64_t k : {0, 1, -1, 7, -7}) {
    for (bool lower : {true, false}) {
      for (bool inplace : {false, true}) {
        std::string name = lower ? "tril" : "triu";
        name += inplace ? "_inplace_k" : "_k";
        name += std::to_string(k);
        ops.push_back({name, all, [](ScalarType dt) { return nd_samples(dt, 2); },
                       [=](const std::vector<Tensor>& in) {
                         if (!inplace) return lower ? in[0].tril(k) : triu(in[0], k);
                         Tensor buf = in[0].mT().clone();
                         Tensor y = buf.mT();  // same values, transposed strides
                         const Tensor& r = lower ? y.tril_(k) : y.triu_(k);
                         if (!r.is_same(y))
                           throw std::runtime_error("in-place op returned another tensor");
                         return y;
                       },
                       [=](const std::vector<Tensor>& in) {
                         const Nd nd(in[0]);
                         return generate(in[0].sizes(), in[0].dtype(), [&](const Coord& c) {
                           const int64_t i = c[c.size() - 2], j = c.back();
                           const bool keep = lower ? j - i <= k : j - i >= k;
                           return keep ? nd.at(c) : 0.0;
                         });
                       }});
      }
    }
  }
  // view(dtype): a round trip through bytes, which exercises both the shrinking and the growing
  // geometry (strides, last dim, storage offset).
  ops.push_back({"view_dtype_bytes_roundtrip", all,
                 [](ScalarType dt) {
                   return std::vector<Sample>{{{mk({3, 4}, dt)}, "2-d"},
                                              {{mk({6, 4}, dt).narrow(0, 2, 3)}, "offset"},
                                              {{mk({3, 8}, dt).narrow(1, 0, 4)}, "row-strided"},
                                              {{mk({2, 0}, dt)}, "empty"},
                                              {{mk({5}, dt)}, "1-d"}};
                 },
                 [](const std::vector<Tensor>& in) {
                   Tensor b = in[0].view(kUInt8);
                   // SymInt sizes: the check holds for a dynamic dim too (no guard).
                   if (b.sym_size(-1) != in[0].sym_size(-1) * in[0].element_size() ||
                       !b.is_alias_of(in[0])) {
                     throw std::runtime_error("byte view has the wrong shape or copies");
                   }
                   return b.view(in[0].dtype());
                 },
                 [](const std::vector<Tensor>& in) {
                   return Reference{in[0].sizes(), values(in[0]), in[0].dtype()};
                 }});
  ops.back().not_differentiable =
      "PyTorch marks view(dtype) not differentiable (output_differentiability: [False])";
  // advanced indexing
  ops.push_back({"index_int_and_slice", all,
                 [](ScalarType dt) { return nonempty_dim1(nd_samples(dt, 2)); },
                 [](const std::vector<Tensor>& in) {
                   // {-1, 0, -1} made by ops on the input's device: a graph holds the factory.
                   const Tensor idx =
                       arange(3, TensorOptions(kInt64).device(in[0].device())).remainder(2) - 1;
                   return in[0].index({Slice(None, None, 2), idx});
                 },
                 [](const std::vector<Tensor>& in) {
                   const Nd nd(in[0]);
                   auto shape = in[0].sizes();
                   const int64_t n1 = shape[1];
                   shape[0] = (shape[0] + 1) / 2;
                   shape[1] = 3;
                   return generate(shape, in[0].dtype(), [&](const Coord& c) {
                     Coord src = c;
                     src[0] = 2 * c[0];
                     src[1] = c[1] == 1 ? 0 : n1 - 1;
                     return nd.at(src);
                   });
                 }});
  // A mask over the first two dims: true where (i + 2j) % 3 == 0.
  auto mask_for = [](const Tensor& x) {
    std::vector<double> m;
    for (int64_t i = 0; i < x.size(0); ++i) {
      for (int64_t j = 0; j < x.size(1); ++j) m.push_back((i + 2 * j) % 3 == 0);
    }
    return from_values({x.size(0), x.size(1)}, m, kBool);
  };
  ops.push_back({"index_bool_mask", all, [](ScalarType dt) { return nd_samples(dt, 2); },
                 [mask_for](const std::vector<Tensor>& in) {
                   return in[0].index({mask_for(in[0]).to(in[0].device())});
                 },
                 [](const std::vector<Tensor>& in) {
                   const Nd nd(in[0]);
                   std::vector<Coord> hits;
                   for (int64_t i = 0; i < in[0].size(0); ++i) {
                     for (int64_t j = 0; j < in[0].size(1); ++j) {
                       if ((i + 2 * j) % 3 == 0) hits.push_back({i, j});
                     }
                   }
                   std::vector<int64_t> shape{static_cast<int64_t>(hits.size())};
                   shape.insert(shape.end(), in[0].sizes().begin() + 2, in[0].sizes().end());
                   return generate(shape, in[0].dtype(), [&](const Coord& c) {
                     Coord src{hits[c[0]][0], hits[c[0]][1]};
                     src.insert(src.end(), c.begin() + 1, c.end());
                     return nd.at(src);
                   });
                 }});
  // index_put_ into a copy: x[:, [-1, 0]] = v (v broadcast over the last dims).
  // Reads only the static dims 2.. (dim 0 may be dynamic in a traced call).
  auto put_value = [](const Tensor& x) {
    std::vector<int64_t> shape{2};
    for (int64_t d = 2; d < x.dim(); ++d) shape.push_back(x.size(d));
    return make_tensor(shape, x.dtype(), -50, 50, 77);
  };
  ops.push_back({"index_put_", all, [](ScalarType dt) { return nonempty_dim1(nd_samples(dt, 2)); },
                 [put_value](const std::vector<Tensor>& in) {
                   Tensor y = in[0].clone();
                   // The meta run indexes with meta tensors; a traced (symbolic) input takes the
                   // value as a CPU constant the graph holds. The index {-1, 0} is made by ops on
                   // the device.
                   const Device on = in[0].device();
                   const bool traced = in[0].unsafeGetTensorImpl()->is_symbolic();
                   y.index_put_({Slice(), arange(2, TensorOptions(kInt32).device(on)) - 1},
                                traced ? put_value(in[0]) : put_value(in[0]).to(on));
                   return y;
                 },
                 [put_value](const std::vector<Tensor>& in) {
                   const Nd nd(in[0]);
                   const Nd v(put_value(in[0]));
                   const int64_t n1 = in[0].size(1);
                   return generate(in[0].sizes(), in[0].dtype(), [&](const Coord& c) {
                     // v is [2, rest...], broadcast over dim 0 of the indexed result [n0, 2, rest].
                     Coord vc;
                     if (c[1] == n1 - 1 || c[1] == 0) {
                       vc.push_back(c[1] == 0 ? 1 : 0);  // index 0 (written last) wins for n1 == 1
                       vc.insert(vc.end(), c.begin() + 2, c.end());
                       return v.at(vc);
                     }
                     return nd.at(c);
                   });
                 }});
  ops.push_back({"broadcast_tensors", all,
                 [](ScalarType dt) {
                   return std::vector<Sample>{
                       {{mk({3, 1}, dt), mk({1, 4}, dt, 2)}, "both"},
                       {{mk({}, dt), mk({2, 3}, dt, 2)}, "0-d"},
                       {{make_noncontiguous(mk({2, 3}, dt)), mk({3}, partner(dt), 2)}, "mixed"},
                       {{mk({0, 1}, dt), mk({5}, dt, 2)}, "empty"}};
                 },
                 [](const std::vector<Tensor>& in) {
                   auto r = broadcast_tensors(in);
                   if (r.size() != 2 || !r[0].is_alias_of(in[0]) ||
                       r[1].sym_sizes() != r[0].sym_sizes()) {
                     throw std::runtime_error("broadcast_tensors returned wrong views");
                   }
                   return r[0];
                 },
                 [](const std::vector<Tensor>& in) {
                   auto shape = broadcast_shapes({in[0].sizes(), in[1].sizes()});
                   const Nd nd(in[0]);
                   const int64_t off = static_cast<int64_t>(shape.size()) - in[0].dim();
                   return generate(shape, in[0].dtype(), [&](const Coord& c) {
                     Coord src;
                     for (int64_t d = 0; d < in[0].dim(); ++d) {
                       src.push_back(in[0].size(d) == 1 ? 0 : c[d + off]);
                     }
                     return nd.at(src);
                   });
                 }});
  return ops;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Shape, OpTest, ::testing::ValuesIn(shape_ops()), op_test_name);

TEST(ShapeOps, CatPromotesLikePyTorch) {
  struct Case {
    ScalarType a, b, expect;
  };
  const std::vector<Case> cases = {
      {kBool, kUInt8, kUInt8},      {kUInt8, kInt8, kInt16},         {kInt32, kInt64, kInt64},
      {kInt64, kFloat16, kFloat16}, {kFloat16, kBFloat16, kFloat32}, {kBool, kBool, kBool},
      {kInt8, kFloat64, kFloat64},  {kBFloat16, kFloat32, kFloat32}};
  for (const auto& c : cases) {
    Tensor r = cat({make_tensor({2}, c.a, 0, 3), make_tensor({1}, c.b, 0, 3)});
    EXPECT_EQ(r.dtype(), c.expect) << dtype_name(c.a) << " + " << dtype_name(c.b);
    // A skipped legacy empty tensor still takes part in the promotion.
    EXPECT_EQ(cat({make_tensor({2, 2}, c.a), make_tensor({0}, c.b)}).dtype(), c.expect);
  }
}

TEST(ShapeOps, SplitChunkUnbindReturnViews) {
  Tensor x = from_values({5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto parts = x.chunk(3);  // sizes 2, 2, 1
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].sizes(), (std::vector<int64_t>{1, 2}));
  parts[1].fill_(-1);
  EXPECT_EQ(values(x)[4], -1);
  EXPECT_EQ(chunk(x, 6).size(), 5u);  // PyTorch may return fewer chunks than asked
  EXPECT_EQ(chunk(make_tensor({0, 3}, kFloat32), 4).size(), 4u);
  EXPECT_EQ(x.split(5).size(), 1u);
  EXPECT_EQ(x.split(7).size(), 1u);
  EXPECT_EQ(make_tensor({0}, kFloat32).split(0).size(), 1u);
  auto rows = x.unbind();
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(values(rows[4]), (std::vector<double>{8, 9}));
  EXPECT_TRUE(rows[4].is_alias_of(x));
  auto sw = split_with_sizes(x, {0, 5, 0});
  EXPECT_EQ(sw[0].numel(), 0);
  EXPECT_EQ(sw[1].sizes(), x.sizes());
  EXPECT_TRUE(make_tensor({0, 2}, kInt8).unbind().empty());
}

TEST(ShapeOps, ViewDtypeReinterpretsBits) {
  Tensor f = from_values({2}, {1.0, -2.0}, kFloat32);
  EXPECT_EQ(values(f.view(kInt32)), (std::vector<double>{1065353216.0, -1073741824.0}));
  Tensor bytes = from_values({4}, {0x01, 0x02, 0x03, 0x04}, kUInt8);
  EXPECT_EQ(values(bytes.view(kInt16)), (std::vector<double>{0x0201, 0x0403}));
  EXPECT_EQ(values(bytes.view(kInt32)), (std::vector<double>{0x04030201}));
  Tensor i16 = from_values({2, 1}, {0x0102, -1}, kInt16);
  Tensor b = i16.view(kUInt8);
  EXPECT_EQ(b.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(b), (std::vector<double>{0x02, 0x01, 0xff, 0xff}));
  EXPECT_TRUE(b.is_alias_of(i16));
  Tensor h = from_values({1}, {1.0}, kFloat16);
  EXPECT_EQ(values(h.view(kInt16)), (std::vector<double>{0x3c00}));
  EXPECT_EQ(values(h.view(kBFloat16)), (std::vector<double>{0.0078125}));
  EXPECT_EQ(values(from_values({3}, {0, 1, 1}, kBool).view(kUInt8)),
            (std::vector<double>{0, 1, 1}));
  // Writes through the reinterpreted view reach the original.
  bytes.view(kInt32).fill_(0x7f000000);
  EXPECT_EQ(values(bytes), (std::vector<double>{0, 0, 0, 0x7f}));
}

TEST(ShapeOps, DiagTrilTriuValues) {
  Tensor v = from_values({2}, {1, 2}, kInt64);
  EXPECT_EQ(values(diag(v, 1)), (std::vector<double>{0, 1, 0, 0, 0, 2, 0, 0, 0}));
  Tensor m = from_values({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values(m.tril()), (std::vector<double>{1, 0, 0, 4, 5, 0}));
  EXPECT_EQ(values(m.triu(1)), (std::vector<double>{0, 2, 3, 0, 0, 6}));
  EXPECT_EQ(values(m.tril(-1)), (std::vector<double>{0, 0, 0, 4, 0, 0}));
  EXPECT_EQ(values(m.triu(std::numeric_limits<int64_t>::min())), values(m));
  EXPECT_EQ(values(m.tril(std::numeric_limits<int64_t>::max())), values(m));
  Tensor b = from_values({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const uint32_t ver = b._version();
  b.triu_();
  EXPECT_EQ(values(b), (std::vector<double>{1, 2, 0, 4, 5, 6, 0, 8}));
  EXPECT_GT(b._version(), ver);
  EXPECT_EQ(values(diag(m)), (std::vector<double>{1, 5}));
  EXPECT_EQ(values(diag(m, -1)), (std::vector<double>{4}));
  EXPECT_EQ(diag(m, 5).numel(), 0);
}

TEST(ShapeOps, BroadcastShapes) {
  EXPECT_EQ(broadcast_shapes({{2, 1}, {3}, {1, 1, 1}}), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(broadcast_shapes({}), (std::vector<int64_t>{}));
  EXPECT_EQ(broadcast_shapes({{0}, {1}}), (std::vector<int64_t>{0}));
  EXPECT_TRUE(broadcast_tensors({}).empty());
}

TEST(ShapeOps, Errors) {
  Tensor a = make_tensor({2, 3}, kFloat32);
  Tensor b = make_tensor({3, 3}, kFloat32);
  Tensor s = make_tensor({}, kFloat32);
  Tensor v5 = make_tensor({5}, kFloat32);
  Tensor e = make_expanded(make_tensor({1, 3}, kFloat32), {3, 3});
  expect_errors<RuntimeError>({
      {"cat empty", [] { cat({}); }, "[cat] torch.cat(): expected a non-empty list of Tensors"},
      {"concat empty", [] { concat({}); }, "[concat] torch.cat(): expected a non-empty list"},
      {"cat 0-d",
       [&] {
         cat({s, a});
       },
       "[cat] zero-dimensional tensor (at position 0) cannot be concatenated"},
      {"cat sizes",
       [&] {
         cat({a, b}, 1);
       },
       "[cat] Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 "
       "for tensor number 1 in the list."},
      {"cat ndim",
       [&] {
         cat({a, make_tensor({2, 3, 1}, kFloat32)});
       },
       "[cat] Tensors must have same number of dimensions: got 2 and 3"},
      {"cat undefined",
       [&] {
         cat({a, Tensor()});
       },
       "[cat]"},
      {"stack empty", [] { stack({}); }, "[stack] stack expects a non-empty TensorList"},
      {"stack sizes",
       [&] {
         stack({make_tensor({2}, kInt8), make_tensor({3}, kInt8)});
       },
       "[stack] stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at "
       "entry 1"},
      {"chunk 0-d", [&] { s.chunk(2); }, "[chunk] chunk expects at least a 1-dimensional tensor"},
      {"chunk 0", [&] { a.chunk(0); },
       "[chunk] chunk expects `chunks` to be greater than 0, got: 0"},
      {"split 0-d", [&] { s.split(1); }, "[split] split expects at least a 1-dimensional tensor"},
      {"split negative", [&] { a.split(-1); },
       "[split] split expects split_size be non-negative, but got split_size=-1"},
      {"split zero", [&] { a.split(0); },
       "[split] split_size can only be 0 if dimension size is 0, but got dimension size of 2"},
      {"split_with_sizes sum",
       [&] {
         v5.split_with_sizes({2, 2});
       },
       "[split_with_sizes] split_with_sizes expects split_sizes to sum exactly to 5 (input "
       "tensor's size at dimension 0), but got split_sizes=[2, 2]"},
      {"split sizes sum", [&] { v5.split(SymIntList(std::vector<int64_t>{6})); },
       "split_with_sizes expects split_sizes to sum exactly to 5"},
      {"split_with_sizes negative",
       [&] {
         v5.split_with_sizes({6, -1});
       },
       "[split_with_sizes] split_with_sizes expects split_sizes have only non-negative entries"},
      {"unflatten product",
       [&] {
         v5.unflatten(0, {2, 2});
       },
       "[unflatten] unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 0 (5) in "
       "the input tensor"},
      {"unflatten infer",
       [&] {
         v5.unflatten(0, {2, -1});
       },
       "[unflatten] unflatten: Provided sizes [2, -1]"},
      {"unflatten empty", [&] { v5.unflatten(0, {}); },
       "[unflatten] unflatten: sizes must be non-empty"},
      {"unflatten two -1",
       [&] {
         v5.unflatten(0, {-1, -1});
       },
       "[unflatten] only one dimension can be inferred"},
      {"repeat dims", [&] { a.repeat({2}); },
       "[repeat] Number of dimensions of repeat dims can not be smaller than number of dimensions "
       "of tensor"},
      {"repeat negative",
       [&] {
         a.repeat({1, -1});
       },
       "[repeat] Trying to create tensor with negative dimension -1"},
      {"tile negative", [&] { a.tile({-2}); },
       "[tile] Trying to create tensor with negative dimension -2"},
      {"flip repeated",
       [&] {
         a.flip({0, -2});
       },
       "[flip] dim 0 appears multiple times in the list of dims"},
      {"roll shifts", [&] { a.roll({}, {}); }, "[roll] `shifts` required"},
      {"roll align",
       [&] {
         a.roll({1, 2}, {0});
       },
       "[roll] shifts and dimensions must align. shifts: 2, dims:1"},
      {"roll align flat",
       [&] {
         a.roll({1, 2});
       },
       "[roll] shifts and dimensions must align. shifts: 2, dims:0"},
      {"diag 3-d",
       [&] {
         diag(make_tensor({2, 2, 2}, kFloat32));
       },
       "[diag] diag(): Supports 1D or 2D tensors. Got 3D"},
      {"diag 0-d", [&] { diag(s); }, "[diag] diag(): Supports 1D or 2D tensors. Got 0D"},
      {"tril 1-d", [&] { v5.tril(); }, "[tril] tril: input tensor must have at least 2 dimensions"},
      {"triu 1-d", [&] { triu(v5); }, "[triu] triu: input tensor must have at least 2 dimensions"},
      {"tril_ 0-d", [&] { s.tril_(); },
       "[tril_] tril: input tensor must have at least 2 dimensions"},
      {"triu_ expanded", [&] { e.triu_(); },
       "[triu_] unsupported operation: more than one element of the written-to tensor"},
      {"view dtype 0-d", [&] { s.view(kInt8); },
       "[view] self.dim() cannot be 0 to view float32 as int8 (different element sizes)"},
      {"view dtype stride", [&] { a.t().view(kInt16); },
       "[view] self.stride(-1) must be 1 to view float32 as int16 (different element sizes), but "
       "got 3"},
      {"view dtype size", [&] { make_tensor({3}, kInt8).view(kInt16); },
       "[view] self.size(-1) must be divisible by 2 to view int8 as int16 (different element "
       "sizes), but got 3"},
      {"view dtype offset", [&] { make_tensor({4}, kInt8).narrow(0, 1, 2).view(kInt16); },
       "[view] self.storage_offset() must be divisible by 2 to view int8 as int16 (different "
       "element sizes), but got 1"},
      {"view dtype row stride",
       [&] {
         make_tensor({3, 3}, kInt8).narrow(1, 0, 2).view(kInt16);
       },
       "[view] self.stride(0) must be divisible by 2 to view int8 as int16 (different element "
       "sizes), but got 3"},
      {"broadcast_shapes",
       [] {
         broadcast_shapes({{2}, {3}});
       },
       "[broadcast_shapes] Shape mismatch: objects cannot be broadcast to a single shape"},
      {"broadcast_shapes negative", [] { broadcast_shapes({{-1}}); },
       "[broadcast_shapes] Trying to create tensor with negative dimension -1"},
      {"broadcast_tensors",
       [&] {
         broadcast_tensors({a, b});
       },
       "[broadcast_tensors] The size of tensor a (2) must match the size of tensor b (3) at "
       "non-singleton dimension 0"},
  });
  expect_errors<IndexError>({
      {"cat dim",
       [&] {
         cat({a, a}, 2);
       },
       "[cat] Dimension out of range (expected to be in range of [-2, 1], but got 2)"},
      {"stack dim",
       [&] {
         stack({a, a}, -4);
       },
       "[stack] Dimension out of range (expected to be in range of [-3, 2], but got -4)"},
      {"chunk dim", [&] { a.chunk(2, 2); }, "[chunk] Dimension out of range"},
      {"split dim", [&] { a.split(1, -3); }, "[split] Dimension out of range"},
      {"unbind dim", [&] { a.unbind(2); }, "[unbind] Dimension out of range"},
      {"unbind 0-d", [&] { s.unbind(); },
       "[unbind] Dimension specified as 0 but tensor has no dimensions"},
      {"unflatten dim",
       [&] {
         a.unflatten(3, {1, 2});
       },
       "[unflatten] Dimension out of range"},
      {"unflatten 0-d", [&] { s.unflatten(0, {1}); },
       "[unflatten] Dimension specified as 0 but tensor has no dimensions"},
      {"flip dim", [&] { a.flip(2); }, "[flip] Dimension out of range"},
      {"roll dim", [&] { a.roll(1, 5); }, "[roll] Dimension out of range"},
      {"roll 0-d dim", [&] { s.roll(1, 0); },
       "[roll] Dimension specified as 0 but tensor has no dimensions"},
  });
  expect_errors<TypeError>({
      {"view unsupported dtype", [&] { a.view(kComplexFloat); }, "[view]"},
  });
}

namespace {
// Records the name of every primitive that reaches dispatch.
class Recorder : public DispatchMode {
 public:
  void handle(OpCall& call, const DispatchNext& next) override {
    names.push_back(call.prim.name());
    next(call);
  }
  std::vector<std::string> names;
};
bool saw(const Recorder& r, const std::string& name) {
  return std::find(r.names.begin(), r.names.end(), name) != r.names.end();
}
}  // namespace

TEST(ShapeOps, ComputingOpsGoThroughDispatch) {
  Recorder rec;
  std::optional<DispatchModeGuard> guard(std::in_place, rec);
  Tensor x = make_tensor({3, 4}, kFloat32);
  try {
    cat({x, x});
    x.flip(0);
    x.roll(1, 1);
    x.repeat({2, 1});
    x.tril();
    Tensor y = x.clone();
    y.triu_(1);
    x.index({from_values({2}, {0, 2}, kInt64)});
    x.index({from_values({3}, {1, 0, 1}, kBool)});
    y.index_put_({from_values({1}, {1}, kInt64)}, 0);
    x.view(kInt32);
  } catch (...) {
    guard.reset();
    throw;
  }
  guard.reset();
  for (const char* name : {"cat", "flip", "roll", "repeat", "tril", "triu_", "index", "nonzero",
                           "index_put_", "view"}) {
    EXPECT_TRUE(saw(rec, name)) << name;
  }
}

TEST(ShapeOps, ZeroDimReshapesToOnes) {
  Tensor s = from_values({}, {3});
  EXPECT_EQ(s.reshape({1, 1}).sizes(), (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(s.view({1}).is_alias_of(s));
  EXPECT_EQ(values(s.roll(5)), (std::vector<double>{3}));
  EXPECT_EQ(s.roll(5).dim(), 0);
}
