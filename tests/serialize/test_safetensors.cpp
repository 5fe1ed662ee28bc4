// safetensors: format, round trips, memory mapping, atomic writes and hostile input.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "ember/serialize.h"
#include "opdb.h"

namespace ember {
namespace {

namespace fs = std::filesystem;
using test::ErrorCase;
using test::expect_errors;

// A fresh directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ember_st_XXXXXX").string();
    EXPECT_NE(::mkdtemp(tmpl.data()), nullptr);
    path_ = tmpl;
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path path_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The raw bytes of a tensor's values in row-major order.
std::string raw(const Tensor& t) {
  Tensor c = t.contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()),
                     static_cast<size_t>(c.numel() * c.element_size()));
}

// A file as Python's safetensors lays it out: length, JSON padded with spaces, data.
std::string make_file(const std::string& json, const std::string& data) {
  std::string h = json;
  h.append((8 - h.size() % 8) % 8, ' ');
  uint64_t n = h.size();
  std::string out(reinterpret_cast<const char*>(&n), 8);
  return out + h + data;
}

StateDict sample_dict() {
  StateDict sd;
  for (auto dt : test::all_dtypes()) {
    sd.insert(std::string("t_") + dtype_name(dt), test::make_tensor({2, 3}, dt, -5, 5, 7));
  }
  sd.insert("scalar", test::from_values({}, {3.5}));
  sd.insert("empty", test::make_tensor({0, 4}, kFloat32));
  sd.insert("strided", test::make_noncontiguous(test::make_tensor({3, 4}, kInt32)));
  return sd;
}

void expect_same(const StateDict& a, const StateDict& b) {
  ASSERT_EQ(a.keys(), b.keys());
  for (const auto& item : a) {
    const Tensor& x = item.value();
    const Tensor& y = b[item.key()];
    EXPECT_EQ(x.dtype(), y.dtype()) << item.key();
    EXPECT_EQ(x.sizes(), y.sizes()) << item.key();
    EXPECT_EQ(raw(x), raw(y)) << item.key();
  }
}

TEST(Safetensors, ExactBytesOfASmallFile) {
  StateDict sd;
  sd.insert("a", test::from_values({2}, {1.0, 2.0}, kFloat32));
  sd.insert("b", test::from_values({}, {1}, kBool));
  std::string bytes = safetensors::serialize(sd, {{"format", "pt"}});
  const std::string json =
      R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("b":{"dtype":"BOOL","shape":[],"data_offsets":[8,9]}})";
  float v[2] = {1.0f, 2.0f};
  std::string data(reinterpret_cast<const char*>(v), 8);
  data.push_back('\x01');
  EXPECT_EQ(bytes, make_file(json, data));
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
}

