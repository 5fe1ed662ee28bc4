// Contractions built from the Matmul primitive and view ops: einsum, tensordot, kron.
#include <algorithm>
#include <cctype>
#include <deque>
#include <numeric>

#include "ember/ops/matmul.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "ops/matmul_internal.h"
#include "ops/util.h"

namespace ember {
namespace {

// (left * right).sum(sum_dims, keepdim=true) for operands of equal rank whose dims broadcast, as
// one batched product: dims in both operands and the output form the batch, dims only in left
// (right) the rows (columns), summed dims the contraction. PyTorch's sumproduct_pair.
Tensor sumproduct_pair(Tensor left, Tensor right, const std::vector<int64_t>& sum_dims) {
  const int64_t dim = left.dim();
  std::vector<bool> is_sum(dim, false);
  for (int64_t d : sum_dims) is_sum[d] = true;
  std::vector<int64_t> lro, lo, ro;
  SymInt lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  for (int64_t i = 0; i < dim; ++i) {
    const bool sl = left.sym_size(i) != 1, sr = right.sym_size(i) != 1;
    if (is_sum[i]) {
      if (sl && sr) {
        EMBER_CHECK(left.sym_size(i) == right.sym_size(i),
                    "[einsum] non-broadcast dimensions must match");
        sum_size *= left.sym_size(i);
      } else if (sl) {
        left = sum(left, IntList({i}), /*keepdim=*/true);
      } else if (sr) {
        right = sum(right, IntList({i}), /*keepdim=*/true);
      }
    } else if (sl && sr) {
      EMBER_CHECK(left.sym_size(i) == right.sym_size(i),
                  "[einsum] non-broadcast dimensions must match");
      lro.push_back(i);
      lro_size *= left.sym_size(i);
    } else if (sl) {
      lo.push_back(i);
      lo_size *= left.sym_size(i);
    } else {
      ro.push_back(i);
      ro_size *= right.sym_size(i);
    }
  }
  std::vector<SymInt> out_size;
  for (int64_t d : lro) out_size.push_back(left.sym_size(d));
  for (int64_t d : lo) out_size.push_back(left.sym_size(d));
  out_size.insert(out_size.end(), sum_dims.size(), SymInt(1));
  for (int64_t d : ro) out_size.push_back(right.sym_size(d));

  std::vector<int64_t> lperm = lro, rperm = lro;
  lperm.insert(lperm.end(), lo.begin(), lo.end());
  lperm.insert(lperm.end(), sum_dims.begin(), sum_dims.end());
  lperm.insert(lperm.end(), ro.begin(), ro.end());
  rperm.insert(rperm.end(), sum_dims.begin(), sum_dims.end());
  rperm.insert(rperm.end(), ro.begin(), ro.end());
  rperm.insert(rperm.end(), lo.begin(), lo.end());
  std::vector<int64_t> operm(dim, -1);
  for (int64_t i = 0; i < dim; ++i) operm[lperm[i]] = i;

  left = reshape(permute(left, lperm), {lro_size, lo_size, sum_size});
  right = reshape(permute(right, rperm), {lro_size, sum_size, ro_size});
  Tensor result;
  if (sum_dims.empty()) {
    // PyTorch multiplies (with type promotion) when nothing is summed.
    const ScalarType dt = promote_types(left.dtype(), right.dtype());
    result = ops::batched_product("einsum", left.to(dt), right.to(dt));
  } else {
    result = ops::bmm_checked(left, right, "einsum");
  }
  return permute(view(result, SymIntList(out_size)), operm);
}

}  // namespace

// Note [einsum]: PyTorch's algorithm. Parse the labels; align every operand to one dim order
// (output dims, then contraction dims), taking diagonals for repeated labels and unsqueezing
// missing ones; contract operands left to right with sumproduct_pair, summing a dim as soon as
// no remaining operand has it; finally drop (or, for one operand, sum) the contraction dims.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  EMBER_CHECK(!operands.empty(), "[einsum] einsum(): must provide at least one operand");
  for (const auto& t : operands) {
    EMBER_CHECK(t.defined(), "[einsum] einsum(): an operand is an undefined tensor");
  }
  const int64_t num_ops = static_cast<int64_t>(operands.size());
  constexpr int kLetters = 26, kTotal = 2 * kLetters, kEllipsis = kTotal;
  auto to_sub = [](unsigned char c) { return std::isupper(c) ? c - 'A' : c - 'a' + kLetters; };
  auto to_label = [](int s) {
    return static_cast<char>(s < kLetters ? 'A' + s : 'a' + s - kLetters);
  };

