// torch.save checkpoints: fixtures written by Debian's PyTorch (fixtures/make_fixtures.py), whose
// values are compared with fixtures/values.json (written by the same script, independently of the
// checkpoint format), and hostile files that must raise typed errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ember/nn.h"
#include "ember/serialize.h"
#include "opdb.h"

#ifndef EMBER_TORCH_FIXTURES
#error "EMBER_TORCH_FIXTURES must name tests/serialize/fixtures"
#endif

namespace ember {
namespace {

namespace fs = std::filesystem;
using test::ErrorCase;
using test::expect_errors;

std::string fixture(const std::string& name) {
  return (fs::path(EMBER_TORCH_FIXTURES) / name).string();
}

const nlohmann::json& expected_values() {
  static const nlohmann::json j = [] {
    std::ifstream in(fixture("values.json"));
    EXPECT_TRUE(in.good()) << "cannot read values.json";
    return nlohmann::json::parse(in);
  }();
  return j;
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

// A tensor against the dtype, shape and row-major values PyTorch recorded under `key`.
void expect_matches(const Tensor& t, const std::string& key) {
  SCOPED_TRACE(key);
  const auto& e = expected_values().at(key);
  ASSERT_TRUE(t.defined());
  EXPECT_EQ(dtype_name(t.dtype()), e.at("dtype").get<std::string>());
  EXPECT_EQ(t.sizes(), e.at("shape").get<std::vector<int64_t>>());
  const Tensor flat = t.to(kFloat64).contiguous().reshape({-1});
  const auto& values = e.at("values");
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(values.size()));
  const double* got = flat.data_ptr<double>();
  for (size_t i = 0; i < values.size(); ++i) {
    const double want =
        values[i].is_boolean() ? (values[i].get<bool>() ? 1.0 : 0.0) : values[i].get<double>();
    EXPECT_EQ(got[i], want) << "element " << i;
  }
}

TEST(TorchCheckpoint, ModelStateDictRunsInEmber) {
  StateDict sd = load(fixture("model_state.pt"));
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  for (const auto& item : sd) expect_matches(item.value(), "model_state." + item.key());

  nn::Sequential model(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 2));
  model->load_state_dict(sd);
  Tensor x = ember::empty({2, 3});
  const auto& xs = expected_values().at("model_input").at("values");
  for (int64_t i = 0; i < 6; ++i) x.data_ptr<float>()[i] = xs[i].get<float>();
  Tensor y = model->forward(x).contiguous();
  const auto& ys = expected_values().at("model_output").at("values");
  ASSERT_EQ(y.numel(), 4);
  for (int64_t i = 0; i < 4; ++i) EXPECT_NEAR(y.data_ptr<float>()[i], ys[i].get<double>(), 1e-6);
}

TEST(TorchCheckpoint, EveryDtypeStridesOffsetsAndSharedStorage) {
  for (const char* file : {"dtypes.pt", "dtypes_deflated.pt"}) {
    SCOPED_TRACE(file);
    StateDict d = load(fixture(file));
    ASSERT_EQ(d.size(), 17u);
    for (const auto& item : d) expect_matches(item.value(), std::string("dtypes.") + item.key());
    const Tensor& base = d["base"];
    EXPECT_EQ(d["transposed"].strides(), (std::vector<int64_t>{1, 4}));
    EXPECT_EQ(d["slice"].storage_offset(), 5);
    EXPECT_EQ(d["slice"].strides(), (std::vector<int64_t>{4, 1}));
    EXPECT_EQ(d["column"].storage_offset(), 1);
    for (const char* view : {"transposed", "slice", "row", "column"}) {
      EXPECT_TRUE(d[view].is_alias_of(base)) << view;
    }
    EXPECT_FALSE(d["float32"].is_alias_of(base));
    // One storage: a write through the base shows in the row and the column.
    base.data_ptr<float>()[9] = 100.0f;  // base[2][1]
    EXPECT_EQ(d["row"].data_ptr<float>()[1], 100.0f);
    EXPECT_EQ(d["column"].select(0, 2).item<float>(), 100.0f);
    EXPECT_EQ(d["scalar"].dim(), 0);
  }
}

TEST(TorchCheckpoint, NestedCheckpointWalks) {
  for (const char* file : {"checkpoint_p2.pt", "checkpoint_p4.pt"}) {
    SCOPED_TRACE(file);
    IValue c = pickle_load_file(fixture(file));
    ASSERT_TRUE(c.isGenericDict());
    EXPECT_FALSE(c.isOrderedDict());
    EXPECT_EQ(c.at("epoch").toInt(), 7);
    EXPECT_EQ(c.at("lr").toDouble(), 0.5);
    EXPECT_EQ(c.at("name").toStringRef(), "ember");
    EXPECT_TRUE(c.at("flag").toBool());
    EXPECT_TRUE(c.at("nothing").isNone());
    EXPECT_EQ(c.at("neg").toInt(), -5);
    EXPECT_EQ(c.at("big").toInt(), int64_t{1} << 40);
    EXPECT_EQ(c.at("bigneg").toInt(), -(int64_t{1} << 40));
    EXPECT_EQ(c.at("data").toBytesRef(), std::string("\x00\xff", 2));
    const auto& l = c.at("list").toList();
    ASSERT_EQ(l.size(), 4u);
    EXPECT_EQ(l[0].toInt(), 1);
    EXPECT_EQ(l[1].toDouble(), 2.5);
    EXPECT_EQ(l[2].toStringRef(), "x");
    EXPECT_FALSE(l[3].toBool());
    const auto& t = c.at("tuple").toTuple();
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[1].toTuple()[1].toInt(), 3);
    EXPECT_TRUE(c.at("model").isOrderedDict());
    for (const auto& item : c.at("model").to_state_dict()) {
      expect_matches(item.value(), "model_state." + item.key());
    }
    const Tensor& p = c.at("param").toTensor();
    EXPECT_TRUE(p.requires_grad());
    EXPECT_EQ(p.sum().item<float>(), 3.0f);
    const auto& ts = c.at("tensors").toList();
    ASSERT_EQ(ts.size(), 2u);
    EXPECT_EQ(ts[0].toTensor().dtype(), kInt32);
    EXPECT_EQ(ts[1].toTensor().sum().item<float>(), 2.0f);
    // The whole file is not a state dict; the message says how to read it.
    expect_errors<ValueError>({{"load", [&] { (void)load(fixture(file)); }, "'epoch' holds int"}});
  }
}