TEST(Safetensors, ReadsAForeignLayout) {
  // Another writer: metadata last, tensors listed out of data order, extra whitespace.
  const std::string json = R"({ "w": {"data_offsets": [4, 12], "shape": [1, 2], "dtype": "F32"},)"
                           R"( "i": {"dtype": "I32", "shape": [1], "data_offsets": [0, 4]},)"
                           R"( "__metadata__": {"note": "hi"} })";
  int32_t i = -7;
  float w[2] = {0.5f, -1.5f};
  std::string data(reinterpret_cast<const char*>(&i), 4);
  data.append(reinterpret_cast<const char*>(w), 8);
  StateDict sd = safetensors::deserialize(make_file(json, data));
  ASSERT_EQ(sd.keys(), (std::vector<std::string>{"w", "i"}));  // header order
  EXPECT_EQ(test::values(sd["i"]), std::vector<double>{-7});
  EXPECT_EQ(sd["w"].sizes(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(test::values(sd["w"]), (std::vector<double>{0.5, -1.5}));

  TempDir dir;
  write_bytes(dir.file("x.safetensors"), make_file(json, data));
  safetensors::SafeOpen f(dir.file("x.safetensors"));
  EXPECT_EQ(f.metadata(), (safetensors::Metadata{{"note", "hi"}}));
  EXPECT_EQ(f.dtype("w"), kFloat32);
  EXPECT_EQ(f.shape("w"), (std::vector<int64_t>{1, 2}));
}

TEST(Safetensors, RoundTripEveryDtypeInMemoryAndOnDisk) {
  StateDict sd = sample_dict();
  expect_same(sd, safetensors::deserialize(safetensors::serialize(sd)));
  TempDir dir;
  safetensors::save_file(sd, dir.file("m.safetensors"), {{"k", "v"}});
  expect_same(sd, safetensors::load_file(dir.file("m.safetensors")));
  ember::save(sd, dir.file("n.safetensors"));
  expect_same(sd, ember::load(dir.file("n.safetensors")));
  // Non-contiguous input is stored as its values.
  EXPECT_EQ(test::values(ember::load(dir.file("n.safetensors"))["strided"]),
            test::values(sd["strided"]));
}

TEST(Safetensors, HalfAndBFloat16AreBitExact) {
  // Every interesting bit pattern: signed zeros, subnormals, max, infinities, NaN payloads.
  std::vector<uint16_t> bits = {0x0000, 0x8000, 0x0001, 0x03ff, 0x7bff, 0x7c00, 0xfc00,
                                0x7e01, 0xfd55, 0x3c00, 0x7f80, 0xff81, 0x7fc3, 0x0080};
  for (auto dt : {kFloat16, kBFloat16}) {
    const auto n = static_cast<int64_t>(bits.size());
    Tensor t = ember::from_blob(bits.data(), {n}, dt);
    StateDict sd;
    sd.insert("x", t);
    // A strided view: every other element of a wider buffer.
    Tensor wide = ember::empty({n, 2}, dt);
    Tensor col = wide.select(1, 1);
    std::vector<uint16_t> buf(static_cast<size_t>(2 * n), 0x1234);
    for (size_t i = 0; i < bits.size(); ++i) buf[2 * i + 1] = bits[i];
    std::memcpy(wide.data_ptr(), buf.data(), buf.size() * 2);
    sd.insert("strided", col);
    StateDict back = safetensors::deserialize(safetensors::serialize(sd));
    const std::string expected(reinterpret_cast<const char*>(bits.data()), bits.size() * 2);
    auto bytes = [](const Tensor& x) {
      return std::string(static_cast<const char*>(x.data_ptr()),
                         static_cast<size_t>(x.numel() * x.element_size()));
    };
    ASSERT_TRUE(back["x"].is_contiguous());
    EXPECT_EQ(bytes(back["x"]), expected) << dtype_name(dt);
    EXPECT_EQ(bytes(back["strided"]), expected) << dtype_name(dt);
  }
}

TEST(Safetensors, SafeOpenSharesTheMappingAndOutlivesIt) {
  TempDir dir;
  StateDict sd = sample_dict();
  safetensors::save_file(sd, dir.file("m.safetensors"), {{"format", "pt"}});
  Tensor kept;
  {
    safetensors::SafeOpen f(dir.file("m.safetensors"));
    EXPECT_EQ(f.keys(), sd.keys());
    EXPECT_EQ(f.metadata().at("format"), "pt");
    EXPECT_TRUE(f.contains("scalar"));
    EXPECT_FALSE(f.contains("nope"));
    for (const auto& k : f.keys()) {
      Tensor t = f.get_tensor(k);
      EXPECT_EQ(raw(t), raw(sd[k])) << k;
    }
    // Every dtype lands aligned in the file, so nothing is copied.
    for (const auto& k : f.keys()) {
      if (sd[k].numel() > 0) {
        EXPECT_FALSE(f.get_tensor(k).unsafeGetTensorImpl()->storage()->owned()) << k;
      }
    }
    kept = f.get_tensor("t_float32");
    // Zero-copy: the storage is the mapping, not memory from Ember's allocator.
    EXPECT_FALSE(kept.unsafeGetTensorImpl()->storage()->owned());
    expect_errors<IndexError>(
        {{"missing", [&] { f.get_tensor("nope"); }, "no tensor named 'nope'"}});
  }
  // The SafeOpen is gone; the tensor keeps the mapping alive.
  EXPECT_EQ(raw(kept), raw(sd["t_float32"]));
  // The mapping is private: writing to the tensor does not touch the file.
  const std::string before = read_bytes(dir.file("m.safetensors"));
  kept.fill_(0);
  EXPECT_EQ(test::values(kept), std::vector<double>(6, 0.0));
  EXPECT_EQ(read_bytes(dir.file("m.safetensors")), before);
  // Atomically replacing the file while it is mapped leaves the mapped tensor intact.
  Tensor again = safetensors::SafeOpen(dir.file("m.safetensors")).get_tensor("t_int64");
  StateDict other;
  other.insert("z", ember::zeros({100}));
  safetensors::save_file(other, dir.file("m.safetensors"));
  EXPECT_EQ(raw(again), raw(sd["t_int64"]));
}

TEST(Safetensors, BoolBytesOtherThanZeroOrOneReadAsTrue) {
  const std::string json = R"({"b":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})";
  std::string file = make_file(json, std::string("\x00\x02\xff", 3));
  EXPECT_EQ(test::values(safetensors::deserialize(file)["b"]), (std::vector<double>{0, 1, 1}));
  TempDir dir;
  write_bytes(dir.file("b.safetensors"), file);
  EXPECT_EQ(test::values(safetensors::SafeOpen(dir.file("b.safetensors")).get_tensor("b")),
            (std::vector<double>{0, 1, 1}));
}

TEST(Safetensors, MisalignedDataIsCopiedNotMisread) {
  // A U8 of one byte first leaves the F32 after it at an odd address in the mapping.
  const std::string json = R"({"u":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                           R"("f":{"dtype":"F32","shape":[2],"data_offsets":[1,9]}})";
  float v[2] = {3.0f, -4.0f};
  std::string data = "\x05" + std::string(reinterpret_cast<const char*>(v), 8);
  TempDir dir;
  write_bytes(dir.file("a.safetensors"), make_file(json, data));
  safetensors::SafeOpen f(dir.file("a.safetensors"));
  Tensor t = f.get_tensor("f");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 4, 0u);
  EXPECT_EQ(test::values(t), (std::vector<double>{3, -4}));
}

