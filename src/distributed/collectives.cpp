// The collectives' front: argument checks on the caller's thread, then one task on the group's
// thread that (1) compares what every rank was asked to do, (2) moves contiguous buffers through
// the backend, (3) writes results back into the caller's tensors. See collectives.h.
#include <ember/autograd.h>
#include <ember/core/error.h>
#include <ember/distributed/collectives.h>
#include <ember/ops/factory.h>

#include <cstring>

#include "distributed/backend.h"

namespace ember::distributed {
namespace {

using detail::Backend;

enum class Kind : int32_t {
  kAllReduce,
  kBroadcast,
  kReduce,
  kAllGather,
  kAllGatherIntoTensor,
  kReduceScatter,
  kReduceScatterTensor,
  kAllToAllSingle,
  kAllToAll,
  kGather,
  kScatter,
  kBarrier
};

const char* kind_name(int32_t k) {
  static const char* const names[] = {"all_reduce",
                                      "broadcast",
                                      "reduce",
                                      "all_gather",
                                      "all_gather_into_tensor",
                                      "reduce_scatter",
                                      "reduce_scatter_tensor",
                                      "all_to_all_single",
                                      "all_to_all",
                                      "gather",
                                      "scatter",
                                      "barrier"};
  return k >= 0 && k < 12 ? names[k] : "?";
}

// Note [Records]: what a rank was asked to do (its Header). Ranks exchange these before any data
// moves, so that a mismatch is an error on every rank rather than a hang or garbage; a peer that
// never arrives is a DistTimeoutError there. The exchange sends each peer one record straight
// away (Backend::exchange), so it costs one message latency, and data that fits the record rides
// along: an all_reduce that small is then finished by every rank reducing every rank's copy
// itself, in rank order (bitwise the same result everywhere), one message latency in all where
// the engine's algorithm takes log2(size) rounds or more. Every rank decides alike whether the
// data rides along (the capacity is the group's), and a rank that decided otherwise sent a
// different header.
struct Header {
  int32_t kind = 0, dtype = -1, op = -1, pad = 0;
  int64_t root = -1, numel = -1, extra = -1;
};
// Where data riding in a record starts (aligned for every dtype's vector loads).
constexpr size_t kPayloadAt = 64;
static_assert(sizeof(Header) <= kPayloadAt);

std::string describe(const Header& h) {
  std::string s = std::string(kind_name(h.kind)) + "(";
  if (h.dtype >= 0) s += std::string("dtype=") + dtype_name(static_cast<ScalarType>(h.dtype));
  if (h.numel >= 0) s += ", numel=" + std::to_string(h.numel);
  if (h.op >= 0) s += std::string(", op=") + reduce_op_name(static_cast<ReduceOp>(h.op));
  if (h.root >= 0) s += ", root=" + std::to_string(h.root);
  if (h.extra >= 0) s += ", row_numel=" + std::to_string(h.extra);
  return s + ")";
}

Header header(Kind kind, ScalarType dtype, int64_t numel, int64_t root = -1, int op = -1,
              int64_t extra = -1) {
  Header h;
  h.kind = static_cast<int32_t>(kind);
  h.dtype = static_cast<int32_t>(dtype);
  h.numel = numel;
  h.root = root;
  h.op = op;
  h.extra = extra;
  return h;
}

// Sends this rank's header, with `bytes` of `data` riding along (they must fit: rides_along), and
// checks every rank's header against rank 0's. Returns every rank's record.
const std::vector<const char*>& agree(Backend& b, int64_t size, const Header& mine,
                                      const void* data = nullptr, size_t bytes = 0) {
  const size_t record = bytes ? kPayloadAt + bytes : sizeof(Header);
  char* out = b.record_out(record);
  std::memcpy(out, &mine, sizeof(Header));
  if (bytes) std::memcpy(out + kPayloadAt, data, bytes);
  const auto& all = b.exchange(kind_name(mine.kind), record);
  for (int64_t r = 1; r < size; ++r) {
    if (std::memcmp(all[r], all[0], sizeof(Header)) == 0) continue;
    Header first, other;
    std::memcpy(&first, all[0], sizeof(Header));
    std::memcpy(&other, all[r], sizeof(Header));
    EMBER_THROW(RuntimeError, "[", kind_name(mine.kind),
                "] Detected mismatch between collectives on ranks. Rank 0 is running collective: ",
                describe(first), ", but Rank ", r, " is running collective: ", describe(other));
  }
  return all;
}

bool rides_along(const Backend& b, size_t bytes) {
  return kPayloadAt + bytes <= b.record_capacity();
}

// all_reduce of `n` elements at `data` under `h`: in the records when they fit (Note [Records]),
// otherwise by the backend after the agreement.
void reduce_all(Backend& b, int64_t size, const Header& h, void* data, int64_t n, ScalarType dtype,
                ReduceOp op) {
  const size_t bytes = static_cast<size_t>(n) * static_cast<size_t>(element_size(dtype));
  if (!rides_along(b, bytes)) {
    agree(b, size, h);
    if (n) b.allreduce(data, static_cast<size_t>(n), dtype, op);
    return;
  }
  const auto& all = agree(b, size, h, data, bytes);
  if (!n || size == 1) return;
  // Every rank's copy, this rank's included, is in a record: none aliases `data`.
  const auto fn = detail::reduce_function(dtype, op, kind_name(h.kind));
  const auto at = [&](int64_t r) { return all[static_cast<size_t>(r)] + kPayloadAt; };
  fn(data, at(0), at(1), static_cast<size_t>(n));
  for (int64_t r = 2; r < size; ++r) fn(data, data, at(r), static_cast<size_t>(n));
}

// A tensor and the contiguous buffer the backend reads and writes (the tensor itself when it is
// contiguous; otherwise a copy, written back afterwards).
struct Staged {
  Tensor user, buf;
  bool copied = false;
  void* data() const { return buf.numel() ? buf.data_ptr() : nullptr; }
  size_t bytes() const { return static_cast<size_t>(buf.numel() * buf.element_size()); }
  void write_back() const {
    if (!copied) return;
    NoGradGuard no_grad;
    Tensor target = user;  // a handle: copying it does not copy the data
    target.copy_(buf);
  }
};

Tensor buffer(int64_t numel, ScalarType dtype) {
  return empty({numel}, TensorOptions().dtype(dtype));
}

Staged stage(const Tensor& t, bool force_copy = false) {
  Staged s;
  // A contiguous tensor is itself the buffer: no view (a detach costs more than a small
  // collective).
  if (!force_copy && t.is_contiguous()) {
    s.buf = t;
    return s;
  }
  NoGradGuard no_grad;
  s.user = t.detach();
  s.buf = empty(s.user.sizes(), TensorOptions().dtype(t.dtype()));
  s.buf.copy_(s.user);
  s.copied = true;
  return s;
}

// Copies contiguous bytes into a tensor of any layout, and back.
void copy_into(const Tensor& dst, const void* src) {
  NoGradGuard no_grad;
  const size_t bytes = static_cast<size_t>(dst.numel() * dst.element_size());
  if (!bytes) return;
  if (dst.is_contiguous()) {
    std::memcpy(dst.data_ptr(), src, bytes);
    return;
  }
  Tensor tmp = empty(dst.sizes(), TensorOptions().dtype(dst.dtype()));
  std::memcpy(tmp.data_ptr(), src, bytes);
  dst.detach().copy_(tmp);
}

void copy_out(const Tensor& src, void* dst) {
  NoGradGuard no_grad;
  const size_t bytes = static_cast<size_t>(src.numel() * src.element_size());
  if (!bytes) return;
  Tensor c = src.detach().contiguous();
  std::memcpy(dst, c.data_ptr(), bytes);
}

void check_tensor(const Tensor& t, const char* api, const char* what = "tensor") {
  EMBER_CHECK_VALUE(t.defined(), "[", api, "] ", what, " is an undefined tensor");
  EMBER_CHECK_NOT_IMPL(t.device().is_cpu(), "[", api, "] ", what,
                       " must be a CPU tensor for the gloo and mpi backends, got ", t.device());
  EMBER_CHECK_TYPE(is_implemented(t.dtype()), "[", api, "] dtype ", dtype_name(t.dtype()),
                   " is not supported");
}

void check_list(const std::vector<Tensor>& list, const Tensor& like, int64_t size, const char* api,
                const char* what) {
  EMBER_CHECK_VALUE(static_cast<int64_t>(list.size()) == size, "[", api, "] ", what,
                    " must hold world_size (", size, ") tensors, got ", list.size());
  for (const auto& t : list) {
    check_tensor(t, api, what);
    EMBER_CHECK_TYPE(t.dtype() == like.dtype(), "[", api, "] ", what,
                     " tensors must all have dtype ", dtype_name(like.dtype()), ", got ",
                     dtype_name(t.dtype()));
    EMBER_CHECK_VALUE(t.numel() == like.numel(), "[", api, "] ", what, " tensors must have ",
                      like.numel(), " elements like the tensor, got ", t.numel());
  }
}

void check_op(ScalarType dtype, ReduceOp op, const char* api) {
  EMBER_CHECK_TYPE(!(op == ReduceOp::AVG && dtype == kBool), "[", api,
                   "] ReduceOp.AVG needs a numeric tensor, got ", dtype_name(dtype));
  detail::reduce_function(dtype, op, api);  // TypeError for bitwise ops on floats
}

ReduceOp backend_op(ReduceOp op) { return op == ReduceOp::AVG ? ReduceOp::SUM : op; }

// AVG: the sum divided by the group's size (integers truncate, as NCCL's average does).
void finish_avg(void* data, int64_t numel, ScalarType dtype, ReduceOp op, int64_t size) {
  if (op != ReduceOp::AVG) return;
  visit_dtype(dtype, "all_reduce", [&](auto tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (!std::is_same_v<T, bool>) {
      auto* p = static_cast<T*>(data);
      for (int64_t i = 0; i < numel; ++i) {
        if constexpr (std::is_integral_v<T>)
          p[i] = static_cast<T>(p[i] / static_cast<T>(size));
        else
          p[i] = static_cast<T>(static_cast<double>(p[i]) / static_cast<double>(size));
      }
    }
  });
}

GroupPtr group_for(const GroupPtr& g) { return g ? g : get_default_group(); }

WorkPtr done_work(const char* op) {
  auto w = std::make_shared<Work>(op);
  w->finish();
  return w;
}

template <typename F>
WorkPtr run(const GroupPtr& g, const char* op, bool async_op, F fn) {
  WorkPtr w;
  if (!async_op) {
    auto call = [](void* f, Backend& b) { (*static_cast<F*>(f))(b); };
    w = g->run_if_idle(op, call, &fn);
  }
  if (!w) w = g->enqueue(op, std::move(fn), /*blocking=*/!async_op);
  if (!async_op) w->wait();
  return w;
}

int64_t root_of(const ProcessGroup& g, int64_t global, const char* api, const char* arg) {
  int64_t r = g.group_rank(global);
  EMBER_CHECK_VALUE(r >= 0, "[", api, "] The global rank ", global, " (", arg,
                    ") is not part of the group");
  return r;
}

}  // namespace

WorkPtr all_reduce(const Tensor& tensor, ReduceOp op, const GroupPtr& group, bool async_op) {
  auto g = group_for(group);
  if (!g->is_member()) return done_work("all_reduce");
  const int64_t W = g->size();
  check_tensor(tensor, "all_reduce");
  check_op(tensor.dtype(), op, "all_reduce");
  Staged st = stage(tensor);
  const int64_t n = tensor.numel();
  const auto dtype = tensor.dtype();
  return run(g, "all_reduce", async_op, [=](Backend& b) {
    reduce_all(b, W, header(Kind::kAllReduce, dtype, n, -1, static_cast<int>(op)), st.data(), n,
               dtype, backend_op(op));
    finish_avg(st.data(), n, dtype, op, W);
    st.write_back();
  });
}

WorkPtr broadcast(const Tensor& tensor, int64_t src, const GroupPtr& group, bool async_op) {
  auto g = group_for(group);
  if (!g->is_member()) return done_work("broadcast");
  const int64_t W = g->size(), me = g->rank();
  check_tensor(tensor, "broadcast");
  const int64_t root = root_of(*g, src, "broadcast", "src");
  Staged st = stage(tensor);
  return run(g, "broadcast", async_op, [=](Backend& b) {
    const Header h = header(Kind::kBroadcast, st.buf.dtype(), st.buf.numel(), root);
    const size_t bytes = st.bytes();
    if (!rides_along(b, bytes)) {
      agree(b, W, h);
      if (bytes) b.broadcast(st.data(), bytes, static_cast<int>(root));
    } else if (me == root) {
      agree(b, W, h, st.data(), bytes);  // Note [Records]: the root's record carries the data
    } else {
      const auto& all = agree(b, W, h);
      if (bytes) std::memcpy(st.data(), all[static_cast<size_t>(root)] + kPayloadAt, bytes);
    }
    if (me != root) st.write_back();
  });
}

WorkPtr reduce(const Tensor& tensor, int64_t dst, ReduceOp op, const GroupPtr& group,
               bool async_op) {
  auto g = group_for(group);
  if (!g->is_member()) return done_work("reduce");
  const int64_t W = g->size(), me = g->rank();
  check_tensor(tensor, "reduce");
  check_op(tensor.dtype(), op, "reduce");
  const int64_t root = root_of(*g, dst, "reduce", "dst");
  const bool is_root = me == root;
  Staged st = stage(tensor, /*force_copy=*/!is_root);  // other ranks' tensors stay as they were
  return run(g, "reduce", async_op, [=](Backend& b) {
    const int64_t n = st.buf.numel();
    agree(b, W, header(Kind::kReduce, st.buf.dtype(), n, root, static_cast<int>(op)));
    if (n)
      b.reduce(st.data(), static_cast<size_t>(n), st.buf.dtype(), backend_op(op),
               static_cast<int>(root));
    if (!is_root) return;
    finish_avg(st.data(), n, st.buf.dtype(), op, W);
    st.write_back();
  });
}

WorkPtr all_gather(const std::vector<Tensor>& tensor_list, const Tensor& tensor,
                   const GroupPtr& group, bool async_op) {
  auto g = group_for(group);
  if (!g->is_member()) return done_work("all_gather");
  const int64_t W = g->size();
  check_tensor(tensor, "all_gather");
  check_list(tensor_list, tensor, W, "all_gather", "tensor_list");
  Staged in = stage(tensor);
  Tensor out = buffer(tensor.numel() * W, tensor.dtype());
  return run(g, "all_gather", async_op, [=](Backend& b) {
    agree(b, W, header(Kind::kAllGather, in.buf.dtype(), in.buf.numel()));
    const size_t bytes = in.bytes();
    if (bytes) b.allgather(in.data(), out.data_ptr(), bytes);
    for (size_t r = 0; r < tensor_list.size(); ++r)
      copy_into(tensor_list[r], static_cast<char*>(bytes ? out.data_ptr() : nullptr) + r * bytes);
  });
}

WorkPtr all_gather_into_tensor(const Tensor& output_tensor, const Tensor& input_tensor,
                               const GroupPtr& group, bool async_op) {
  auto g = group_for(group);
  if (!g->is_member()) return done_work("all_gather_into_tensor");
  const int64_t W = g->size();
  const char* api = "all_gather_into_tensor";
  check_tensor(output_tensor, api, "output_tensor");
  check_tensor(input_tensor, api, "input_tensor");
  EMBER_CHECK_TYPE(output_tensor.dtype() == input_tensor.dtype(), "[", api,
                   "] output and input must have the same dtype, got ",
                   dtype_name(output_tensor.dtype()), " and ", dtype_name(input_tensor.dtype()));
  EMBER_CHECK_VALUE(output_tensor.numel() == input_tensor.numel() * W, "[", api,
                    "] output tensor size must be equal to world_size times input tensor size (", W,
                    " x ", input_tensor.numel(), "), got ", output_tensor.numel());
  Staged in = stage(input_tensor), out = stage(output_tensor);
  return run(g, api, async_op, [=](Backend& b) {
    agree(b, W, header(Kind::kAllGatherIntoTensor, in.buf.dtype(), in.buf.numel()));
    if (in.bytes()) b.allgather(in.data(), out.data(), in.bytes());
    out.write_back();
  });
}

namespace {
// reduce_scatter through an all-reduce of the whole input: the block for this rank is kept.
WorkPtr reduce_scatter_impl(const char* api, Kind kind, const GroupPtr& g, const Tensor& output,
                            Tensor whole, ReduceOp op, bool async_op) {
  const int64_t W = g->size(), me = g->rank();
  Staged out = stage(output);
  return run(g, api, async_op, [=](Backend& b) {
    const int64_t n = out.buf.numel();
    reduce_all(b, W, header(kind, out.buf.dtype(), n, -1, static_cast<int>(op)), whole.data_ptr(),
               whole.numel(), whole.dtype(), backend_op(op));
    if (!n) return;
    const size_t bytes = out.bytes();
    std::memcpy(out.data(), static_cast<char*>(whole.data_ptr()) + me * bytes, bytes);
    finish_avg(out.data(), n, out.buf.dtype(), op, W);
    out.write_back();
  });
}
}  // namespace

WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& input_list, ReduceOp op,
                       const GroupPtr& group, bool async_op) {
  auto g = group_for(group);
  if (!g->is_member()) return done_work("reduce_scatter");
  const int64_t W = g->size();
  check_tensor(output, "reduce_scatter", "output");
  check_op(output.dtype(), op, "reduce_scatter");
  check_list(input_list, output, W, "reduce_scatter", "input_list");
  Tensor whole = buffer(output.numel() * W, output.dtype());
  const size_t bytes = static_cast<size_t>(output.numel() * output.element_size());
  for (size_t r = 0; r < input_list.size(); ++r)
    if (bytes) copy_out(input_list[r], static_cast<char*>(whole.data_ptr()) + r * bytes);
  return reduce_scatter_impl("reduce_scatter", Kind::kReduceScatter, g, output, whole, op,
                             async_op);
}

