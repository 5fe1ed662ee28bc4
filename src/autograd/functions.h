#pragma once
// Internal autograd entry points shared by dispatch, the engine and Tensor's methods.
#include "autograd/meta.h"

namespace ember::autograd {

/// The tensor's grad_fn, regenerated first when it is a view whose base changed in place.
const std::shared_ptr<Node>& grad_fn_of(const Tensor& t);

}  // namespace ember::autograd