TEST(Safetensors, InvalidTensorsToSave) {
  StateDict undefined;
  undefined.insert("u", Tensor());
  StateDict reserved;
  reserved.insert("__metadata__", ember::zeros({1}));
  StateDict not_utf8;
  not_utf8.insert(std::string("bad\xff"), ember::zeros({1}));
  expect_errors<ValueError>({
      {"undefined", [&] { safetensors::serialize(undefined); }, "tensor 'u' is undefined"},
      {"reserved name", [&] { safetensors::serialize(reserved); }, "'__metadata__' is reserved"},
      {"utf8", [&] { safetensors::serialize(not_utf8); }, "valid UTF-8"},
      {"utf8 metadata",
       [&] {
         safetensors::serialize(StateDict(), {{"k", "\xc3"}});
       },
       "valid UTF-8"},
  });
}

// ---- atomic writes

std::vector<std::string> only(const std::string& name) { return {name}; }

TEST(SafetensorsAtomic, FailedSaveLeavesTheOldFileAndNoTemporary) {
  TempDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  safetensors::save_file(sample_dict(), path);
  const std::string old = read_bytes(path);

  StateDict bad = sample_dict();
  bad.insert("u", Tensor());
  EXPECT_THROW(safetensors::save_file(bad, path), ValueError);
  EXPECT_EQ(read_bytes(path), old);
  EXPECT_EQ(dir.entries(), only("ckpt.safetensors"));

  // A write that fails halfway: the file size limit stops write() with EFBIG.
  StateDict big;
  big.insert("big", ember::ones({1 << 16}));  // 256 KiB
  struct rlimit saved {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 64 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  try {
    safetensors::save_file(big, path);
    ADD_FAILURE() << "a write past RLIMIT_FSIZE did not fail";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("write"), std::string::npos) << e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(read_bytes(path), old);
  EXPECT_EQ(dir.entries(), only("ckpt.safetensors"));

  // The target is a directory: rename fails, the temporary goes.
  fs::create_directory(dir.file("adir"));
  EXPECT_THROW(safetensors::save_file(sample_dict(), dir.file("adir")), RuntimeError);
  EXPECT_TRUE(fs::is_directory(dir.file("adir")));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"adir", "ckpt.safetensors"}));

  // Success replaces the file completely.
  safetensors::save_file(big, path);
  expect_same(big, safetensors::load_file(path));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"adir", "ckpt.safetensors"}));
}

TEST(SafetensorsAtomic, ReplacingKeepsPermissions) {
  TempDir dir;
  const std::string path = dir.file("p.safetensors");
  safetensors::save_file(sample_dict(), path);
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  safetensors::save_file(sample_dict(), path);
  EXPECT_EQ(fs::status(path).permissions(), fs::perms::owner_read | fs::perms::owner_write);
}