WorkPtr reduce_scatter_tensor(const Tensor& output, const Tensor& input, ReduceOp op,
                              const GroupPtr& group, bool async_op) {
  auto g = group_for(group);
  const char* api = "reduce_scatter_tensor";
  if (!g->is_member()) return done_work(api);
  const int64_t W = g->size();
  check_tensor(output, api, "output");
  check_tensor(input, api, "input");
  check_op(output.dtype(), op, api);
  EMBER_CHECK_TYPE(output.dtype() == input.dtype(), "[", api,
                   "] output and input must have the same dtype, got ", dtype_name(output.dtype()),
                   " and ", dtype_name(input.dtype()));
  EMBER_CHECK_VALUE(input.numel() == output.numel() * W, "[", api,
                    "] input tensor must be the same size as output size times world size (",
                    output.numel(), " x ", W, "), got ", input.numel());
  return reduce_scatter_impl(api, Kind::kReduceScatterTensor, g, output,
                             stage(input, /*force_copy=*/true).buf, op, async_op);
}

namespace {

// Each rank's counts to and from every rank, checked pairwise: what i sends to j is what j
// expects from i. counts = [send to 0..W-1, receive from 0..W-1].
void agree_counts(Backend& b, int64_t size, const std::vector<int64_t>& counts, const char* api) {
  const size_t bytes = counts.size() * sizeof(int64_t);
  std::memcpy(b.record_out(bytes), counts.data(), bytes);
  const auto& all = b.exchange(api, bytes);
  const auto count = [&](int64_t rank, int64_t i) {
    int64_t v;
    std::memcpy(&v, all[static_cast<size_t>(rank)] + i * sizeof(int64_t), sizeof v);
    return v;
  };
  for (int64_t i = 0; i < size; ++i)
    for (int64_t j = 0; j < size; ++j) {
      const int64_t sends = count(i, j), expects = count(j, size + i);
      EMBER_CHECK(sends == expects, "[", api, "] rank ", i, " sends ", sends, " to rank ", j,
                  ", but rank ", j, " expects ", expects, " from rank ", i);
    }
}

std::vector<int64_t> split_sizes(const std::vector<int64_t>& given, int64_t dim0, int64_t size,
                                 const char* which) {
  if (given.empty()) {
    EMBER_CHECK_VALUE(dim0 % size == 0, "[all_to_all_single] ", which, " dim 0 (", dim0,
                      ") must be divisible by world_size (", size,
                      ") when no split sizes are given");
    return std::vector<int64_t>(static_cast<size_t>(size), dim0 / size);
  }
  EMBER_CHECK_VALUE(static_cast<int64_t>(given.size()) == size, "[all_to_all_single] ", which,
                    " split sizes must have world_size (", size, ") entries, got ", given.size());
  int64_t total = 0;
  for (int64_t s : given) {
    EMBER_CHECK_VALUE(s >= 0, "[all_to_all_single] split sizes must be >= 0, got ", s);
    total += s;
  }
  EMBER_CHECK_VALUE(total == dim0,
                    "[all_to_all_single] Split sizes doesn't match total dim 0 size: ", which,
                    " splits sum to ", total, " but dim 0 is ", dim0);
  return given;
}

int64_t row_numel(const Tensor& t) {
  int64_t n = 1;
  for (int64_t d = 1; d < t.dim(); ++d) n *= t.size(d);
  return n;
}

}  // namespace