TEST(TorchCheckpoint, TensorsAndTensorListsLikeLibtorch) {
  Tensor t;
  load(t, fixture("tensor.pt"));
  EXPECT_TRUE(t.equal(ember::arange(5, kFloat32)));
  std::vector<Tensor> ts;
  load(ts, fixture("tensor_list.pt"));
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_TRUE(ts[0].equal(ember::arange(3)));
  EXPECT_TRUE(ts[1].equal(ember::ones({2, 2})));

  // The in-memory form (libtorch's torch::pickle_load).
  IValue v = pickle_load(read_bytes(fixture("tensor.pt")));
  EXPECT_TRUE(v.toTensor().equal(ember::arange(5, kFloat32)));
}

TEST(TorchCheckpoint, BigEndianStoragesAreSwapped) {
  StateDict d = load(fixture("big_endian.pt"));
  EXPECT_TRUE(d["f"].equal(ember::arange(4, kFloat32)));
  EXPECT_TRUE(d["i"].equal(ember::arange(3, kInt16)));
}

TEST(TorchCheckpoint, HostileFilesRaiseValueError) {
  auto case_for = [](const char* file, const char* needle) {
    return ErrorCase{file, [file] { (void)pickle_load_file(fixture(file)); }, needle};
  };
  expect_errors<ValueError>({
      case_for("hostile_os_system.pt", "Unsupported global: GLOBAL posix.system"),
      case_for("hostile_huge_numel.pt", "storage '0' of 4611686018427387904 float32 elements"),
      case_for("hostile_storage_size.pt", "needs 32 bytes, but its entry holds 16"),
      case_for("hostile_out_of_range.pt", "reaches element 4 of its storage, which holds only 4"),
      case_for("hostile_huge_sizes.pt", "overflows 64-bit element counts"),
      case_for("hostile_missing_storage.pt", "has no entry archive/data/7"),
      case_for("hostile_recursive.pt", "a container that holds itself"),
      case_for("hostile_bad_opcode.pt", "unsupported pickle opcode 0xff"),
      case_for("hostile_truncated_pickle.pt", "the data ends early"),
      case_for("hostile_stack_underflow.pt", "stack underflow"),
  });
  // The forbidden global is never called: the error comes while reading the GLOBAL opcode.
  expect_errors<ValueError>(
      {{"load", [] { (void)load(fixture("hostile_os_system.pt")); }, "is not an allowed global"}});
}