  const auto arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::vector<int>> op_labels(num_ops);
  bool ell_in_input = false;
  int64_t cur = 0;
  for (size_t i = 0; i < lhs.size(); ++i) {
    const unsigned char c = lhs[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(!ell_in_input, "[einsum] einsum(): found '.' for operand ", cur,
                  " for which an ellipsis was already found");
      EMBER_CHECK(i + 2 < lhs.size() && lhs[++i] == '.' && lhs[++i] == '.',
                  "[einsum] einsum(): found '.' for operand ", cur,
                  " that is not part of any ellipsis");
      op_labels[cur].push_back(kEllipsis);
      ell_in_input = true;
    } else if (c == ',') {
      ++cur;
      EMBER_CHECK(cur < num_ops,
                  "[einsum] einsum(): fewer operands were provided than specified in the equation");
      ell_in_input = false;
    } else {
      EMBER_CHECK(c < 128 && std::isalpha(c),
                  "[einsum] einsum(): invalid subscript given at index ", i,
                  " in the equation string, subscripts must be in [a-zA-Z]");
      op_labels[cur].push_back(to_sub(c));
    }
  }
  EMBER_CHECK(cur == num_ops - 1,
              "[einsum] einsum(): more operands were provided than specified in the equation");

  std::vector<int64_t> label_count(kTotal, 0);
  int64_t ell_num_dim = 0;  // most dims any ellipsis covers
  for (int64_t i = 0; i < num_ops; ++i) {
    const int64_t ndims = operands[i].dim();
    int64_t nlabels = static_cast<int64_t>(op_labels[i].size());
    bool has_ellipsis = false;
    for (int s : op_labels[i]) {
      if (s == kEllipsis) {
        --nlabels;
        has_ellipsis = true;
      } else {
        ++label_count[s];
      }
    }
    if (has_ellipsis) ell_num_dim = std::max(ell_num_dim, ndims - nlabels);
    EMBER_CHECK(has_ellipsis ? nlabels <= ndims : nlabels == ndims,
                "[einsum] einsum(): the number of subscripts in the equation (", nlabels,
                has_ellipsis ? ") is more than the number of dimensions ("
                             : ") does not match the number of dimensions (",
                ndims, ") for operand ", i, has_ellipsis ? "" : " and no ellipsis was given");
  }