WorkPtr all_to_all_single(const Tensor& output, const Tensor& input,
                          const std::vector<int64_t>& output_split_sizes,
                          const std::vector<int64_t>& input_split_sizes, const GroupPtr& group,
                          bool async_op) {
  auto g = group_for(group);
  const char* api = "all_to_all_single";
  if (!g->is_member()) return done_work(api);
  const int64_t W = g->size();
  check_tensor(output, api, "output");
  check_tensor(input, api, "input");
  EMBER_CHECK_TYPE(output.dtype() == input.dtype(), "[", api,
                   "] output and input must have the same dtype, got ", dtype_name(output.dtype()),
                   " and ", dtype_name(input.dtype()));
  EMBER_CHECK_VALUE(input.dim() >= 1 && output.dim() >= 1, "[", api,
                    "] input and output need at least one dimension");
  const int64_t row = row_numel(input);
  EMBER_CHECK_VALUE(row_numel(output) == row, "[", api,
                    "] input and output must have the same size past dim 0 (", row, " vs ",
                    row_numel(output), " elements per row)");
  auto in_splits = split_sizes(input_split_sizes, input.size(0), W, "input");
  auto out_splits = split_sizes(output_split_sizes, output.size(0), W, "output");
  Staged in = stage(input), out = stage(output);
  return run(g, api, async_op, [=](Backend& b) {
    agree(b, W, header(Kind::kAllToAllSingle, in.buf.dtype(), -1, -1, -1, row));
    std::vector<int64_t> counts = in_splits;
    counts.insert(counts.end(), out_splits.begin(), out_splits.end());
    agree_counts(b, W, counts, api);
    const size_t unit = static_cast<size_t>(row * in.buf.element_size());
    std::vector<size_t> in_bytes, out_bytes;
    for (int64_t r = 0; r < W; ++r) {
      in_bytes.push_back(in_splits[r] * unit);
      out_bytes.push_back(out_splits[r] * unit);
    }
    b.alltoallv(in.data(), in_bytes, out.data(), out_bytes);
    out.write_back();
  });
}

