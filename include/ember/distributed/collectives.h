#pragma once
// Collectives and point-to-point operations with torch.distributed's names, arguments and
// defaults. `group` null means the default group; ranks given as src/dst are global ranks, as in
// c10d. Each call returns a Work: completed already when async_op is false, running on the
// group's thread (in issue order) when it is true. Tensors are CPU tensors of any dtype;
// non-contiguous ones are staged through a contiguous copy and written back. Before the data
// moves, the ranks compare what each was asked to do (operation, dtype, sizes, root), so a
// mismatch raises RuntimeError on every rank instead of hanging. A peer that never arrives gives
// DistTimeoutError after the group's timeout. A rank outside `group` gets a completed Work and
// no change.
#include <ember/core/tensor.h>
#include <ember/distributed/process_group.h>
#include <ember/distributed/work.h>

#include <memory>
#include <vector>

namespace ember::distributed {

using WorkPtr = std::shared_ptr<Work>;

/// Reduces `tensor` across the group, in place on every rank.
WorkPtr all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::SUM,
                   const GroupPtr& group = nullptr, bool async_op = false);
/// Copies rank `src`'s tensor into every rank's.
WorkPtr broadcast(const Tensor& tensor, int64_t src, const GroupPtr& group = nullptr,
                  bool async_op = false);
/// Reduces into `tensor` on rank `dst` (the others' tensors are inputs and may be overwritten).
WorkPtr reduce(const Tensor& tensor, int64_t dst, ReduceOp op = ReduceOp::SUM,
               const GroupPtr& group = nullptr, bool async_op = false);
/// tensor_list[r] receives rank r's tensor.
WorkPtr all_gather(const std::vector<Tensor>& tensor_list, const Tensor& tensor,
                   const GroupPtr& group = nullptr, bool async_op = false);
/// output: world_size times input's elements (concatenated or stacked along dim 0).
WorkPtr all_gather_into_tensor(const Tensor& output_tensor, const Tensor& input_tensor,
                               const GroupPtr& group = nullptr, bool async_op = false);
/// output receives the reduction of every rank's input_list[rank].
WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& input_list,
                       ReduceOp op = ReduceOp::SUM, const GroupPtr& group = nullptr,
                       bool async_op = false);
/// input: world_size times output's elements; output receives the reduction of this rank's block.
WorkPtr reduce_scatter_tensor(const Tensor& output, const Tensor& input,
                              ReduceOp op = ReduceOp::SUM, const GroupPtr& group = nullptr,
                              bool async_op = false);
/// Splits input along dim 0 (input_split_sizes, or equally), sends block r to rank r, and
/// concatenates what arrives into output (output_split_sizes, or equally).
WorkPtr all_to_all_single(const Tensor& output, const Tensor& input,
                          const std::vector<int64_t>& output_split_sizes = {},
                          const std::vector<int64_t>& input_split_sizes = {},
                          const GroupPtr& group = nullptr, bool async_op = false);
/// input_tensor_list[r] goes to rank r; output_tensor_list[r] comes from it.
WorkPtr all_to_all(const std::vector<Tensor>& output_tensor_list,
                   const std::vector<Tensor>& input_tensor_list, const GroupPtr& group = nullptr,
                   bool async_op = false);
/// gather_list (on dst only; empty elsewhere) receives every rank's tensor.
WorkPtr gather(const Tensor& tensor, const std::vector<Tensor>& gather_list = {}, int64_t dst = 0,
               const GroupPtr& group = nullptr, bool async_op = false);
/// tensor receives scatter_list[rank] of rank src (scatter_list is empty elsewhere).
WorkPtr scatter(const Tensor& tensor, const std::vector<Tensor>& scatter_list = {}, int64_t src = 0,
                const GroupPtr& group = nullptr, bool async_op = false);
WorkPtr barrier(const GroupPtr& group = nullptr, bool async_op = false);

/// Blocking point-to-point. recv with src -1 takes the first sender and returns its rank.
void send(const Tensor& tensor, int64_t dst, const GroupPtr& group = nullptr, int64_t tag = 0);
int64_t recv(const Tensor& tensor, int64_t src = -1, const GroupPtr& group = nullptr,
             int64_t tag = 0);
WorkPtr isend(const Tensor& tensor, int64_t dst, const GroupPtr& group = nullptr, int64_t tag = 0);
WorkPtr irecv(const Tensor& tensor, int64_t src = -1, const GroupPtr& group = nullptr,
              int64_t tag = 0);

/// One operation of batch_isend_irecv (torch.distributed.P2POp).
struct P2POp {
  enum class Kind { ISEND, IRECV };
  P2POp(Kind op, Tensor tensor, int64_t peer, GroupPtr group = nullptr, int64_t tag = 0)
      : op(op), tensor(std::move(tensor)), peer(peer), group(std::move(group)), tag(tag) {}
  Kind op;
  Tensor tensor;
  int64_t peer;
  GroupPtr group;
  int64_t tag;
};
/// Starts every operation, then returns their Works (in the order given).
std::vector<WorkPtr> batch_isend_irecv(const std::vector<P2POp>& p2p_op_list);

}  // namespace ember::distributed
