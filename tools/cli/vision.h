#pragma once
// The image classifiers of `ember train --model mlp|cnn` on 28×28 grey images (Fashion-MNIST).
#include <ember/nn.h>

#include <string>
#include <vector>

namespace ember::cli {

/// "mlp": Flatten, Linear(784, 256), ReLU, Linear(256, 10) (or as tuned).
/// "cnn": a small convolutional net sized to pass 85% test accuracy on the embedded
/// Fashion-MNIST subset within the default training budget on 2 cores:
///   [Conv2d(3×3, pad 1, no bias), BatchNorm2d, ReLU, MaxPool2d(2)] × 2 (16 then 32 channels),
///   Flatten, Linear(32·7·7, 128), ReLU, Linear(128, 10).
/// Input: float32 [N, 1, 28, 28], normalised as normalize_images(); output: logits [N, 10].
/// ValueError for another name.
nn::Sequential make_image_model(const std::string& kind);

/// uint8 [N, 28, 28] -> float32 [N, 1, 28, 28] scaled to [0, 1] then normalised with
/// Fashion-MNIST's mean 0.2860 and std 0.3530.
Tensor normalize_images(const Tensor& images);

/// The ten Fashion-MNIST class names ("T-shirt/top", "Trouser", ...).
const std::vector<std::string>& fashion_mnist_classes();

}  // namespace ember::cli