WorkPtr all_to_all(const std::vector<Tensor>& output_tensor_list,
                   const std::vector<Tensor>& input_tensor_list, const GroupPtr& group,
                   bool async_op) {
  auto g = group_for(group);
  const char* api = "all_to_all";
  if (!g->is_member()) return done_work(api);
  const int64_t W = g->size();
  EMBER_CHECK_VALUE(static_cast<int64_t>(output_tensor_list.size()) == W &&
                        static_cast<int64_t>(input_tensor_list.size()) == W,
                    "[", api, "] output and input lists must hold world_size (", W,
                    ") tensors, got ", output_tensor_list.size(), " and ",
                    input_tensor_list.size());
  const ScalarType dtype = input_tensor_list[0].defined() ? input_tensor_list[0].dtype() : kFloat;
  std::vector<int64_t> counts;
  int64_t in_total = 0, out_total = 0;
  for (const auto* list : {&input_tensor_list, &output_tensor_list})
    for (const auto& t : *list) {
      check_tensor(t, api, list == &input_tensor_list ? "input" : "output");
      EMBER_CHECK_TYPE(t.dtype() == dtype, "[", api, "] every tensor must have dtype ",
                       dtype_name(dtype), ", got ", dtype_name(t.dtype()));
      counts.push_back(t.numel());
      (list == &input_tensor_list ? in_total : out_total) += t.numel();
    }
  Tensor in = buffer(in_total, dtype), out = buffer(out_total, dtype);
  const size_t es = static_cast<size_t>(element_size(dtype));
  size_t at = 0;
  for (const auto& t : input_tensor_list) {
    copy_out(t, static_cast<char*>(in.data_ptr()) + at);
    at += static_cast<size_t>(t.numel()) * es;
  }
  return run(g, api, async_op, [=](Backend& b) {
    agree(b, W, header(Kind::kAllToAll, dtype, -1));
    agree_counts(b, W, counts, api);
    std::vector<size_t> in_bytes, out_bytes;
    for (int64_t r = 0; r < W; ++r) {
      in_bytes.push_back(counts[r] * es);
      out_bytes.push_back(counts[W + r] * es);
    }
    b.alltoallv(in_total ? in.data_ptr() : nullptr, in_bytes, out_total ? out.data_ptr() : nullptr,
                out_bytes);
    size_t pos = 0;
    for (int64_t r = 0; r < W; ++r) {
      copy_into(output_tensor_list[r],
                static_cast<char*>(out_total ? out.data_ptr() : nullptr) + pos);
      pos += out_bytes[r];
    }
  });
}

