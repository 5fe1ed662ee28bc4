#include "ember/autograd.h"

namespace ember {
namespace {
thread_local bool t_grad_enabled = true;
}  // namespace

bool is_grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool enabled) { t_grad_enabled = enabled; }
bool is_inference_mode_enabled() { return detail::inference_mode_tls(); }

InferenceMode::InferenceMode(bool enabled)
    : prev_grad_(is_grad_enabled()), prev_inference_(is_inference_mode_enabled()) {
  detail::inference_mode_tls() = enabled;
  set_grad_enabled(!enabled && prev_grad_);
}

InferenceMode::~InferenceMode() {
  detail::inference_mode_tls() = prev_inference_;
  set_grad_enabled(prev_grad_);
}

}  // namespace ember
