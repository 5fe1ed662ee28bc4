#pragma once
// <torch/torch.h> for libtorch programs built against Ember: the TorchConfig.cmake that Ember
// installs puts this folder on the include path (it is not on it otherwise, so a real libtorch
// installed beside Ember is never shadowed).
#include "ember/torch.h"