namespace {
// gather's and scatter's list: as check_list on the root, absent on the other ranks.
void check_root_list(bool is_root, const std::vector<Tensor>& list, const Tensor& tensor,
                     int64_t size, const char* api, const char* arg, const char* root_role) {
  if (is_root) return check_list(list, tensor, size, api, arg);
  EMBER_CHECK_VALUE(list.empty(), "[", api, "] Argument ``", arg,
                    "`` must NOT be specified on non-", root_role, " ranks.");
}
}  // namespace

WorkPtr gather(const Tensor& tensor, const std::vector<Tensor>& gather_list, int64_t dst,
               const GroupPtr& group, bool async_op) {
  auto g = group_for(group);
  if (!g->is_member()) return done_work("gather");
  const int64_t W = g->size(), me = g->rank();
  check_tensor(tensor, "gather");
  const int64_t root = root_of(*g, dst, "gather", "dst");
  const bool is_root = me == root;
  check_root_list(is_root, gather_list, tensor, W, "gather", "gather_list", "destination");
  Staged in = stage(tensor);
  Tensor out = buffer(is_root ? tensor.numel() * W : 0, tensor.dtype());
  return run(g, "gather", async_op, [=](Backend& b) {
    agree(b, W, header(Kind::kGather, in.buf.dtype(), in.buf.numel(), root));
    const size_t bytes = in.bytes();
    if (!bytes) return;
    b.gather(in.data(), is_root ? out.data_ptr() : nullptr, bytes, static_cast<int>(root));
    if (is_root)
      for (size_t r = 0; r < gather_list.size(); ++r)
        copy_into(gather_list[r], static_cast<char*>(out.data_ptr()) + r * bytes);
  });
}

