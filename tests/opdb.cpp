#include "opdb.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ember::test {

const std::vector<ScalarType>& all_dtypes() {
  static const std::vector<ScalarType> v = {kBool,  kUInt8,   kInt8,     kInt16,   kInt32,
                                            kInt64, kFloat16, kBFloat16, kFloat32, kFloat64};
  return v;
}
const std::vector<ScalarType>& float_dtypes() {
  static const std::vector<ScalarType> v = {kFloat16, kBFloat16, kFloat32, kFloat64};
  return v;
}
const std::vector<ScalarType>& integral_dtypes(bool include_bool) {
  static const std::vector<ScalarType> with = {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64};
  static const std::vector<ScalarType> without = {kUInt8, kInt8, kInt16, kInt32, kInt64};
  return include_bool ? with : without;
}

std::vector<ScalarType> dtypes_except(const std::vector<ScalarType>& dtypes) {
  std::vector<ScalarType> r;
  for (ScalarType t : all_dtypes()) {
    if (std::find(dtypes.begin(), dtypes.end(), t) == dtypes.end()) r.push_back(t);
  }
  return r;
}

namespace {
double read_elem(const char* p, ScalarType t) {
  switch (t) {
    case kBool:
      return *reinterpret_cast<const bool*>(p) ? 1 : 0;
    case kUInt8:
      return *reinterpret_cast<const uint8_t*>(p);
    case kInt8:
      return *reinterpret_cast<const int8_t*>(p);
    case kInt16:
      return *reinterpret_cast<const int16_t*>(p);
    case kInt32:
      return *reinterpret_cast<const int32_t*>(p);
    case kInt64:
      return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
    case kFloat16:
      return Half::to_float(*reinterpret_cast<const uint16_t*>(p));
    case kBFloat16:
      return static_cast<float>(*reinterpret_cast<const BFloat16*>(p));
    case kFloat32:
      return *reinterpret_cast<const float*>(p);
    case kFloat64:
      return *reinterpret_cast<const double*>(p);
    default:
      throw std::runtime_error("read_elem: dtype");
  }
}
void write_elem(char* p, ScalarType t, double v) {
  switch (t) {
    case kBool:
      *reinterpret_cast<bool*>(p) = v != 0;
      break;
    case kUInt8:
      *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(v);
      break;
    case kInt8:
      *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(v);
      break;
    case kInt16:
      *reinterpret_cast<int16_t*>(p) = static_cast<int16_t>(v);
      break;
    case kInt32:
      *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(v);
      break;
    case kInt64:
      *reinterpret_cast<int64_t*>(p) = static_cast<int64_t>(v);
      break;
    case kFloat16:
      *reinterpret_cast<Half*>(p) = Half(static_cast<float>(v));
      break;
    case kBFloat16:
      *reinterpret_cast<BFloat16*>(p) = BFloat16(static_cast<float>(v));
      break;
    case kFloat32:
      *reinterpret_cast<float*>(p) = static_cast<float>(v);
      break;
    case kFloat64:
      *reinterpret_cast<double*>(p) = v;
      break;
    default:
      throw std::runtime_error("write_elem: dtype");
  }
}
}  // namespace

Tensor make_tensor(const std::vector<int64_t>& shape, ScalarType dtype, double low, double high,
                   uint64_t seed) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  auto storage = std::make_shared<StorageImpl>(static_cast<size_t>(n * element_size(dtype)));
  Tensor t(std::make_shared<TensorImpl>(storage, dtype, shape, contiguous_strides(shape), 0));
  uint64_t state = 0x9E3779B97F4A7C15ULL * (seed + 1);
  char* p = static_cast<char*>(t.data_ptr());
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    double u = static_cast<double>(state >> 11) / 9007199254740992.0;
    double v = low + (high - low) * u;
    if (dtype == kBool)
      v = u < 0.5 ? 0 : 1;
    else if (!is_floating_point(dtype)) {
      v = std::floor(v);
      if (dtype == kUInt8) v = std::fabs(v);
    }
    write_elem(p + i * element_size(dtype), dtype, v);
  }
  return t;
}

Tensor make_noncontiguous(const Tensor& t) {
  // Store the values with every element doubled up along the last dim, then view every other one.
  auto shape = t.sizes();
  std::vector<int64_t> big = shape;
  if (big.empty()) return t;
  big.back() *= 2;
  auto st = contiguous_strides(big);
  std::vector<int64_t> strides = st;
  strides.back() = 2;
  // Note [Meta device]: a meta tensor has no values to copy, only the layout to reproduce.
  if (t.device().is_meta())
    return empty_strided(shape, strides, TensorOptions(t.dtype()).device(kMeta));
  Tensor b = make_tensor(big, t.dtype(), -1, 1, 99);
  auto v = values(t);
  char* p = static_cast<char*>(b.data_ptr());
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      off += idx[d] * st[d] * (d + 1 == shape.size() ? 2 : 1);
    write_elem(p + off * t.element_size(), t.dtype(), v[i]);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return Tensor(std::make_shared<TensorImpl>(b.impl()->storage(), t.dtype(), shape, strides, 0));
}

Tensor make_expanded(const Tensor& t, const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 0);
  int64_t off = static_cast<int64_t>(shape.size()) - t.dim();
  for (int64_t d = 0; d < t.dim(); ++d) {
    strides[d + off] = t.sizes()[d] == 1 ? 0 : t.strides()[d];
  }
  return Tensor(std::make_shared<TensorImpl>(t.impl()->storage(), t.dtype(), shape, strides,
                                             t.storage_offset()));
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  out.reserve(t.numel());
  if (t.numel() == 0) return out;
  const char* base = static_cast<const char*>(t.data_ptr());
  const auto& sz = t.sizes();
  const auto& st = t.strides();
  std::vector<int64_t> idx(sz.size(), 0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < sz.size(); ++d) off += idx[d] * st[d];
    out.push_back(read_elem(base + off * t.element_size(), t.dtype()));
    for (int64_t d = static_cast<int64_t>(sz.size()) - 1; d >= 0; --d) {
      if (++idx[d] < sz[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

Tensor from_values(const std::vector<int64_t>& shape, const std::vector<double>& v,
                   ScalarType dtype) {
  Tensor t = make_tensor(shape, dtype, 0, 1, 0);
  char* p = static_cast<char*>(t.data_ptr());
  for (size_t i = 0; i < v.size(); ++i) write_elem(p + i * t.element_size(), dtype, v[i]);
  return t;
}

std::pair<double, double> tolerances(ScalarType dtype) {
  switch (dtype) {
    case kFloat16:
      return {1e-3, 1e-5};
    case kBFloat16:
      return {1.6e-2, 1e-5};
    case kFloat32:
      return {1.3e-6, 1e-5};
    case kFloat64:
      return {1e-7, 1e-7};
    default:
      return {0, 0};
  }
}

::testing::AssertionResult close(const Tensor& actual, const std::vector<int64_t>& shape,
                                 const std::vector<double>& expected, double rtol, double atol) {
  if (actual.sizes() != shape) {
    std::string a, e;
    for (auto s : actual.sizes()) a += std::to_string(s) + " ";
    for (auto s : shape) e += std::to_string(s) + " ";
    return ::testing::AssertionFailure() << "shape [" << a << "] != expected [" << e << "]";
  }
  auto got = values(actual);
  if (got.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << "reference has " << expected.size() << " values for " << got.size() << " elements";
  }
  int64_t bad = 0, first = -1;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], e = expected[i];
    bool ok;
    if (std::isnan(e))
      ok = std::isnan(g);
    else if (std::isinf(e))
      ok = g == e;
    else
      ok = std::fabs(g - e) <= atol + rtol * std::fabs(e);
    if (!ok) {
      ++bad;
      if (first < 0) first = static_cast<int64_t>(i);
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << got.size() << " elements differ; first at flat index " << first
         << ": got " << got[first] << ", expected " << expected[first];
}

std::string nondifferentiable_reason(const std::vector<ScalarType>& dtypes,
                                     ScalarType float64_result) {
  if (std::none_of(dtypes.begin(), dtypes.end(), [](ScalarType t) { return is_floating_point(t); }))
    return "integer-only op: PyTorch differentiates floating tensors only";
  if (!is_floating_point(float64_result))
    return std::string(dtype_name(float64_result)) +
           " result: PyTorch's boolean and integral outputs carry no gradient";
  return {};
}

// Note [Dtypes not yet compared]: dtypes an entry's op accepts whose values the entry does not
// compare with a reference yet. DtypeCoverage counts them as accounted for, runs the op on them
// (it must not throw) and prints them: the op database's open items, listed, never hidden.
namespace {
constexpr const char* kUnchecked = "accepted, as in PyTorch; values not compared yet";
constexpr const char* kRefusedByTorch113 =
    "accepted, but PyTorch 1.13 refuses it: check the current release and align";
}  // namespace

const std::map<std::string, std::pair<std::vector<ScalarType>, std::string>>& unchecked_dtypes() {
  static const std::map<std::string, std::pair<std::vector<ScalarType>, std::string>> m = {
      {"pow_scalar_exponent", {{kBool}, kUnchecked}},
      {"rremainder_int_scalar", {{kBool}, kUnchecked}},
      {"clamp_min", {{kBool}, kUnchecked}},
      {"clip_max", {{kBool}, kUnchecked}},
      {"scatter_reduce_add", {{kBool}, kUnchecked}},
      {"scatter_value_multiply", {{kBool}, kUnchecked}},
      {"scatter_reduce_sum", {{kBool}, kUnchecked}},
      {"scatter_reduce_prod", {{kBool}, kUnchecked}},
      {"scatter_reduce_mean", {{kBool}, kRefusedByTorch113}},
      {"scatter_reduce_amax", {{kBool}, kUnchecked}},
      {"scatter_reduce_amin", {{kBool}, kUnchecked}},
      {"scatter_reduce_sum_exclude_self", {{kBool}, kUnchecked}},
      {"scatter_reduce_prod_exclude_self", {{kBool}, kUnchecked}},
      {"scatter_reduce_mean_exclude_self", {{kBool}, kRefusedByTorch113}},
      {"scatter_reduce_amax_exclude_self", {{kBool}, kUnchecked}},
      {"scatter_reduce_amin_exclude_self", {{kBool}, kUnchecked}},
      {"index_add_alpha2", {{kBool}, kUnchecked}},
      {"vector_norm_2",
       {{kFloat16, kBFloat16}, "values checked in the ReductionStats norm_p* entries"}},
      {"vector_norm_1",
       {{kFloat16, kBFloat16}, "values checked in the ReductionStats norm_p* entries"}},
      {"vector_norm_3",
       {{kFloat16, kBFloat16}, "values checked in the ReductionStats norm_p* entries"}},
      {"vector_norm_half",
       {{kFloat16, kBFloat16}, "values checked in the ReductionStats norm_p* entries"}},
      {"vector_norm_inf",
       {{kFloat16, kBFloat16}, "values checked in the ReductionStats norm_p* entries"}},
      {"vector_norm_minf",
       {{kFloat16, kBFloat16}, "values checked in the ReductionStats norm_p* entries"}},
      {"vector_norm_dim",
       {{kFloat16, kBFloat16}, "values checked in the ReductionStats norm_p* entries"}},
      {"cross", {{kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16}, kUnchecked}},
      {"vecdot",
       {{kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16}, kRefusedByTorch113}},
      {"matrix_power_1",
       {{kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16}, kUnchecked}},
      {"matrix_power_3",
       {{kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16}, kUnchecked}},
      {"multi_dot", {{kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16}, kUnchecked}},
      {"diagonal_offset0_dims12",
       {{kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16}, kUnchecked}},
      {"diagonal_offset1_dims12",
       {{kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16}, kUnchecked}},
      {"diagonal_offsetm1_dims12",
       {{kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16}, kUnchecked}},
      {"diagonal_offset0_dims02",
       {{kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16}, kUnchecked}},
      {"diagonal_offset1_dims20",
       {{kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16}, kUnchecked}},
      {"einsum_4_ii_to_i", {{kBool}, kUnchecked}},
      {"einsum_5_ii", {{kBool}, kUnchecked}},
      {"einsum_6_iij_to_j", {{kBool}, kUnchecked}},
      {"einsum_12_iEEE_to_EEE", {{kBool}, kUnchecked}},
      {"einsum_13_EEE_to_EEE", {{kBool}, kUnchecked}},
      {"einsum_14_i_j_to_ij", {{kBool}, kUnchecked}},
      {"einsum_15_ij_kl_to_ijkl", {{kBool}, kUnchecked}},
      {"einsum_16_ij_to_", {{kBool}, kUnchecked}},
      {"einsum_17_ij_to_", {{kBool}, kUnchecked}},
      {"einsum_18_i_to_", {{kBool}, kUnchecked}},
      {"einsum_19_ijk_to_kji", {{kBool}, kUnchecked}},
      {"einsum_20_ijk_to_kji", {{kBool}, kUnchecked}},
      {"einsum_21_ba", {{kBool}, kUnchecked}},
      {"einsum_25_ij_ij_to_ij", {{kBool}, kUnchecked}},
      {"einsum_27_ij_ij_to_i", {{kBool}, kUnchecked}},
      {"einsum_29_ij_k_to_i", {{kBool}, kUnchecked}},
      {"einsum_33__i_to_i", {{kBool}, kUnchecked}},
      {"einsum_34_i_j_k_to_ijk", {{kBool}, kUnchecked}},
      {"tensordot_broadcast", {{kInt64}, kUnchecked}},
      {"relu6", {{kUInt8}, kUnchecked}},
      {"softsign", {{kUInt8, kInt8, kInt16, kInt32, kInt64}, kUnchecked}},
      {"tanhshrink", {{kUInt8, kInt8, kInt16, kInt32, kInt64}, kUnchecked}},
      {"F_hardtanh", {{kInt8, kInt16, kInt32, kInt64}, kUnchecked}},
      {"embedding", {{kBool, kUInt8, kInt8, kInt16, kInt32, kInt64}, kUnchecked}},
      {"linear_bilinear", {{kUInt8, kInt8, kInt16, kInt32, kInt64}, kUnchecked}},
      {"pad_constant_1d", {{kBool, kInt8, kInt16}, kUnchecked}},
      {"pad_constant_2d_value", {{kBool, kInt8, kInt16}, kUnchecked}},
      {"pad_constant_negative", {{kBool, kInt8, kInt16}, kUnchecked}},
      {"pad_constant_all_dims", {{kBool, kInt8, kInt16}, kUnchecked}},
      {"pad_reflect_1d", {{kBool, kInt8, kInt16}, kRefusedByTorch113}},
      {"pad_reflect_2d", {{kBool, kInt8, kInt16}, kRefusedByTorch113}},
      {"pad_replicate_2d", {{kBool, kInt8, kInt16}, kRefusedByTorch113}},
      {"pad_replicate_1d", {{kBool, kInt8, kInt16}, kRefusedByTorch113}},
      {"pad_circular_2d", {{kBool, kInt8, kInt16}, kUnchecked}},
      {"pad_circular_1d", {{kBool, kInt8, kInt16}, kUnchecked}},
      {"sum_dtype_int32", {{kFloat16, kBFloat16, kFloat32, kFloat64}, kUnchecked}},
      {"prod",
       {{kBool, kUInt8, kInt8, kInt16, kInt32, kInt64}, "values checked in the prod_int entry"}},
      {"prod_int", {{kFloat16, kBFloat16, kFloat32, kFloat64}, "values checked in the prod entry"}},
      {"cumprod",
       {{kBool, kUInt8, kInt8, kInt16, kInt32, kInt64}, "values checked in the cumprod_int entry"}},
      {"cumprod_int",
       {{kFloat16, kBFloat16, kFloat32, kFloat64}, "values checked in the cumprod entry"}},
  };
  return m;
}

std::vector<ScalarType> rejected_dtypes(const OpInfo& info) {
  if (!info.rejected_dtypes.empty()) return info.rejected_dtypes;
  std::vector<ScalarType> supported = info.dtypes;
  supported.insert(supported.end(), info.shape_only_dtypes.begin(), info.shape_only_dtypes.end());
  if (auto it = unchecked_dtypes().find(info.name); it != unchecked_dtypes().end()) {
    supported.insert(supported.end(), it->second.first.begin(), it->second.first.end());
  }
  return dtypes_except(supported);
}

void PrintTo(const OpInfo& info, std::ostream* os) { *os << info.name; }

// Every entry of every family instantiated with op_test_name, by name: gtest names each parameter
// while it registers the tests (before any runs), so a test that needs the whole database at once
// (the compiler's sweep, tests/compiler/test_lowering_opdb.cpp, which lowers every entry's graphs
// in one unit) finds it here.
std::map<std::string, OpInfo>& registered_op_infos() {
  static std::map<std::string, OpInfo> infos;
  return infos;
}

std::string op_test_name(const ::testing::TestParamInfo<OpInfo>& info) {
  registered_op_infos().try_emplace(info.param.name, info.param);
  std::string n;
  for (char c : info.param.name) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n;
}

std::vector<Sample> elementwise_samples(ScalarType dtype, int arity, double low, double high) {
  std::vector<Sample> out;
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) {
    return make_tensor(s, dtype, low, high, seed);
  };
  auto same = [&](std::vector<int64_t> s, std::string desc) {
    Sample smp{{}, desc};
    for (int i = 0; i < arity; ++i) smp.inputs.push_back(mk(s, i + 1));
    out.push_back(smp);
  };
  same({}, "0-d");
  same({0}, "empty");
  same({0, 3}, "empty-2d");
  same({7}, "1-d");
  same({3, 5}, "2-d");
  same({40, 37}, "2-d-large");  // crosses vector widths with a tail
  {
    Sample s{{}, "non-contiguous"};
    for (int i = 0; i < arity; ++i) s.inputs.push_back(make_noncontiguous(mk({4, 6}, i + 1)));
    out.push_back(s);
  }
  if (arity >= 2) {
    Sample s{{mk({3, 1}, 1), mk({1, 4}, 2)}, "broadcast-both"};
    for (int i = 2; i < arity; ++i) s.inputs.push_back(mk({4}, i + 1));
    out.push_back(s);
    Sample s0{{mk({2, 3}, 1), mk({}, 2)}, "broadcast-0d"};
    for (int i = 2; i < arity; ++i) s0.inputs.push_back(mk({3}, i + 1));
    out.push_back(s0);
    Sample se{{mk({5, 4}, 1), make_expanded(mk({1, 4}, 2), {5, 4})}, "expanded-stride0"};
    for (int i = 2; i < arity; ++i) se.inputs.push_back(mk({5, 4}, i + 1));
    out.push_back(se);
  } else {
    out.push_back({{make_expanded(mk({1, 4}, 1), {5, 4})}, "expanded-stride0"});
  }
  return out;
}

std::vector<Sample> without_large(std::vector<Sample> samples) {
  std::erase_if(samples, [](const Sample& s) { return s.desc == "2-d-large"; });
  return samples;
}

std::vector<Sample> elementwise_grad_samples(int arity, double low, double high) {
  return without_large(elementwise_samples(kFloat64, arity, low, high));
}

// The generic forward test: every sample of every supported dtype against the reference.
TEST_P(OpTest, MatchesReference) {
  const OpInfo& info = GetParam();
  std::vector<ScalarType> dtypes = info.dtypes;
  dtypes.insert(dtypes.end(), info.shape_only_dtypes.begin(), info.shape_only_dtypes.end());
  for (ScalarType dt : dtypes) {
    const bool shape_only =
        std::count(info.shape_only_dtypes.begin(), info.shape_only_dtypes.end(), dt) > 0;
    for (const Sample& s : info.samples(dt)) {
      SCOPED_TRACE(info.name + " " + dtype_name(dt) + " " + s.desc);
      Tensor got;
      try {
        got = info.op(s.inputs);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "threw: " << e.what();
        continue;
      }
      Reference ref = info.reference(s.inputs);
      if (shape_only) {
        EXPECT_EQ(got.sizes(), ref.shape) << "values checked in " << info.values_checked_in;
        continue;
      }
      EXPECT_EQ(got.dtype(), ref.dtype) << "result dtype";
      auto [rtol, atol] = tolerances(got.dtype());
      EXPECT_TRUE(close(got, ref.shape, ref.values, rtol * info.tol_scale, atol * info.tol_scale));
    }
  }
}

// Every dtype is either supported (MatchesReference runs it) or rejected (checked here): no
// dtype goes untested. One test per entry for both, to keep the number of
// test processes down.
TEST_P(OpTest, DtypeCoverage) {
  const OpInfo& info = GetParam();
  EXPECT_EQ(info.shape_only_dtypes.empty(), info.values_checked_in.empty())
      << "shape_only_dtypes need values_checked_in (and only they)";
  for (ScalarType dt : all_dtypes()) {
    const auto count = [dt](const std::vector<ScalarType>& v) {
      return static_cast<int>(std::count(v.begin(), v.end(), dt));
    };
    const auto gap = unchecked_dtypes().find(info.name);
    const int unchecked = gap == unchecked_dtypes().end() ? 0 : count(gap->second.first);
    if (unchecked) {
      auto samples = info.samples(dt);
      ASSERT_FALSE(samples.empty());
      EXPECT_NO_THROW(info.op(samples.front().inputs)) << dtype_name(dt);
      std::printf("[ dtypes   ] %s %s: %s\n", info.name.c_str(), dtype_name(dt),
                  gap->second.second.c_str());
      ::testing::Test::RecordProperty(std::string("unchecked_") + dtype_name(dt),
                                      gap->second.second);
    }
    const int supported = count(info.dtypes) + count(info.shape_only_dtypes) + unchecked;
    const int rejected = count(rejected_dtypes(info));
    if (supported + rejected == 1) continue;
    // Say what the op does with the dtype, to tell which list it belongs in.
    std::string does = "no sample";
    if (auto samples = info.samples(dt); !samples.empty()) {
      try {
        does = "accepts it (result " + std::string(dtype_name(info.op(samples[0].inputs).dtype())) +
               ")";
      } catch (const TypeError& e) {
        does = std::string("raises TypeError: ") + e.what();
      } catch (const std::exception& e) {
        does = std::string("raises: ") + e.what();
      }
    }
    ADD_FAILURE() << info.name << ": " << dtype_name(dt) << " is listed " << supported
                  << " times in dtypes/shape_only_dtypes and " << rejected
                  << " times in rejected_dtypes (want once in all); the op " << does;
  }
  for (ScalarType dt : rejected_dtypes(info)) {
    auto samples = info.samples(dt);
    ASSERT_FALSE(samples.empty());
    // PyTorch raises TypeError or RuntimeError here ("not implemented for 'Int'", "result type
    // Float can't be cast to ..."); a TypeError names the dtype.
    try {
      info.op(samples.front().inputs);
      ADD_FAILURE() << info.name << " accepted " << dtype_name(dt);
    } catch (const TypeError& e) {
      const std::string m = e.what();
      EXPECT_TRUE(m.find(dtype_name(dt)) != std::string::npos ||
                  m.find(scalar_type_name(dt)) != std::string::npos)
          << m;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("["), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << info.name << " " << dtype_name(dt) << ": wrong exception type: " << e.what();
    }
  }
}

// Whether a floating input holds some value twice.
bool has_ties(const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs) {
    if (!t.defined() || !t.is_floating_point()) continue;
    std::vector<double> v = values(t);
    std::erase_if(v, [](double e) { return std::isnan(e); });
    std::sort(v.begin(), v.end());
    if (std::adjacent_find(v.begin(), v.end()) != v.end()) return true;
  }
  return false;
}

namespace {

// A declared non-differentiable op: with floating inputs that require grad, its output carries
// no gradient (PyTorch's contract: boolean/integral outputs and outputs marked non-differentiable
// do not require grad; an op whose derivative PyTorch leaves not_implemented raises in backward).
void check_not_differentiable(const OpInfo& info) {
  ScalarType dt = info.dtypes.empty() ? kFloat64 : info.dtypes.front();
  for (ScalarType d : info.dtypes) {
    if (is_floating_point(d)) dt = d;
  }
  int checked = 0;
  for (const Sample& s : info.samples(dt)) {
    SCOPED_TRACE(info.name + " " + dtype_name(dt) + " " + s.desc);
    std::vector<Tensor> inputs = s.inputs;
    for (auto& t : inputs) {
      if (t.defined() && t.is_floating_point()) t = t.detach().requires_grad_();
    }
    Tensor out = info.grad_op ? info.grad_op(inputs) : info.op(inputs);
    // Either no gradient path at all, or (PyTorch's not_implemented) backward raises.
    if (out.requires_grad() && out.numel() > 0) {
      EXPECT_THROW(out.sum().backward(), NotImplementedError)
          << "declared not differentiable (" << info.not_differentiable
          << "), but its output has a gradient";
    }
    ++checked;
  }
  EXPECT_GT(checked, 0) << "no sample";
  ::testing::Test::RecordProperty("not_differentiable", info.not_differentiable);
  std::printf("[ gradcheck] %s: not differentiable (%s); %d samples carry no gradient\n",
              info.name.c_str(), info.not_differentiable.c_str(), checked);
}

// Gradients of an empty sample: backward must still give every input a gradient of its shape.
void check_empty_backward(const autograd::DifferentiableFn& fn, const std::vector<Tensor>& in) {
  std::vector<Tensor> inputs = in, wrt;
  for (auto& t : inputs) {
    if (t.defined() && t.is_floating_point()) wrt.push_back(t = t.detach().requires_grad_());
  }
  if (wrt.empty()) return;
  Tensor out = fn(inputs)[0];
  if (!out.requires_grad()) return;
  auto g = autograd::grad({out}, wrt, {zeros_like(out)}, false, false, /*allow_unused=*/true);
  for (size_t i = 0; i < wrt.size(); ++i) {
    if (g[i].defined()) {
      EXPECT_EQ(g[i].sizes(), wrt[i].sizes()) << "gradient " << i << " shape";
    }
  }
}

}  // namespace

// Every differentiable op: its vjp against central finite differences in float64, on its
// gradcheck samples (broadcast, non-contiguous, expanded, 0-d, small enough for finite
// differences); then its double backward the same way on the smallest. Nothing is left out
// silently: a sample that cannot be checked fails the test unless the entry declares why
// (Sample::no_gradcheck), and a missing vjp fails unless the entry declares the op not
// differentiable. The per-entry counts are printed and recorded as test properties.
TEST_P(OpTest, Gradcheck) {
  const OpInfo& info = GetParam();
  if (!info.not_differentiable.empty()) {
    check_not_differentiable(info);
    return;
  }
  ASSERT_NE(std::find(info.dtypes.begin(), info.dtypes.end(), kFloat64), info.dtypes.end())
      << info.name << " is differentiable but does not support float64, which gradcheck needs";
  autograd::DifferentiableFn fn = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{info.grad_op ? info.grad_op(in) : info.op(in)};
  };
  int checked = 0, gradgradchecked = 0, empty = 0;
  std::string excluded;
  int n_excluded = 0;
  for (const Sample& s : info.grad_samples ? info.grad_samples() : info.samples(kFloat64)) {
    SCOPED_TRACE(info.name + " " + s.desc);
    if (!s.no_gradcheck.empty()) {
      excluded += (n_excluded++ ? "; " : "") + s.desc + ": " + s.no_gradcheck;
      continue;
    }
    std::vector<Tensor> inputs = s.inputs;
    int64_t total = 0;
    bool any = false;
    for (auto& t : inputs) {
      if (!t.defined()) continue;
      total += t.numel();
      if (t.is_floating_point() && t.numel() > 0) {
        t = t.detach().requires_grad_();
        any = true;
      }
    }
    ASSERT_LE(total, kGradcheckMaxNumel)
        << "sample too large for finite differences: give the entry small grad_samples";
    if (info.nondifferentiable_at_ties && has_ties(inputs)) {
      excluded += (n_excluded++ ? "; " : "") + s.desc +
                  ": an input repeats a value and the op is not differentiable at ties";
      continue;
    }
    Tensor out = fn(inputs)[0];
    if (!any || out.numel() == 0) {
      check_empty_backward(fn, s.inputs);
      ++empty;
      continue;
    }
    ASSERT_EQ(out.dtype(), kFloat64)
        << "a differentiable op's float64 result must be float64 (or declare the entry "
           "not_differentiable)";
    ASSERT_LE(out.numel(), kGradcheckMaxNumel)
        << "output too large for finite differences: give the entry small grad_samples";
    ASSERT_TRUE(out.isfinite().all().item<bool>())
        << "a non-finite output says nothing under finite differences: keep grad_samples "
           "inside the op's domain";
    try {
      EXPECT_TRUE(autograd::gradcheck(fn, inputs, 1e-6, 1e-5, 1e-3 * info.tol_scale));
      if (info.double_backward && total <= kGradgradcheckMaxNumel) {
        EXPECT_TRUE(autograd::gradgradcheck(fn, inputs, 1e-6, 1e-5, 1e-3 * info.tol_scale));
        ++gradgradchecked;
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
    ++checked;
  }
  EXPECT_GT(checked + empty, 0) << "no gradcheck sample";
  ::testing::Test::RecordProperty("gradchecked", checked);
  ::testing::Test::RecordProperty("gradgradchecked", gradgradchecked);
  ::testing::Test::RecordProperty("empty", empty);
  ::testing::Test::RecordProperty("excluded", n_excluded);
  std::printf(
      "[ gradcheck] %s: %d samples gradchecked, %d gradgradchecked, %d empty, %d excluded%s%s\n",
      info.name.c_str(), checked, gradgradchecked, empty, n_excluded, n_excluded ? " — " : "",
      excluded.c_str());
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTest);

}  // namespace ember::test