  // Position of each label in the aligned dim order: output dims first, then contractions.
  std::vector<int64_t> label_perm_index(kTotal, -1);
  int64_t perm_index = 0, ell_index = 0;
  bool ell_in_output = false;
  if (arrow == std::string::npos) {
    // Implicit output: the ellipsis dims, then labels seen once, in alphabetical order
    // (upper case first).
    perm_index = ell_num_dim;
    ell_in_output = true;
    for (int s = 0; s < kTotal; ++s) {
      if (label_count[s] == 1) label_perm_index[s] = perm_index++;
    }
  } else {
    const std::string rhs = equation.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      const unsigned char c = rhs[i];
      if (c == ' ') continue;
      if (c == '.') {
        EMBER_CHECK(!ell_in_output,
                    "[einsum] einsum(): found '.' for output but an ellipsis "
                    "(...) was already found");
        EMBER_CHECK(i + 2 < rhs.size() && rhs[++i] == '.' && rhs[++i] == '.',
                    "[einsum] einsum(): found '.' for output that is not part of any ellipsis "
                    "(...)");
        ell_index = perm_index;
        perm_index += ell_num_dim;
        ell_in_output = true;
      } else {
        EMBER_CHECK(c < 128 && std::isalpha(c),
                    "[einsum] einsum(): invalid subscript given at index ", lhs.size() + 2 + i,
                    " in the equation string, subscripts must be in [a-zA-Z]");
        const int s = to_sub(c);
        EMBER_CHECK(label_count[s] > 0 && label_perm_index[s] == -1,
                    "[einsum] einsum(): output subscript ", static_cast<char>(c),
                    label_perm_index[s] > -1
                        ? " appears more than once in the output"
                        : " does not appear in the equation for any input operand");
        label_perm_index[s] = perm_index++;
      }
    }
  }
  const int64_t out_num_dim = perm_index;
  if (!ell_in_output) {
    ell_index = perm_index;
    perm_index += ell_num_dim;
  }
  for (int s = 0; s < kTotal; ++s) {
    if (label_count[s] > 0 && label_perm_index[s] == -1) label_perm_index[s] = perm_index++;
  }

  // Align the operands; count, per aligned dim, the operands where it is not 1.
  std::vector<SymInt> label_size(kTotal, SymInt(1)), ell_sizes(ell_num_dim, SymInt(1));
  std::vector<int64_t> dim_counts(perm_index, 0);
  std::deque<Tensor> ops;
  for (int64_t i = 0; i < num_ops; ++i) {
    Tensor op = operands[i];
    std::vector<int64_t> permutation(perm_index, -1);
    int64_t dim = 0;
    for (int s : op_labels[i]) {
      if (s == kEllipsis) {
        const int64_t ndim = operands[i].dim() - (static_cast<int64_t>(op_labels[i].size()) - 1);
        for (int64_t j = ell_num_dim - ndim; j < ell_num_dim; ++j) {
          const SymInt size = op.sym_size(dim);
          if (size != 1) {
            EMBER_CHECK(ell_sizes[j] == 1 || ell_sizes[j] == size, "[einsum] einsum(): dimension ",
                        dim, " covered by ellipsis in operand ", i, "has size ", size,
                        " which does not broadcast with previously seen ellipsis with size ",
                        ell_sizes[j], " for the respective dimension");
            ell_sizes[j] = size;
            ++dim_counts[ell_index + j];
          }
          permutation[ell_index + j] = dim++;
        }
      } else if (permutation[label_perm_index[s]] == -1) {
        const SymInt size = op.sym_size(dim);
        if (size != 1) {
          EMBER_CHECK(label_size[s] == 1 || label_size[s] == size, "[einsum] einsum(): subscript ",
                      to_label(s), " has size ", size, " for operand ", i,
                      " which does not broadcast with previously seen size ", label_size[s]);
          label_size[s] = size;
          ++dim_counts[label_perm_index[s]];
        }
        permutation[label_perm_index[s]] = dim++;
      } else {
        // Repeated label: take the diagonal and keep it where the first occurrence was.
        const int64_t prev = permutation[label_perm_index[s]];
        EMBER_CHECK(op.sym_size(dim) == op.sym_size(prev), "[einsum] einsum(): subscript ",
                    to_label(s), " is repeated for operand ", i, " but the sizes don't match, ",
                    op.sym_size(dim), " != ", op.sym_size(prev));
        op = movedim(diagonal(op, 0, prev, dim), -1, prev);
      }
    }
    for (auto& val : permutation) {
      if (val == -1) {
        op = unsqueeze(op, dim);
        val = dim++;
      }
    }
    ops.push_back(permute(op, permutation));
  }

  while (ops.size() > 1) {
    Tensor a = ops[0], b = ops[1];
    ops.pop_front();
    ops.pop_front();
    std::vector<int64_t> sum_dims, a_dims_to_sum, b_dims_to_sum;
    for (int64_t d = out_num_dim; d < perm_index; ++d) {
      if (a.sym_size(d) != 1 && b.sym_size(d) != 1) {
        if (--dim_counts[d] == 1) {
          sum_dims.push_back(d);
          dim_counts[d] = 0;
        }
      } else if (dim_counts[d] == 1) {
        if (a.sym_size(d) != 1) {
          a_dims_to_sum.push_back(d);
          dim_counts[d] = 0;
        } else if (b.sym_size(d) != 1) {
          b_dims_to_sum.push_back(d);
          dim_counts[d] = 0;
        }
      }
    }
    if (!a_dims_to_sum.empty()) a = sum(a, IntList(a_dims_to_sum), /*keepdim=*/true);
    if (!b_dims_to_sum.empty()) b = sum(b, IntList(b_dims_to_sum), /*keepdim=*/true);
    ops.push_front(sumproduct_pair(a, b, sum_dims));
  }

  if (perm_index > out_num_dim) {
    Tensor r = ops[0];
    if (num_ops == 1) {
      std::vector<int64_t> dims(perm_index - out_num_dim);
      std::iota(dims.begin(), dims.end(), out_num_dim);
      r = sum(r, IntList(dims), /*keepdim=*/true);
    }
    // Every contraction dim has size 1 now.
    const std::vector<SymInt> rs = r.sym_sizes();
    std::vector<SymInt> sizes(rs.begin(), rs.begin() + out_num_dim);
    return view(r, SymIntList(sizes));
  }
  return ops[0];
}