WorkPtr scatter(const Tensor& tensor, const std::vector<Tensor>& scatter_list, int64_t src,
                const GroupPtr& group, bool async_op) {
  auto g = group_for(group);
  if (!g->is_member()) return done_work("scatter");
  const int64_t W = g->size(), me = g->rank();
  check_tensor(tensor, "scatter");
  const int64_t root = root_of(*g, src, "scatter", "src");
  const bool is_root = me == root;
  check_root_list(is_root, scatter_list, tensor, W, "scatter", "scatter_list", "source");
  Staged out = stage(tensor);
  Tensor in = buffer(is_root ? tensor.numel() * W : 0, tensor.dtype());
  const size_t bytes = out.bytes();
  if (is_root && bytes)
    for (size_t r = 0; r < scatter_list.size(); ++r)
      copy_out(scatter_list[r], static_cast<char*>(in.data_ptr()) + r * bytes);
  return run(g, "scatter", async_op, [=](Backend& b) {
    agree(b, W, header(Kind::kScatter, out.buf.dtype(), out.buf.numel(), root));
    if (!bytes) return;
    b.scatter(is_root ? in.data_ptr() : nullptr, out.data(), bytes, static_cast<int>(root));
    out.write_back();
  });
}

WorkPtr barrier(const GroupPtr& group, bool async_op) {
  auto g = group_for(group);
  if (!g->is_member()) return done_work("barrier");
  const int64_t W = g->size();
  // Every rank's record arrives only once every rank has entered: the agreement is the barrier.
  return run(g, "barrier", async_op,
             [W](Backend& b) { agree(b, W, header(Kind::kBarrier, kBool, 0)); });
}

