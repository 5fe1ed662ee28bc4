// DDP's gradient reducer (include/ember/distributed/reducer.h).
//
// Note [DDP buckets and overlap]: gradients are reduced in flat buckets, in reverse parameter
// order (parameters defined last get their gradients first in backward), the first bucket small
// (kDefaultFirstBucketBytes) so that communication starts early; PyTorch reaches the same layout
// by rebuilding its buckets in gradient-ready order after the first iteration. A post-accumulate-
// grad hook on each parameter copies its gradient into the bucket (or, with
// gradient_as_bucket_view, makes .grad a view of it) and counts the bucket down; buckets start
// their asynchronous all_reduce strictly in bucket order, as soon as each and all before it are
// full, so every rank issues the same collectives in the same order while backward goes on
// computing. Ember's engine has no end-of-backward callback, so the hook that completes the last
// bucket waits for every bucket's Work and writes the averages back into .grad; that is the end
// of backward, since every parameter's gradient is in. With find_unused_parameters, parameters
// the forward outputs do not reach (found by walking the graph, as PyTorch does) are marked ready
// with zeros by the first hook, and .grad stays untouched for those unused on every rank.
#include <ember/autograd.h>
#include <ember/core/error.h>
#include <ember/distributed/reducer.h>
#include <ember/ops/factory.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>
#include <unordered_set>

namespace ember::distributed {

std::vector<std::vector<size_t>> compute_bucket_assignment_by_size(
    const std::vector<Tensor>& tensors, const std::vector<size_t>& bucket_size_limits,
    const std::vector<size_t>& tensor_indices) {
  EMBER_CHECK_VALUE(!bucket_size_limits.empty(),
                    "[compute_bucket_assignment_by_size] Expected at least one size limit");
  EMBER_CHECK_VALUE(tensor_indices.empty() || tensor_indices.size() == tensors.size(),
                    "[compute_bucket_assignment_by_size] got ", tensor_indices.size(),
                    " tensor indices for ", tensors.size(), " tensors");
  struct Open {
    std::vector<size_t> positions;
    size_t bytes = 0, limit = 0;
  };
  std::map<ScalarType, Open> open;
  std::vector<std::vector<size_t>> closed;  // positions
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK_VALUE(t.defined(), "[compute_bucket_assignment_by_size] tensor ", i,
                      " is undefined");
    Open& b = open[t.scalar_type()];
    b.positions.push_back(i);
    b.bytes += static_cast<size_t>(t.numel()) * t.element_size();
    if (b.bytes >= bucket_size_limits[std::min(b.limit, bucket_size_limits.size() - 1)]) {
      closed.push_back(std::move(b.positions));
      b.positions.clear();
      b.bytes = 0;
      ++b.limit;
    }
  }
  for (auto& [dtype, b] : open) {
    if (!b.positions.empty()) closed.push_back(std::move(b.positions));
  }
  std::sort(closed.begin(), closed.end(),
            [](const auto& a, const auto& b) { return a.front() < b.front(); });
  if (!tensor_indices.empty()) {
    for (auto& bucket : closed) {
      for (auto& p : bucket) p = tensor_indices[p];
    }
  }
  return closed;
}

