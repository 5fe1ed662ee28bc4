#pragma once
// ember::nn::functional (libtorch's torch::nn::functional). Typical use:
//   namespace F = ember::nn::functional;
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/functional/pixelshuffle.h"
#include "ember/nn/functional/pooling.h"
#include "ember/nn/functional/upsampling.h"
