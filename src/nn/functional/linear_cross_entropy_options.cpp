// nn::LinearCrossEntropyOptions: validation and the resolution of "auto" (PyTorch 2.14's
// torch/nn/modules/linear_cross_entropy_options.py, CPU rows).
#include <algorithm>
#include <string>

#include "ember/nn/options/linear_cross_entropy.h"

namespace ember::nn {
namespace {

constexpr const char* kOp = "[LinearCrossEntropyOptions]";
const std::string kAspect = "aspect_ratio";

bool is_16bit(ScalarType t) { return t == kFloat16 || t == kBFloat16; }

/// The k of "aspect_ratio" (1) or "aspect_ratio:k"; 0 when `method` is neither.
int64_t aspect_divisor(const std::string& method) {
  if (method == kAspect) return 1;
  if (method.rfind(kAspect + ":", 0) != 0) return 0;
  const std::string k = method.substr(kAspect.size() + 1);
  if (k.empty() || k.size() > 9 || k.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::stoll(k);
}

int64_t next_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

void LinearCrossEntropyOptions::validate() const {
  EMBER_CHECK_VALUE(acc_policy_ != "balanced", kOp,
                    " acc_policy 'balanced' was removed in PyTorch 2.14 (its memory and accuracy "
                    "are matched by 'compact'); use acc_policy='compact'");
  EMBER_CHECK_VALUE(acc_policy_ == "auto" || acc_policy_ == "accurate" || acc_policy_ == "compact",
                    kOp, " invalid acc_policy: '", acc_policy_,
                    "' (expected 'auto', 'accurate' or 'compact')");
  if (chunking_method_) {
    EMBER_CHECK_VALUE(*chunking_method_ == "auto" || aspect_divisor(*chunking_method_) >= 1, kOp,
                      " invalid chunking_method: '", *chunking_method_,
                      "' (expected 'auto', 'aspect_ratio', 'aspect_ratio:k' with an integer "
                      "k >= 1, or None)");
  }
  EMBER_CHECK_VALUE(!batch_chunk_size_ || *batch_chunk_size_ > 0, kOp,
                    " batch_chunk_size must be a positive integer, got ",
                    batch_chunk_size_.value_or(0));
  if (acc_dtype_) {
    const ScalarType a = *acc_dtype_;
    EMBER_CHECK_VALUE(is_16bit(a) || a == kFloat32 || a == kFloat64, kOp,
                      " unsupported acc_dtype: ", dtype_name(a),
                      " (expected float16, bfloat16, float32 or float64)");
  }
}

int64_t LinearCrossEntropyOptions::resolve_chunk(int64_t N, int64_t D, int64_t C,
                                                 ScalarType dtype) const {
  validate();
  std::string method = chunking_method_.value_or("");
  if (method == "auto") {
    if (batch_chunk_size_) return *batch_chunk_size_;  // an explicit size wins over "auto"
    method = is_16bit(dtype) ? kAspect : kAspect + ":2";
  }
  if (method.empty()) return batch_chunk_size_.value_or(std::max<int64_t>(N, 1));
  // The (chunk, C) logits buffer as large as the (N, D) input, halved k times more.
  const int64_t ratio =
      std::max<int64_t>(ceil_div(std::max<int64_t>(C, 1), std::max<int64_t>(D, 1)), 1);
  const int64_t size = std::max<int64_t>(
      next_pow2(ceil_div(std::max<int64_t>(N, 1), ratio)) / aspect_divisor(method), 1);
  EMBER_CHECK_VALUE(!batch_chunk_size_ || *batch_chunk_size_ == size, kOp,
                    " batch_chunk_size=", batch_chunk_size_.value_or(0),
                    " disagrees with chunking_method='", method, "', which gives ", size,
                    " for N=", N, ", D=", D, ", C=", C, "; give only one of them");
  return size;
}

std::string LinearCrossEntropyOptions::resolve_acc_policy(ScalarType dtype) const {
  validate();
  if (acc_policy_ != "auto") return acc_policy_;
  return is_16bit(dtype) ? "accurate" : "compact";
}

ScalarType LinearCrossEntropyOptions::resolve_acc_dtype(ScalarType dtype) const {
  validate();
  if (!acc_dtype_) return is_16bit(dtype) ? kFloat32 : dtype;
  const ScalarType a = *acc_dtype_;
  EMBER_CHECK_VALUE(a == dtype || (is_16bit(dtype) && a == kFloat32), kOp, " acc_dtype ",
                    dtype_name(a), " with a ", dtype_name(dtype),
                    " input: mixed precision needs a float16 or bfloat16 input with acc_dtype "
                    "float32");
  return a;
}

}  // namespace ember::nn