Reducer::Reducer(std::vector<Tensor> params, std::vector<std::vector<size_t>> bucket_indices,
                 GroupPtr group, bool find_unused_parameters, bool gradient_as_bucket_view,
                 std::vector<std::string> param_names)
    : params_(std::move(params)),
      names_(std::move(param_names)),
      bucket_indices_(std::move(bucket_indices)),
      group_(std::move(group)),
      find_unused_(find_unused_parameters),
      as_view_(gradient_as_bucket_view) {
  EMBER_CHECK(!params_.empty(), "[Reducer] Expected at least one parameter.");
  EMBER_CHECK(group_ != nullptr, "[Reducer] Expected a process group");
  where_.assign(params_.size(), {SIZE_MAX, 0});
  NoGradGuard no_grad;
  for (size_t b = 0; b < bucket_indices_.size(); ++b) {
    const auto& idx = bucket_indices_[b];
    EMBER_CHECK(!idx.empty(), "[Reducer] bucket ", b, " is empty");
    Bucket bucket;
    int64_t numel = 0;
    for (size_t j = 0; j < idx.size(); ++j) {
      const size_t i = idx[j];
      EMBER_CHECK(i < params_.size() && where_[i].first == SIZE_MAX, "[Reducer] parameter index ",
                  i, " of bucket ", b, " is out of range or in more than one bucket");
      EMBER_CHECK(params_[i].scalar_type() == params_[idx[0]].scalar_type(), "[Reducer] bucket ", b,
                  " mixes dtypes ", dtype_name(params_[idx[0]].dtype()), " and ",
                  dtype_name(params_[i].dtype()));
      where_[i] = {b, j};
      numel += params_[i].numel();
    }
    bucket.buffer = zeros({numel}, TensorOptions().dtype(params_[idx[0]].scalar_type()));
    int64_t offset = 0;
    for (size_t i : idx) {
      Tensor& p = params_[i];
      bucket.views.push_back(bucket.buffer.narrow(0, offset, p.numel()).view(p.sizes()));
      offset += p.numel();
      // With gradient_as_bucket_view, an existing gradient moves into the bucket.
      if (as_view_ && p.grad().defined()) {
        bucket.views.back().copy_(p.grad());
        p.mutable_grad() = bucket.views.back();
      }
    }
    bucket.params = idx;
    buckets_.push_back(std::move(bucket));
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    EMBER_CHECK(where_[i].first != SIZE_MAX, "[Reducer] parameter ", i, " is in no bucket");
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    hook_ids_.push_back(params_[i].register_post_accumulate_grad_hook(
        [this, i](const Tensor&) { autograd_hook(i); }));
  }
}

Reducer::~Reducer() {
  // Works still running keep their buckets alive (the collective holds the tensor), so nothing
  // waits here: an iteration abandoned by an error must not block until the group's timeout.
  for (size_t i = 0; i < hook_ids_.size(); ++i) params_[i].remove_hook(hook_ids_[i]);
}

void Reducer::register_comm_hook(CommHook hook) {
  EMBER_CHECK(!comm_hook_, "[register_comm_hook] register_comm_hook can only be called once.");
  EMBER_CHECK_VALUE(static_cast<bool>(hook), "[register_comm_hook] the hook is empty");
  comm_hook_ = std::move(hook);
}

std::vector<size_t> Reducer::unready_params() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!ready_[i]) out.push_back(i);
  }
  return out;
}

std::string Reducer::describe_params(const std::vector<size_t>& indices) const {
  std::ostringstream s;
  for (size_t k = 0; k < indices.size(); ++k) s << (k ? " " : "") << indices[k];
  if (!names_.empty()) {
    s << " (";
    for (size_t k = 0; k < indices.size(); ++k) s << (k ? ", " : "") << names_[indices[k]];
    s << ")";
  }
  return s.str();
}

void Reducer::prepare_for_forward() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!require_finalize_) return;
  const std::vector<size_t> missing = unready_params();
  drain_works();
  expect_hooks_ = require_finalize_ = false;
  EMBER_THROW(
      RuntimeError,
      "[DistributedDataParallel] Expected to have finished reduction in the prior iteration "
      "before starting a new one. This error indicates that your module has parameters that were "
      "not used in producing loss. You can enable unused parameter detection by passing the "
      "keyword argument `find_unused_parameters=True` to DistributedDataParallel, and by making "
      "sure all `forward` function outputs participate in calculating loss.\nParameter indices "
      "which did not receive grad for rank ",
      group_->rank(), ": ", describe_params(missing));
}

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  std::lock_guard<std::mutex> lock(mutex_);
  expect_hooks_ = require_finalize_ = true;
  marked_unused_ = false;
  next_bucket_ = 0;
  ready_.assign(params_.size(), false);
  used_.assign(params_.size(), 0);
  launched_.clear();
  unused_.clear();
  for (auto& b : buckets_) {
    b.pending = b.params.size();
    b.work.reset();
  }
  if (!find_unused_) return;
  // Walk the graph from the outputs; a parameter whose gradient accumulator is not on it is unused.
  std::unordered_set<const autograd::Node*> seen;
  std::vector<std::shared_ptr<autograd::Node>> stack;
  for (const Tensor& t : outputs) {
    if (t.defined() && t.grad_fn() && seen.insert(t.grad_fn().get()).second) {
      stack.push_back(t.grad_fn());
    }
  }
  while (!stack.empty()) {
    auto n = std::move(stack.back());
    stack.pop_back();
    for (const auto& e : n->next_edges()) {
      if (e.is_valid() && seen.insert(e.function.get()).second) stack.push_back(e.function);
    }
  }
  AutoGradMode grad_mode(true);
  for (size_t i = 0; i < params_.size(); ++i) {
    // A view's only edge leads to the leaf's accumulator: the one in the graph if there is one.
    const Tensor probe = params_[i].expand_as(params_[i]);
    const auto& edges = probe.grad_fn()->next_edges();
    if (edges.empty() || !seen.count(edges[0].function.get())) unused_.push_back(i);
  }
}

