#pragma once
// Matrix products. Every product op (mm, bmm, mv, dot, addmm, baddbmm, matmul, einsum, ...) ends
// in one batched primitive; the op builders turn their operands into 3-D views first.
#include "dispatch/primitive.h"

namespace ember {

/// outputs[0][i] = alpha * inputs[0][i] @ inputs[1][i] + beta * inputs[2][i] for every batch i.
/// inputs[0] is [B, m, k] and inputs[1] is [B, k, n] (a batch dim of size B may have stride 0,
/// for broadcasting). inputs[2] (optional, "self" of addmm/baddbmm) broadcasts to [B, m, n]; it is
/// not read when beta == 0, so NaN in it does not propagate, as in PyTorch. outputs[0] arrives as
/// a contiguous [B, m, n] tensor of the inputs' dtype. With k == 0 the product is zero.
/// name() is the user-facing op ("mm", "bmm", "addmm", "dot", ...).
struct MatmulParams {
  Scalar alpha = 1, beta = 0;
  EMBER_FIELDS(alpha, beta)
};

class Matmul : public PrimitiveOf<Matmul, MatmulParams, PrimitiveKind::Matmul> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Matmul(const char* name, Scalar alpha = 1, Scalar beta = 0)
      : PrimitiveOf({alpha, beta}) {
    set_display_name(name);
  }
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t i) const override { return i < 2; }
  const char* default_name() const override { return "bmm"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  const Scalar& alpha() const { return p_.alpha; }
  const Scalar& beta() const { return p_.beta; }
};

}  // namespace ember
