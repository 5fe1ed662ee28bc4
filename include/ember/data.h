#pragma once
// Data loading: PyTorch's torch.utils.data (Dataset, TensorDataset, DataLoader) and libtorch's
// torch::data (datasets, transforms, samplers, make_data_loader), plus IDX and text readers.
#include "ember/data/dataloader.h"
#include "ember/data/dataloader_options.h"
#include "ember/data/dataset.h"
#include "ember/data/datasets.h"
#include "ember/data/example.h"
#include "ember/data/readers.h"
#include "ember/data/samplers.h"
#include "ember/data/transforms.h"
