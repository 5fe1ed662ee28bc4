#pragma once
// torch.nn.parallel.DistributedDataParallel: data-parallel training of one module replica per
// process. Rank 0's parameters and buffers are broadcast at construction; during backward,
// gradients are averaged across the process group in buckets whose all_reduce overlaps the rest
// of backward (Note [DDP buckets and overlap] in src/distributed/reducer.cpp).
//   dist::init_process_group("gloo");
//   ember::nn::parallel::DistributedDataParallel ddp(model);   // model: a holder or shared_ptr
//   auto loss = ember::nn::functional::mse_loss(ddp(x), y);
//   loss.backward();                                            // .grad holds the average
//   { auto guard = ddp.no_sync(); ddp(x2).sum().backward(); }   // accumulates locally
#include <ember/distributed/process_group.h>
#include <ember/distributed/reducer.h>
#include <ember/nn/arg.h>
#include <ember/nn/module.h>

#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace ember::nn::parallel {

struct DistributedDataParallelOptions {
  /// Gradient bucket size in MiB (the first bucket is at most kDefaultFirstBucketBytes, or this).
  EMBER_ARG(double, bucket_cap_mb) = 25;
  /// Walk the autograd graph after each forward and reduce zeros for parameters it does not reach.
  EMBER_ARG(bool, find_unused_parameters) = false;
  /// Make each .grad a view into its bucket (saves a copy and the memory of the gradients).
  EMBER_ARG(bool, gradient_as_bucket_view) = false;
  /// Broadcast rank 0's buffers before every synchronised forward.
  EMBER_ARG(bool, broadcast_buffers) = true;
  /// The group to reduce over; null: the default group.
  EMBER_ARG(distributed::GroupPtr, process_group) = nullptr;
};

/// Everything of DistributedDataParallel that does not depend on the module's type.
class DistributedDataParallelBase {
 public:
  /// Restores the previous gradient synchronisation setting when it goes out of scope.
  class NoSyncGuard {
   public:
    explicit NoSyncGuard(DistributedDataParallelBase& ddp)
        : ddp_(ddp), prev_(ddp.require_backward_grad_sync_) {
      ddp.require_backward_grad_sync_ = false;
    }
    ~NoSyncGuard() { ddp_.require_backward_grad_sync_ = prev_; }
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    DistributedDataParallelBase& ddp_;
    bool prev_;
  };

  DistributedDataParallelBase(std::shared_ptr<Module> module,
                              DistributedDataParallelOptions options);
  virtual ~DistributedDataParallelBase();
  DistributedDataParallelBase(const DistributedDataParallelBase&) = delete;
  DistributedDataParallelBase& operator=(const DistributedDataParallelBase&) = delete;

  /// Forwards run while the guard lives accumulate their gradients locally, without
  /// communication; the next forward+backward outside it reduces the accumulated sums.
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(*this); }
  /// Replaces the bucket all_reduce (at most once, before the first backward).
  void register_comm_hook(distributed::CommHook hook);
  /// The buckets, as indices into the module's parameters that require grad, in reduction order.
  const std::vector<std::vector<size_t>>& bucket_indices() const;
  /// The buckets whose reduction the last synchronised backward started, in the order started.
  const std::vector<size_t>& launched_buckets() const;
  const DistributedDataParallelOptions& options() const { return options_; }
  const distributed::GroupPtr& process_group() const { return group_; }
  bool require_backward_grad_sync() const { return require_backward_grad_sync_; }

 protected:
  /// Before the module's forward: the checks of the prior iteration, the buffer broadcast.
  void pre_forward();
  /// After it: arms the gradient hooks when this forward's backward is to be synchronised.
  void post_forward(const std::vector<Tensor>& outputs);

 private:
  DistributedDataParallelOptions options_;
  distributed::GroupPtr group_;
  std::vector<Tensor> buffers_;
  std::unique_ptr<distributed::Reducer> reducer_;
  bool require_backward_grad_sync_ = true;
  bool require_forward_param_sync_ = true;
};

namespace detail {
// The tensors of a forward's result (PyTorch's _find_tensors), for find_unused_parameters.
inline void find_tensors(const Tensor& t, std::vector<Tensor>& out);
template <typename T>
void find_tensors(const std::vector<T>& v, std::vector<Tensor>& out);
template <typename A, typename B>
void find_tensors(const std::pair<A, B>& p, std::vector<Tensor>& out);
template <typename... T>
void find_tensors(const std::tuple<T...>& t, std::vector<Tensor>& out);
template <typename T>
void find_tensors(const T&, std::vector<Tensor>&) {}

inline void find_tensors(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
template <typename T>
void find_tensors(const std::vector<T>& v, std::vector<Tensor>& out) {
  for (const auto& x : v) find_tensors(x, out);
}
template <typename A, typename B>
void find_tensors(const std::pair<A, B>& p, std::vector<Tensor>& out) {
  find_tensors(p.first, out);
  find_tensors(p.second, out);
}
template <typename... T>
void find_tensors(const std::tuple<T...>& t, std::vector<Tensor>& out) {
  std::apply([&](const auto&... x) { (find_tensors(x, out), ...); }, t);
}
}  // namespace detail

/// Wraps a module of type M (a shared_ptr, or a holder such as nn::Linear or nn::Sequential).
/// Tensors found in forward's result (a Tensor, or vectors, pairs and tuples of them) are what
/// find_unused_parameters walks the graph from.
template <typename M>
class DistributedDataParallel : public DistributedDataParallelBase {
 public:
  explicit DistributedDataParallel(std::shared_ptr<M> module,
                                   DistributedDataParallelOptions options = {})
      : DistributedDataParallelBase(module, std::move(options)), module_(std::move(module)) {}
  template <typename H, typename = std::enable_if_t<std::is_same_v<typename H::ContainedType, M>>>
  explicit DistributedDataParallel(const H& holder, DistributedDataParallelOptions options = {})
      : DistributedDataParallel(holder.ptr(), std::move(options)) {}

  const std::shared_ptr<M>& module() const { return module_; }

  template <typename... Args>
  auto forward(Args&&... args) {
    pre_forward();
    auto out = module_->forward(std::forward<Args>(args)...);
    std::vector<Tensor> tensors;
    if (options().find_unused_parameters()) detail::find_tensors(out, tensors);
    post_forward(tensors);
    return out;
  }
  template <typename... Args>
  auto operator()(Args&&... args) {
    return forward(std::forward<Args>(args)...);
  }

 private:
  std::shared_ptr<M> module_;
};

template <typename M>
DistributedDataParallel(std::shared_ptr<M>) -> DistributedDataParallel<M>;
template <typename M>
DistributedDataParallel(std::shared_ptr<M>, DistributedDataParallelOptions)
    -> DistributedDataParallel<M>;
template <typename H, typename = typename H::ContainedType>
DistributedDataParallel(const H&) -> DistributedDataParallel<typename H::ContainedType>;
template <typename H, typename = typename H::ContainedType>
DistributedDataParallel(const H&, DistributedDataParallelOptions)
    -> DistributedDataParallel<typename H::ContainedType>;

}  // namespace ember::nn::parallel
