#pragma once
// A scope in eval mode without gradients (validation, sampling): the module's training mode is
// restored when the scope ends, also when it ends by an exception.
#include <ember/autograd.h>
#include <ember/nn/module.h>

namespace ember::cli {

class Evaluating {
 public:
  explicit Evaluating(nn::Module& m) : module_(m), was_training_(m.is_training()) { m.eval(); }
  ~Evaluating() { module_.train(was_training_); }
  Evaluating(const Evaluating&) = delete;
  Evaluating& operator=(const Evaluating&) = delete;

 private:
  NoGradGuard no_grad_;
  nn::Module& module_;
  bool was_training_;
};

}  // namespace ember::cli
