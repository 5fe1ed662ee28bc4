#pragma once
// Options of the distance functions (torch/nn/options/distance.h).
#include <cstdint>

#include "ember/nn/arg.h"

namespace ember::nn {

struct CosineSimilarityOptions {
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-8;
};

struct PairwiseDistanceOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, keepdim) = false;
};

namespace functional {
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
}  // namespace functional

}  // namespace ember::nn