TEST(SafetensorsAtomic, IoErrorsNameThePath) {
  TempDir dir;
  const std::string missing_dir = dir.file("no/such/dir/x.safetensors");
  expect_errors<RuntimeError>({
      {"missing directory", [&] { safetensors::save_file(sample_dict(), missing_dir); },
       missing_dir},
      {"missing file", [&] { safetensors::load_file(dir.file("absent")); }, "absent"},
      {"directory", [&] { safetensors::SafeOpen f(dir.path().string()); }, "not a regular file"},
  });
  EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

// ---- hostile input

const std::string kGood = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";

std::string with_length(uint64_t n, const std::string& rest) {
  return std::string(reinterpret_cast<const char*>(&n), 8) + rest;
}

TEST(SafetensorsHostile, ClearErrorsForMalformedFiles) {
  const std::string d8(8, '\0');
  auto file = [&](const std::string& json, const std::string& data) {
    return make_file(json, data);
  };
  struct Case {
    std::string desc, bytes, needle;
  };
  std::vector<Case> cases = {
      {"empty", "", "too few for the 8-byte header length"},
      {"5 bytes", "\x01\x02\x03\x04\x05", "too few"},
      {"length past end", with_length(1000, "{}"), "header length 1000 is larger"},
      {"huge length", with_length(uint64_t(1) << 63, "{}"), "exceeds the 100 MB limit"},
      {"max length", with_length(UINT64_MAX, "{}"), "exceeds"},
      {"zero length", with_length(0, ""), "does not start with '{'"},
      {"not an object", file("[1, 2]", ""), "does not start with '{'"},
      {"invalid json", file("{\"a\": ", ""), "not a valid JSON object"},
      {"trailing garbage", file("{} x", ""), "not a valid JSON object"},
      {"entry not object", file(R"({"a": 3})", ""), "tensor 'a' must be a JSON object"},
      {"no dtype", file(R"({"a":{"shape":[2],"data_offsets":[0,8]}})", d8), "has no 'dtype'"},
      {"no shape", file(R"({"a":{"dtype":"F32","data_offsets":[0,8]}})", d8), "has no 'shape'"},
      {"no offsets", file(R"({"a":{"dtype":"F32","shape":[2]}})", d8), "has no 'data_offsets'"},
      {"dtype not string", file(R"({"a":{"dtype":1,"shape":[2],"data_offsets":[0,8]}})", d8),
       "'dtype' must be a string"},
      {"unknown dtype", file(R"({"a":{"dtype":"F17","shape":[2],"data_offsets":[0,8]}})", d8),
       "dtype 'F17'"},
      {"unsupported dtype", file(R"({"a":{"dtype":"U16","shape":[4],"data_offsets":[0,8]}})", d8),
       "does not support"},
      {"negative shape", file(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", d8),
       "non-negative integers"},
      {"float shape", file(R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", d8),
       "non-negative integers"},
      {"shape not list", file(R"({"a":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})", d8),
       "'shape' must be a list"},
      {"huge shape",
       file(R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,8]}})", d8),
       "too many elements"},
      {"dim past int64",
       file(R"({"a":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,8]}})", d8),
       "non-negative integers"},
      {"bytes disagree", file(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", d8),
       "needs 12 bytes, but data_offsets [0, 8] span 8"},
      {"element size overflow",
       file(R"({"a":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,8]}})", d8),
       "needs"},
      {"reversed offsets", file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", d8),
       "end before they begin"},
      {"three offsets", file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8,9]}})", d8),
       "'data_offsets' must be [begin, end]"},
      {"negative offset", file(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[-4,-4]}})", ""),
       "'data_offsets' must be [begin, end]"},
      {"offsets past end", file(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", d8),
       "past the end of the data"},
      {"huge offsets",
       file(
           R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[18446744073709551614,18446744073709551615]}})",
           d8),
       "past the end of the data"},
      {"gap", file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", d8),
       "starts at byte 4 of the data, expected 0"},
      {"overlap",
       file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
            R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
            d8),
       "overlap"},
      {"uncovered data", file(kGood, d8 + "xyz"), "cover 8 bytes but the data holds 11"},
      {"truncated data", file(kGood, "1234"), "past the end of the data (4 bytes)"},
      {"metadata not object", file(R"({"__metadata__": [1]})", ""), "'__metadata__' must map"},
      {"metadata value", file(R"({"__metadata__": {"k": 1}})", ""),
       "value for 'k' is not a string"},
      {"bad utf8", file("{\"a\xff\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", d8),
       "not a valid JSON object"},
      {"deep nesting", file(R"({"__metadata__":)" + std::string(100000, '[') + "}", ""),
       "not a valid JSON object"},
      {"deep valid nesting",
       file(R"({"__metadata__":)" + std::string(100000, '[') + std::string(100000, ']') + "}", ""),
       "'__metadata__' must map"},
  };
  TempDir dir;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.desc);
    expect_errors<ValueError>({{c.desc, [&] { safetensors::deserialize(c.bytes); }, c.needle}});
    const std::string path = dir.file("h.safetensors");
    write_bytes(path, c.bytes);
    // File errors name the file.
    expect_errors<ValueError>(
        {{c.desc + " (load_file)", [&] { safetensors::load_file(path); }, c.needle},
         {c.desc + " (path)", [&] { safetensors::load_file(path); }, path},
         {c.desc + " (SafeOpen)", [&] { safetensors::SafeOpen f(path); }, c.needle}});
  }
}