void Reducer::autograd_hook(size_t index) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!expect_hooks_) return;  // no_sync(), or a backward of a forward run outside DDP
  if (find_unused_ && !marked_unused_) {
    marked_unused_ = true;
    for (size_t u : unused_) {
      if (u != index) mark_ready(u);
    }
  }
  used_[index] = 1;
  mark_ready(index);
}

void Reducer::mark_ready(size_t index) {
  EMBER_CHECK(!ready_[index],
              "[DistributedDataParallel] Expected to mark a variable ready only once. This error "
              "is caused by a parameter that received its gradient twice in one backward pass "
              "(e.g. reentrant backward, or a parameter used outside forward). Parameter: ",
              describe_params({index}));
  ready_[index] = true;
  auto [b, j] = where_[index];
  Bucket& bucket = buckets_[b];
  Tensor& param = params_[index];
  const Tensor& view = bucket.views[j];
  {
    NoGradGuard no_grad;
    const Tensor& grad = param.grad();
    if (!grad.defined()) {
      view.zero_();
    } else if (!(as_view_ && grad.data_ptr() == view.data_ptr())) {
      view.copy_(grad);
      if (as_view_) param.mutable_grad() = view;
    }
  }
  if (--bucket.pending == 0) launch_ready_buckets();
  if (next_bucket_ == buckets_.size()) finalize();
}

void Reducer::launch_ready_buckets() {
  for (; next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0; ++next_bucket_) {
    Bucket& bucket = buckets_[next_bucket_];
    launched_.push_back(next_bucket_);
    if (comm_hook_) {
      std::vector<Tensor> params;
      for (size_t i : bucket.params) params.push_back(params_[i]);
      GradBucket view(next_bucket_, buckets_.size(), bucket.buffer, bucket.views, params);
      bucket.work = comm_hook_(view);
      EMBER_CHECK(bucket.work != nullptr,
                  "[DistributedDataParallel] the communication hook "
                  "returned no Work for bucket ",
                  next_bucket_);
    } else {
      bucket.work = all_reduce(bucket.buffer, ReduceOp::AVG, group_, /*async_op=*/true);
    }
  }
}

void Reducer::drain_works() noexcept {
  for (auto& b : buckets_) {
    if (!b.work) continue;
    try {
      b.work->wait();
    } catch (...) {  // the iteration is being abandoned; its error is not the one to report
    }
    b.work.reset();
  }
}

void Reducer::finalize() {
  expect_hooks_ = false;
  std::exception_ptr error;
  for (auto& b : buckets_) {
    try {
      if (b.work) b.work->wait();
    } catch (...) {
      if (!error) error = std::current_exception();
    }
    b.work.reset();
  }
  require_finalize_ = false;
  if (error) std::rethrow_exception(error);
  std::vector<int32_t> used_anywhere;
  if (find_unused_) {
    Tensor used = tensor(used_);
    all_reduce(used, ReduceOp::MAX, group_);
    used_anywhere = used.tolist<int32_t>();
  }
  NoGradGuard no_grad;
  for (auto& bucket : buckets_) {
    for (size_t j = 0; j < bucket.params.size(); ++j) {
      const size_t i = bucket.params[j];
      if (find_unused_ && !used_anywhere[i]) continue;  // unused on every rank: .grad untouched
      Tensor& grad = params_[i].mutable_grad();
      if (as_view_) {
        grad = bucket.views[j];
      } else if (grad.defined()) {
        grad.copy_(bucket.views[j]);
      } else {
        grad = bucket.views[j].clone();
      }
    }
  }
}

}  // namespace ember::distributed