TEST(TorchCheckpoint, TruncatedAndCorruptArchivesNeverCrash) {
  const std::vector<char> good = read_bytes(fixture("dtypes.pt"));
  ASSERT_GT(good.size(), 1000u);
  for (size_t n = 0; n < good.size(); n += 31) {
    std::vector<char> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_THROW((void)pickle_load(cut), ValueError) << "truncated to " << n << " bytes";
  }
  // Any flipped byte: loads or raises an ember::Error (CRC-32 catches entry data), never
  // anything else.
  int errors = 0;
  for (size_t i = 0; i < good.size(); i += 7) {
    std::vector<char> bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    try {
      (void)pickle_load(bad);
    } catch (const Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(TorchCheckpoint, ApiErrors) {
  IValue c = pickle_load_file(fixture("checkpoint_p4.pt"));
  expect_errors<TypeError>({
      {"toInt on str", [&] { (void)c.at("name").toInt(); }, "expected int but got str"},
      {"toTensor on list", [&] { (void)c.at("list").toTensor(); }, "expected Tensor but got list"},
      {"at on a list", [&] { (void)c.at("list").at("x"); }, "expected dict but got list"},
  });
  expect_errors<IndexError>({{"missing key", [&] { (void)c.at("nope"); }, "has no key 'nope'"}});
  expect_errors<ValueError>({
      {"to_state_dict on a list", [&] { (void)c.at("list").to_state_dict(); }, "got list"},
  });
  // The legacy (pre-1.6) format is named, not misread as safetensors.
  const std::string legacy = (fs::temp_directory_path() / "ember_legacy_XXXXXX.pt").string();
  {
    std::ofstream out(legacy, std::ios::binary);
    out << std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15);
  }
  expect_errors<ValueError>({{"legacy", [&] { (void)load(legacy); }, "legacy (pre-1.6)"}});
  fs::remove(legacy);
  expect_errors<RuntimeError>(
      {{"missing file", [] { (void)pickle_load_file("/nonexistent/x.pt"); }, "cannot open"}});
}

TEST(TorchCheckpoint, IValueBuilders) {
  IValue d = IValue::dict({{IValue("a"), IValue(1)},
                           {IValue("b"), IValue(ember::ones({2}))},
                           {IValue("a"), IValue(2)}});
  ASSERT_EQ(d.toGenericDict().size(), 2u);  // a repeated key overwrites, as in Python
  EXPECT_EQ(d.at("a").toInt(), 2);
  EXPECT_TRUE(d.contains("b"));
  EXPECT_FALSE(d.contains("c"));
  EXPECT_EQ(IValue::list({IValue(1.5), IValue()}).type_name(), "list");
  EXPECT_EQ(IValue::tuple({}).toTuple().size(), 0u);
}

}  // namespace
}  // namespace ember
