#pragma once
// ember::distributed (alias ember::dist): stores, process groups and collectives, c10d's names.
//   #include <ember/distributed.h>
//   namespace dist = ember::distributed;
//   dist::init_process_group("gloo");       // env:// variables from `ember run`
//   dist::all_reduce(t);                     // SUM, in place, blocking
//   ember::nn::parallel::DistributedDataParallel ddp(model);   // data-parallel training
#include "ember/core/error.h"
#include "ember/distributed/collectives.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/reducer.h"
#include "ember/distributed/store.h"
#include "ember/distributed/work.h"
#include "ember/nn/parallel/distributed.h"

namespace ember {
namespace dist = distributed;
}  // namespace ember
