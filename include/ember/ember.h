#pragma once
// Ember: PyTorch's feature set as a native C++20 library. Include this one header.
#include "ember/autograd.h"
#include "ember/autograd/function.h"
#include "ember/core/allocator.h"
#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/generator.h"
#include "ember/core/ordered_dict.h"
#include "ember/core/parallel.h"
#include "ember/core/scalar.h"
#include "ember/core/symint.h"
#include "ember/core/tensor.h"
#include "ember/data.h"
#include "ember/linalg.h"
#include "ember/nn/functional.h"
#include "ember/ops/compare.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/matmul.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "ember/ops/sort.h"
#include "ember/nn.h"
#include "ember/optim.h"
#include "ember/profiler.h"
#include "ember/serialize.h"
#include "ember/testing.h"

namespace ember {
/// The library version, "MAJOR.MINOR.PATCH".
const char* version();
}  // namespace ember
