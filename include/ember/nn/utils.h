#pragma once
// torch.nn.utils: gradient clipping and flattening parameters to one vector.
#include <optional>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::utils {

/// Scales the gradients in place so that their total `norm_type` norm is at most max_norm;
/// returns the total norm before clipping (a 0-d tensor). error_if_nonfinite raises when it is
/// NaN or infinite.
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
Tensor clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
/// Clamps every gradient element into [-clip_value, clip_value] in place.
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
/// The parameters flattened and concatenated.
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
/// Copies consecutive slices of `vec` into the parameters.
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils
