// DistributedDataParallel's module-independent part (include/ember/nn/parallel/distributed.h):
// the cross-rank model check, the broadcasts from rank 0, the bucket layout and the per-forward
// bookkeeping. The gradient reduction itself is the Reducer's (src/distributed/reducer.cpp).
#include <ember/autograd.h>
#include <ember/core/error.h>
#include <ember/nn/parallel/distributed.h>
#include <ember/ops/factory.h>
#include <ember/ops/shape.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace ember::nn::parallel {
namespace dist = ember::distributed;

namespace {

constexpr const char* kOp = "[DistributedDataParallel] ";

std::string sizes_str(const int64_t* sizes, int64_t ndim) {
  std::ostringstream s;
  s << "[";
  for (int64_t d = 0; d < ndim; ++d) s << (d ? ", " : "") << sizes[d];
  s << "]";
  return s.str();
}

// Every rank's values of `local` (the same length everywhere), rank after rank.
std::vector<int64_t> gather_all(const std::vector<int64_t>& local, const dist::GroupPtr& group) {
  const auto n = static_cast<int64_t>(local.size());
  Tensor out = empty({group->size() * n}, kInt64);
  if (n > 0) dist::all_gather_into_tensor(out, tensor(local), group);
  return out.tolist<int64_t>();
}

// c10d's verify_params_across_processes, except that a mismatch is an error on every rank (each
// sees every rank's description): first the parameter counts, then each parameter's dtype, rank
// and element count, then the sizes themselves.
void verify_params_across_processes(const std::vector<Tensor>& params,
                                    const std::vector<std::string>& names,
                                    const dist::GroupPtr& group) {
  const int64_t world = group->size(), me = group->rank();
  const auto n = static_cast<int64_t>(params.size());
  const std::vector<int64_t> counts = gather_all({n}, group);
  for (int64_t r = 0; r < world; ++r) {
    EMBER_CHECK(counts[r] == n, kOp, "DDP expects same model across all ranks, but Rank ", me,
                " has ", n, " params, while rank ", r, " has inconsistent ", counts[r], " params.");
  }
  std::vector<int64_t> meta, sizes;
  for (const Tensor& p : params) {
    meta.insert(meta.end(), {static_cast<int64_t>(p.scalar_type()), p.dim(), p.numel()});
    sizes.insert(sizes.end(), p.sizes().begin(), p.sizes().end());
  }
  const std::vector<int64_t> all_meta = gather_all(meta, group);
  for (int64_t r = 1; r < world; ++r) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t* theirs = &all_meta[static_cast<size_t>((r * n + i) * 3)];
      const int64_t* first = &all_meta[static_cast<size_t>(i * 3)];
      EMBER_CHECK(theirs[0] == first[0], kOp, "params[", i, "] (", names[i], ") in process ", r,
                  " has dtype ", dtype_name(static_cast<ScalarType>(theirs[0])),
                  ", which appears not to match the dtype ",
                  dtype_name(static_cast<ScalarType>(first[0])),
                  " of the same param in process 0 (error raised on rank ", me, ").");
      EMBER_CHECK(theirs[1] == first[1] && theirs[2] == first[2], kOp, "params[", i, "] (",
                  names[i], ") in process ", r, " with ", theirs[1], " dims and ", theirs[2],
                  " elements appears not to match sizes of the same param in process 0 (", first[1],
                  " dims, ", first[2], " elements; error raised on rank ", me, ").");
    }
  }
  const std::vector<int64_t> all_sizes = gather_all(sizes, group);
  const auto per_rank = static_cast<int64_t>(sizes.size());
  for (int64_t r = 1; r < world; ++r) {
    int64_t at = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t ndim = params[i].dim();
      const int64_t* theirs = &all_sizes[static_cast<size_t>(r * per_rank + at)];
      const int64_t* first = &all_sizes[static_cast<size_t>(at)];
      EMBER_CHECK(std::equal(theirs, theirs + ndim, first), kOp, "params[", i, "] (", names[i],
                  ") in process ", r, " with sizes ", sizes_str(theirs, ndim),
                  " appears not to match sizes of the same param in process 0 (",
                  sizes_str(first, ndim), "; error raised on rank ", me, ").");
      at += ndim;
    }
  }
}

// Copies the group's first rank's values into `tensors` on every rank, one broadcast per dtype.
void broadcast_coalesced(const std::vector<Tensor>& tensors, const dist::GroupPtr& group) {
  std::map<ScalarType, std::vector<Tensor>> by_dtype;
  for (const Tensor& t : tensors) {
    if (t.defined() && t.numel() > 0) by_dtype[t.scalar_type()].push_back(t);
  }
  NoGradGuard no_grad;
  const int64_t src = group->ranks()[0];
  for (auto& [dtype, ts] : by_dtype) {
    std::vector<Tensor> flat;
    for (const Tensor& t : ts) flat.push_back(t.detach().reshape({-1}));
    Tensor buffer = cat(flat);
    dist::broadcast(buffer, src, group);
    int64_t offset = 0;
    for (const Tensor& t : ts) {
      t.detach().copy_(buffer.narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

}  // namespace

DistributedDataParallelBase::DistributedDataParallelBase(std::shared_ptr<Module> module,
                                                         DistributedDataParallelOptions options)
    : options_(std::move(options)) {
  EMBER_CHECK_VALUE(module != nullptr, kOp, "Expected a module, got nullptr");
  EMBER_CHECK_VALUE(options_.bucket_cap_mb() > 0, kOp, "bucket_cap_mb must be positive, got ",
                    options_.bucket_cap_mb());
  group_ = options_.process_group() ? options_.process_group() : dist::get_default_group();
  EMBER_CHECK_VALUE(group_->is_member(), kOp,
                    "this process is not a member of the given process group");
  std::vector<Tensor> params;
  std::vector<std::string> names;
  std::set<const TensorImpl*> seen;  // a tied parameter is reduced once, under its first name
  for (const auto& item : module->named_parameters()) {
    if (!item.value().requires_grad() || !seen.insert(item.value().unsafeGetTensorImpl()).second) {
      continue;
    }
    names.push_back(item.key());
    params.push_back(item.value());
  }
  EMBER_CHECK(!params.empty(), kOp,
              "DistributedDataParallel is not needed when a module doesn't have any parameter "
              "that requires a gradient.");
  verify_params_across_processes(params, names, group_);

  // _sync_module_states: every parameter (trainable or not) and buffer from rank 0.
  buffers_ = module->buffers();
  std::vector<Tensor> state = module->parameters();
  state.insert(state.end(), buffers_.begin(), buffers_.end());
  broadcast_coalesced(state, group_);

  // Note [DDP buckets and overlap]: reverse order, a small first bucket.
  const auto cap = static_cast<size_t>(options_.bucket_cap_mb() * 1024 * 1024);
  std::vector<Tensor> reversed(params.rbegin(), params.rend());
  std::vector<size_t> indices(params.size());
  for (size_t k = 0; k < indices.size(); ++k) indices[k] = params.size() - 1 - k;
  auto buckets = dist::compute_bucket_assignment_by_size(
      reversed, {std::min(dist::kDefaultFirstBucketBytes, cap), cap}, indices);
  reducer_ = std::make_unique<dist::Reducer>(std::move(params), std::move(buckets), group_,
                                             options_.find_unused_parameters(),
                                             options_.gradient_as_bucket_view(), std::move(names));
}

DistributedDataParallelBase::~DistributedDataParallelBase() = default;

void DistributedDataParallelBase::register_comm_hook(distributed::CommHook hook) {
  reducer_->register_comm_hook(std::move(hook));
}

const std::vector<std::vector<size_t>>& DistributedDataParallelBase::bucket_indices() const {
  return reducer_->bucket_indices();
}

const std::vector<size_t>& DistributedDataParallelBase::launched_buckets() const {
  return reducer_->launched_buckets();
}

void DistributedDataParallelBase::pre_forward() {
  if (is_grad_enabled() && require_backward_grad_sync_) reducer_->prepare_for_forward();
  if (options_.broadcast_buffers() && !buffers_.empty() && require_forward_param_sync_) {
    broadcast_coalesced(buffers_, group_);
  }
}

void DistributedDataParallelBase::post_forward(const std::vector<Tensor>& outputs) {
  require_forward_param_sync_ = is_grad_enabled() && require_backward_grad_sync_;
  if (require_forward_param_sync_) reducer_->prepare_for_backward(outputs);
}

}  // namespace ember::nn::parallel