// Every load of a damaged file either succeeds or throws ember::Error; with ASan this also proves
// no read leaves the buffer.
void load_or_error(const std::string& bytes, int& ok, int& failed) {
  try {
    StateDict sd = safetensors::deserialize(bytes);
    for (const auto& item : sd) (void)test::values(item.value());
    ++ok;
  } catch (const Error&) {
    ++failed;
  }
}

TEST(SafetensorsHostile, FuzzedFilesLoadOrThrowEmberErrors) {
  StateDict sd;
  sd.insert("w", test::make_tensor({3, 2}, kFloat32));
  sd.insert("b", test::make_tensor({2}, kBFloat16));
  sd.insert("m", test::make_tensor({5}, kBool));
  sd.insert("i", test::make_tensor({}, kInt64));
  const std::string good = safetensors::serialize(sd, {{"format", "pt"}});
  int ok = 0, failed = 0;

  // Truncated at every length: never a valid file.
  for (size_t len = 0; len < good.size(); ++len) {
    load_or_error(good.substr(0, len), ok, failed);
  }
  EXPECT_EQ(ok, 0);
  EXPECT_EQ(failed, static_cast<int>(good.size()));

  // Header length field altered.
  uint64_t n = 0;
  std::memcpy(&n, good.data(), 8);
  for (uint64_t v : {uint64_t(0), uint64_t(1), uint64_t(7), n - 8, n - 1, n + 1, n + 8,
                     uint64_t(good.size()), uint64_t(good.size() - 8), uint64_t(1) << 32,
                     uint64_t(1) << 63, UINT64_MAX, uint64_t(100'000'001)}) {
    std::string b = good;
    std::memcpy(b.data(), &v, 8);
    load_or_error(b, ok, failed);
  }
  // Random bytes flipped, anywhere (header or data).
  std::mt19937_64 rng(1234);
  for (int iter = 0; iter < 3000; ++iter) {
    std::string b = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) {
      const size_t pos = rng() % b.size();
      if (rng() % 2) {
        b[pos] = static_cast<char>(rng());
      } else {
        b[pos] = static_cast<char>(b[pos] ^ (1 << (rng() % 8)));
      }
    }
    load_or_error(b, ok, failed);
  }
  // Flips in the data only: the header is intact, so these all load.
  const int ok_before = ok;
  for (int iter = 0; iter < 200; ++iter) {
    std::string b = good;
    b[8 + n + rng() % (b.size() - 8 - n)] = static_cast<char>(rng());
    load_or_error(b, ok, failed);
  }
  EXPECT_EQ(ok - ok_before, 200);
  EXPECT_GT(failed, 0);

  // The memory-mapped reader on damaged files too.
  TempDir dir;
  const std::string path = dir.file("f.safetensors");
  for (int iter = 0; iter < 200; ++iter) {
    std::string b = good;
    b[rng() % b.size()] = static_cast<char>(rng());
    if (iter % 5 == 0) b.resize(rng() % b.size());
    write_bytes(path, b);
    try {
      safetensors::SafeOpen f(path);
      for (const auto& k : f.keys()) (void)test::values(f.get_tensor(k));
    } catch (const Error&) {
    }
  }
}

// ---- ember::save / ember::load for objects with a state dict

struct Counter {
  double value = 0;
  StateDict state_dict() const {
    StateDict sd;
    sd.insert("value", test::from_values({}, {value}));
    return sd;
  }
  void load_state_dict(const StateDict& sd) { value = sd["value"].item<double>(); }
};
static_assert(Stateful<Counter>);
static_assert(!Stateful<StateDict>);

TEST(Serialize, SaveAndLoadAnythingWithAStateDict) {
  TempDir dir;
  Counter c{4.25};
  ember::save(c, dir.file("c.safetensors"));
  Counter d;
  ember::load(d, dir.file("c.safetensors"));
  EXPECT_EQ(d.value, 4.25);
  auto holder = std::make_shared<Counter>(Counter{-2});
  ember::save(holder, dir.file("h.safetensors"));
  auto other = std::make_shared<Counter>();
  ember::load(other, dir.file("h.safetensors"));
  EXPECT_EQ(other->value, -2);
}

}  // namespace
}  // namespace ember
