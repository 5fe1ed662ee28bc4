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
class Matmul : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Matmul)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i < 2; }
  explicit Matmul(const char* name, Scalar alpha = 1, Scalar beta = 0)
      : name_(name), alpha_(alpha), beta_(beta) {}
  const char* name() const override { return name_; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;
  const Scalar& alpha() const { return alpha_; }
  const Scalar& beta() const { return beta_; }

 private:
  const char* name_;
  Scalar alpha_, beta_;
};

}  // namespace ember