Tensor tensordot(const Tensor& a, const Tensor& b, IntList dims_a, IntList dims_b) {
  EMBER_CHECK(a.defined() && b.defined(), "[tensordot] an argument is an undefined tensor");
  EMBER_CHECK(dims_a.size() == dims_b.size(),
              "[tensordot] both dimension lists should have same length");
  EMBER_CHECK(a.dtype() == b.dtype(), "[tensordot] both inputs should have same dtype");
  for (const auto& [t, dims] : {std::pair{&a, &dims_a}, std::pair{&b, &dims_b}}) {
    EMBER_CHECK_INDEX(t->dim() > 0 || dims->empty(), "[tensordot] Dimension specified as ",
                      (*dims)[0], " but tensor has no dimensions");
  }
  const auto da = ops::wrap_dims(dims_a, a.dim(), "tensordot");
  const auto db = ops::wrap_dims(dims_b, b.dim(), "tensordot");
  SymInt csize = 1;
  Tensor t1 = a, t2 = b;
  for (size_t i = 0; i < da.size(); ++i) {
    const SymInt s1 = a.sym_size(da[i]), s2 = b.sym_size(db[i]);
    if (s2 == 1) {  // broadcast dims are summed right away, as PyTorch
      t1 = sum(t1, IntList({da[i]}), /*keepdim=*/true);
    } else if (s1 == 1) {
      t2 = sum(t2, IntList({db[i]}), /*keepdim=*/true);
    } else {
      EMBER_CHECK(s1 == s2, "[tensordot] contracted dimensions need to match, but first has size ",
                  s1, " in dim ", dims_a[i], " and second has size ", s2, " in dim ", dims_b[i]);
      csize *= s1;
    }
  }
  std::vector<bool> c1(a.dim(), false), c2(b.dim(), false);
  for (int64_t d : da) c1[d] = true;
  for (int64_t d : db) c2[d] = true;
  std::vector<int64_t> p1, p2;
  std::vector<SymInt> rsizes;
  SymInt size1 = 1, size2 = 1;
  for (int64_t i = 0; i < a.dim(); ++i) {
    if (!c1[i]) {
      p1.push_back(i);
      size1 *= t1.sym_size(i);
      rsizes.push_back(t1.sym_size(i));
    }
  }
  p1.insert(p1.end(), da.begin(), da.end());
  p2 = db;
  for (int64_t i = 0; i < b.dim(); ++i) {
    if (!c2[i]) {
      p2.push_back(i);
      size2 *= t2.sym_size(i);
      rsizes.push_back(t2.sym_size(i));
    }
  }
  t1 = reshape(permute(t1, p1), {size1, csize});
  t2 = reshape(permute(t2, p2), {csize, size2});
  return reshape(ops::mm_checked(t1, t2, "tensordot"), SymIntList(rsizes));
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  EMBER_CHECK(dims >= 0, "[tensordot] tensordot expects dims >= 0, but got dims=", dims);
  std::vector<int64_t> dims_a, dims_b;
  for (int64_t i = 0; i < dims; ++i) {
    dims_a.push_back(i - dims);
    dims_b.push_back(i);
  }
  return tensordot(a, b, dims_a, dims_b);
}

// kron(a, b) = every product a[i] * b[j] (mul's type promotion, bool included), laid out with
// a's and b's dims interleaved: an outer product of the flattened operands, permuted.
Tensor kron(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.defined() && b.defined(), "[kron] an argument is an undefined tensor");
  const ScalarType dt = promote_types(a.dtype(), b.dtype());
  const int64_t maxdim = std::max(a.dim(), b.dim());
  std::vector<SymInt> split_shape(2 * maxdim), result_shape(maxdim);
  std::vector<int64_t> perm(2 * maxdim);
  for (int64_t i = 0; i < maxdim; ++i) {
    const SymInt sa = i >= maxdim - a.dim() ? a.sym_size(i - (maxdim - a.dim())) : SymInt(1);
    const SymInt sb = i >= maxdim - b.dim() ? b.sym_size(i - (maxdim - b.dim())) : SymInt(1);
    split_shape[i] = sa;
    split_shape[maxdim + i] = sb;
    perm[2 * i] = i;
    perm[2 * i + 1] = maxdim + i;
    result_shape[i] = sa * sb;
  }
  Tensor fa = reshape(a.to(dt), {1, a.sym_numel(), 1});
  Tensor fb = reshape(b.to(dt), {1, 1, b.sym_numel()});
  Tensor outer = ops::batched_product("kron", fa, fb);
  return reshape(permute(view(outer, SymIntList(split_shape)), perm), SymIntList(result_shape));
}

Tensor Tensor::kron(const Tensor& other) const { return ember::kron(*this, other); }

}  // namespace ember