// ---- point-to-point: started on the caller's thread, completed by Work::wait ----

namespace {

WorkPtr start_p2p(bool is_send, const Tensor& tensor, int64_t peer, const GroupPtr& group,
                  int64_t tag, const char* api, std::shared_ptr<int64_t> source = nullptr) {
  auto g = group_for(group);
  if (!g->is_member()) return done_work(api);
  const int64_t me = g->rank();
  check_tensor(tensor, api);
  EMBER_CHECK_VALUE(tag >= 0 && tag <= int64_t{0xFFFFFFFF}, "[", api,
                    "] tag must be in [0, 2^32), got ", tag);
  int64_t p = -1;
  if (is_send || peer != -1) {
    p = root_of(*g, peer, api, is_send ? "dst" : "src");
    EMBER_CHECK_VALUE(p != me, "[", api, "] Invalid ", is_send ? "destination" : "source",
                      " rank: should not be the same as rank of the current process.");
  }
  Staged st = stage(tensor);
  auto work = std::make_shared<Work>(api);
  work->mark_started();
  auto& b = g->backend();
  auto wait = is_send
                  ? b.send(st.data(), st.bytes(), static_cast<int>(p), static_cast<uint32_t>(tag))
                  : b.recv(st.data(), st.bytes(), static_cast<int>(p), static_cast<uint32_t>(tag));
  work->set_waiter([wait, st, is_send, source, g](std::chrono::milliseconds timeout) {
    int from = wait(timeout);
    if (is_send) return;
    st.write_back();
    if (source && from >= 0) *source = g->ranks()[static_cast<size_t>(from)];
  });
  return work;
}

}  // namespace

