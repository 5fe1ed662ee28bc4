#pragma once
// DDP's gradient reducer (c10d's Reducer): parameters' gradients gathered into flat buckets, each
// bucket all-reduced asynchronously as soon as its last gradient is ready during backward. The
// user-facing wrapper is ember::nn::parallel::DistributedDataParallel
// (ember/nn/parallel/distributed.h); see Note [DDP buckets and overlap] in
// src/distributed/reducer.cpp.
#include <ember/core/tensor.h>
#include <ember/distributed/collectives.h>
#include <ember/distributed/process_group.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ember::distributed {

/// torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES: the first bucket DDP reduces is at most about
/// this large, so that communication starts early in backward.
constexpr size_t kDefaultFirstBucketBytes = 1024 * 1024;

/// c10d's compute_bucket_assignment_by_size: walks `tensors` in the order given and fills one
/// bucket per dtype; a bucket closes once it holds at least the current limit in bytes, and each
/// closed bucket of a dtype moves that dtype on to the next of `bucket_size_limits` (the last one
/// repeats). Returns the buckets, ordered by their first tensor's position, as lists of
/// `tensor_indices[position]` (positions themselves when tensor_indices is empty).
std::vector<std::vector<size_t>> compute_bucket_assignment_by_size(
    const std::vector<Tensor>& tensors, const std::vector<size_t>& bucket_size_limits,
    const std::vector<size_t>& tensor_indices = {});

/// c10d's GradBucket: what a communication hook reduces. buffer() is the bucket's flat contiguous
/// storage; gradients()[i] is the view of it that holds parameters()[i]'s gradient.
class GradBucket {
 public:
  GradBucket(size_t index, size_t num_buckets, Tensor buffer, std::vector<Tensor> gradients,
             std::vector<Tensor> parameters)
      : index_(index),
        num_buckets_(num_buckets),
        buffer_(std::move(buffer)),
        gradients_(std::move(gradients)),
        parameters_(std::move(parameters)) {}
  size_t index() const { return index_; }
  const Tensor& buffer() const { return buffer_; }
  const std::vector<Tensor>& gradients() const { return gradients_; }
  const std::vector<Tensor>& parameters() const { return parameters_; }
  /// Whether this is the last bucket of the iteration (the one reduced last).
  bool is_last() const { return index_ + 1 == num_buckets_; }

 private:
  size_t index_, num_buckets_;
  Tensor buffer_;
  std::vector<Tensor> gradients_, parameters_;
};

/// A communication hook (DDP's register_comm_hook): starts reducing bucket.buffer() and returns
/// the Work; once that Work's wait() returns, buffer() must hold the result (the default hook is
/// all_reduce(buffer, ReduceOp::AVG, group, /*async_op=*/true)).
using CommHook = std::function<WorkPtr(GradBucket& bucket)>;

class Reducer {
 public:
  /// `params`: the parameters that require gradients, in the module's order; `bucket_indices`:
  /// buckets of indices into params, in reduction order (every index exactly once, one dtype per
  /// bucket); `param_names` (optional) name parameters in error messages.
  Reducer(std::vector<Tensor> params, std::vector<std::vector<size_t>> bucket_indices,
          GroupPtr group, bool find_unused_parameters, bool gradient_as_bucket_view,
          std::vector<std::string> param_names = {});
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  /// Called before a forward whose backward will be reduced: raises RuntimeError (after waiting
  /// for what the unfinished iteration started) when the previous such backward did not reduce
  /// every bucket, i.e. some parameter received no gradient.
  void prepare_for_forward();
  /// Called after that forward: arms the hooks for the next backward. With find_unused_parameters,
  /// parameters that `outputs` do not depend on are marked ready (with zeros) once backward starts.
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  void register_comm_hook(CommHook hook);
  const std::vector<std::vector<size_t>>& bucket_indices() const { return bucket_indices_; }
  /// Buckets whose reduction started in the current or last iteration, in the order started.
  const std::vector<size_t>& launched_buckets() const { return launched_; }

 private:
  struct Bucket {
    Tensor buffer;
    std::vector<size_t> params;  // indices into params_
    std::vector<Tensor> views;   // views[j]: params_[params[j]]'s slice of buffer, shaped like it
    size_t pending = 0;
    WorkPtr work;
  };
  void autograd_hook(size_t index);
  void mark_ready(size_t index);
  void launch_ready_buckets();
  void finalize();
  void drain_works() noexcept;
  std::vector<size_t> unready_params() const;
  std::string describe_params(const std::vector<size_t>& indices) const;

  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  std::vector<std::vector<size_t>> bucket_indices_;
  GroupPtr group_;
  bool find_unused_, as_view_;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<size_t, size_t>> where_;  // param -> (bucket, position)
  std::vector<unsigned> hook_ids_;
  CommHook comm_hook_;

  std::mutex mutex_;
  bool expect_hooks_ = false, require_finalize_ = false, marked_unused_ = false;
  size_t next_bucket_ = 0;
  std::vector<bool> ready_;
  std::vector<int32_t> used_;     // locally used this iteration (find_unused_parameters)
  std::vector<size_t> unused_;    // not reachable from the outputs
  std::vector<size_t> launched_;  // bucket order of this iteration
};

}  // namespace ember::distributed
