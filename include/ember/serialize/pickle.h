#pragma once
// PyTorch checkpoints: the files torch.save writes (a zip archive holding `data.pkl`, a pickle,
// and one raw entry per storage under `data/`), read through a restricted unpickler. Only what a
// checkpoint needs is accepted: tensors and parameters (torch._utils._rebuild_tensor_v2 and
// friends, on torch.*Storage), dict, collections.OrderedDict, list, tuple, set, torch.Size,
// bytes, and int/float/bool/str/None. Any other global is rejected with an error that names it;
// nothing in the file is ever executed.
//
//   ember::IValue ckpt = ember::pickle_load_file("checkpoint.pt");
//   int64_t epoch = ckpt.at("epoch").toInt();
//   model->load_state_dict(ckpt.at("model").to_state_dict());
//   // or, for a file holding a state dict: model->load_state_dict(ember::load("model.pt"));
#include <string>
#include <vector>

#include "ember/core/ivalue.h"

namespace ember {

/// libtorch's torch::pickle_load: the object of a torch.save file given as its bytes. Tensors come
/// back on the CPU (torch.load's map_location="cpu"), sharing storage where the saved tensors did.
/// Malformed or hostile files raise ValueError naming the problem (NotImplementedError for valid
/// files Ember cannot represent, e.g. complex dtypes).
IValue pickle_load(const std::vector<char>& data);
/// The same from a file; I/O failures raise RuntimeError naming the path.
IValue pickle_load_file(const std::string& path);

}  // namespace ember