void send(const Tensor& tensor, int64_t dst, const GroupPtr& group, int64_t tag) {
  start_p2p(true, tensor, dst, group, tag, "send")->wait();
}

int64_t recv(const Tensor& tensor, int64_t src, const GroupPtr& group, int64_t tag) {
  auto source = std::make_shared<int64_t>(src);
  start_p2p(false, tensor, src, group, tag, "recv", source)->wait();
  return *source;
}

WorkPtr isend(const Tensor& tensor, int64_t dst, const GroupPtr& group, int64_t tag) {
  return start_p2p(true, tensor, dst, group, tag, "isend");
}

WorkPtr irecv(const Tensor& tensor, int64_t src, const GroupPtr& group, int64_t tag) {
  return start_p2p(false, tensor, src, group, tag, "irecv");
}

std::vector<WorkPtr> batch_isend_irecv(const std::vector<P2POp>& ops) {
  EMBER_CHECK_VALUE(!ops.empty(), "[batch_isend_irecv] expects a non-empty list of P2POp");
  auto g0 = group_for(ops[0].group);
  for (const auto& op : ops)
    EMBER_CHECK_VALUE(group_for(op.group) == g0,
                      "[batch_isend_irecv] All ops need to use the same group.");
  std::vector<WorkPtr> works;
  for (const auto& op : ops)
    works.push_back(op.op == P2POp::Kind::ISEND ? isend(op.tensor, op.peer, op.group, op.tag)
                                                : irecv(op.tensor, op.peer, op.group, op.tag));
  return works;
}

}  // namespace ember::distributed
