#pragma once
// Optimizers and learning-rate schedulers (torch.optim, libtorch's torch/optim.h).
#include "ember/optim/adagrad.h"
#include "ember/optim/adam.h"
#include "ember/optim/adamw.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/rmsprop.h"
#include "ember/optim/sgd.h"
