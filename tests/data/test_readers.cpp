// IDX and text readers: round trips for every IDX type (plain and gzip), byte-level checks against
// hand-written files, and a table of malformed files that must raise typed errors.
#include <gtest/gtest.h>

#include "data_test_util.h"
#include "ember/data/readers.h"
#include "opdb.h"

namespace ember::test {
namespace {

using data::read_idx;
using data::read_text;
using data::write_idx;

TEST(DataReaders, IdxHandWrittenUint8) {
  TempDir dir;
  // Two 2x3 "images", as MNIST lays them out: magic 0x00000803.
  auto b = idx_header(0x08, {2, 2, 3});
  for (int i = 0; i < 12; ++i) b.push_back(static_cast<unsigned char>(250 + i));  // wraps at 256
  write_bytes(dir.file("img"), b);
  Tensor t = read_idx(dir.file("img"));
  EXPECT_EQ(t.dtype(), kUInt8);
  ASSERT_EQ(t.sizes(), (std::vector<int64_t>{2, 2, 3}));
  auto v = values(t);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(v[i], (250 + i) % 256) << i;
}

TEST(DataReaders, IdxHandWrittenBigEndian) {
  TempDir dir;
  auto b = idx_header(0x0C, {3});  // int32
  const unsigned char payload[] = {0x00, 0x00, 0x01, 0x02, 0xFF, 0xFF,
                                   0xFF, 0xFE, 0x7F, 0xFF, 0xFF, 0xFF};
  b.insert(b.end(), std::begin(payload), std::end(payload));
  write_bytes(dir.file("i32"), b);
  Tensor t = read_idx(dir.file("i32"));
  EXPECT_EQ(t.dtype(), kInt32);
  EXPECT_EQ(values(t), (std::vector<double>{258, -2, 2147483647}));

  auto f = idx_header(0x0D, {1});  // float32 1.5 = 0x3FC00000
  f.insert(f.end(), {0x3F, 0xC0, 0x00, 0x00});
  write_bytes(dir.file("f32"), f);
  EXPECT_EQ(values(read_idx(dir.file("f32"))), (std::vector<double>{1.5}));
}

TEST(DataReaders, IdxGzipFixture) {
  // gzip (made by Python's gzip module) of an int16 IDX file, 2x3: -300 -2 -1 0 1 1000.
  const std::vector<unsigned char> gz = {
      0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0x63, 0x60, 0xe0, 0x66,
      0x62, 0x60, 0x60, 0x00, 0x61, 0xe6, 0x7f, 0x57, 0xfe, 0xff, 0xfb, 0xff, 0x1f, 0xc8,
      0x62, 0x64, 0x7e, 0x01, 0x00, 0x53, 0xca, 0xc2, 0x33, 0x18, 0x00, 0x00, 0x00};
  TempDir dir;
  write_bytes(dir.file("a.idx.gz"), gz);
  write_bytes(dir.file("no_suffix"), gz);  // recognised by its magic bytes, not its name
  for (const char* name : {"a.idx.gz", "no_suffix"}) {
    Tensor t = read_idx(dir.file(name));
    EXPECT_EQ(t.dtype(), kInt16);
    ASSERT_EQ(t.sizes(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(values(t), (std::vector<double>{-300, -2, -1, 0, 1, 1000}));
  }
  // Two gzip members back to back decompress to their concatenation: that is one IDX file
  // followed by trailing bytes, which must be reported.
  auto twice = gz;
  twice.insert(twice.end(), gz.begin(), gz.end());
  write_bytes(dir.file("twice.gz"), twice);
  expect_errors<ValueError>(
      {{"two members", [&] { read_idx(dir.file("twice.gz")); }, "trailing bytes"}});
}

TEST(DataReaders, IdxRoundTripEveryType) {
  TempDir dir;
  const std::vector<std::pair<ScalarType, unsigned char>> types = {
      {kUInt8, 0x08}, {kInt8, 0x09},    {kInt16, 0x0B},
      {kInt32, 0x0C}, {kFloat32, 0x0D}, {kFloat64, 0x0E}};
  const std::vector<std::vector<int64_t>> shapes = {{7}, {3, 4}, {2, 3, 5}, {0, 4}, {}};
  for (auto [dtype, code] : types) {
    for (const auto& shape : shapes) {
      const bool is_unsigned = dtype == kUInt8;
      Tensor t = make_tensor(shape, dtype, is_unsigned ? 0 : -100, 100, shape.size());
      for (const char* suffix : {"", ".gz"}) {
        const std::string path = dir.file("t_" + std::to_string(int(code)) + "_" +
                                          std::to_string(shape.size()) + suffix);
        write_idx(t, path);
        const auto raw = read_bytes(path);
        if (*suffix == 0) {
          // The header is the IDX one, byte for byte.
          ASSERT_GE(raw.size(), 4u);
          EXPECT_EQ(raw[2], code);
          EXPECT_EQ(raw[3], shape.size());
          std::vector<uint32_t> sizes(shape.begin(), shape.end());
          const auto header = idx_header(code, sizes);
          EXPECT_TRUE(std::equal(header.begin(), header.end(), raw.begin()));
          EXPECT_EQ(raw.size(), header.size() + static_cast<size_t>(t.numel() * t.element_size()));
        } else {
          ASSERT_GE(raw.size(), 2u);
          EXPECT_EQ(raw[0], 0x1f);
          EXPECT_EQ(raw[1], 0x8b);
        }
        Tensor back = read_idx(path);
        EXPECT_EQ(back.dtype(), dtype) << path;
        EXPECT_EQ(back.sizes(), t.sizes()) << path;
        EXPECT_EQ(values(back), values(t)) << path;
      }
    }
  }
  // A non-contiguous view is written in its logical order.
  Tensor m = make_tensor({3, 4}, kInt16, -50, 50, 9);
  write_idx(m.t(), dir.file("transposed"));
  EXPECT_EQ(values(read_idx(dir.file("transposed"))), values(m.t()));
}

TEST(DataReaders, MalformedIdxFiles) {
  TempDir dir;
  auto put = [&](const std::string& name, std::vector<unsigned char> b) {
    write_bytes(dir.file(name), b);
    return dir.file(name);
  };
  auto with = [](std::vector<unsigned char> b, std::initializer_list<unsigned char> more) {
    b.insert(b.end(), more);
    return b;
  };
  const std::string empty = put("empty", {});
  const std::string short_header = put("short", {0, 0, 8});
  auto bad_magic_bytes = with(idx_header(0x08, {1}), {7});
  bad_magic_bytes[0] = 0x07;
  const std::string bad_magic = put("magic", bad_magic_bytes);
  std::vector<unsigned char> text = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
  const std::string not_idx = put("text", text);
  auto bad_type_bytes = idx_header(0x08, {1});
  bad_type_bytes[2] = 0x07;
  const std::string bad_type = put("type", with(bad_type_bytes, {1}));
  auto cut_header = idx_header(0x08, {2, 3, 4});
  cut_header.resize(10);
  const std::string trunc_header = put("cut_header", cut_header);
  const std::string trunc_data = put("cut_data", with(idx_header(0x08, {2, 3}), {1, 2, 3, 4, 5}));
  const std::string trailing = put("trailing", with(idx_header(0x08, {2}), {1, 2, 3}));
  const std::string trunc_wide = put("cut_wide", with(idx_header(0x0E, {1}), {0, 0, 0, 0}));
  const std::string huge =
      put("huge", with(idx_header(0x0E, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}), {1}));
  const std::string zero_dim_data = put("zero", with(idx_header(0x08, {0, 5}), {1}));
  // A gzip file cut short, and one with a corrupted checksum.
  Tensor ok = make_tensor({50, 20}, kUInt8, 0, 255, 1);
  write_idx(ok, dir.file("ok.gz"));
  auto gz = read_bytes(dir.file("ok.gz"));
  const std::string gz_cut = put("cut.gz", {gz.begin(), gz.begin() + gz.size() / 2});
  auto bad_crc = gz;
  bad_crc[bad_crc.size() - 6] ^= 0xFF;
  const std::string gz_crc = put("crc.gz", bad_crc);
  const std::string gz_header_only = put("hdr.gz", {0x1f, 0x8b});

  expect_errors<ValueError>({
      {"empty file", [&] { read_idx(empty); }, "the file is empty"},
      {"empty file names it", [&] { read_idx(empty); }, empty},
      {"short header", [&] { read_idx(short_header); }, "truncated header"},
      {"bad magic", [&] { read_idx(bad_magic); }, "bad magic number 0x07000801"},
      {"text file", [&] { read_idx(not_idx); }, "bad magic number 0x68656C6C"},
      {"unknown type", [&] { read_idx(bad_type); }, "unknown data type code 07"},
      {"truncated header", [&] { read_idx(trunc_header); }, "3 dimensions need 16 bytes"},
      {"truncated data", [&] { read_idx(trunc_data); }, "need 6 bytes of data but the file has 5"},
      {"truncated data names it", [&] { read_idx(trunc_data); }, trunc_data},
      {"trailing bytes", [&] { read_idx(trailing); }, "(trailing bytes)"},
      {"truncated float64", [&] { read_idx(trunc_wide); }, "need 8 bytes"},
      {"sizes overflow", [&] { read_idx(huge); }, "more than 2^63"},
      {"empty shape with data", [&] { read_idx(zero_dim_data); }, "(trailing bytes)"},
      {"gzip cut short", [&] { read_idx(gz_cut); }, "truncated gzip data"},
      {"gzip bad checksum", [&] { read_idx(gz_crc); }, "corrupt gzip data"},
      {"gzip header only", [&] { read_idx(gz_header_only); }, "truncated gzip data"},
  });
  expect_errors<RuntimeError>({
      {"missing file", [&] { read_idx(dir.file("nope")); }, "cannot open"},
      {"missing file names it", [&] { read_idx(dir.file("nope")); }, dir.file("nope")},
      {"directory", [&] { read_idx(dir.str()); }, "is a directory"},
      {"text: missing file", [&] { read_text(dir.file("nope.txt")); }, "[read_text] cannot open"},
      {"write into a missing directory", [&] { write_idx(ok, dir.file("no/such/dir/x")); },
       "cannot open"},
  });
  expect_errors<TypeError>({
      {"int64", [&] { write_idx(ember::arange(3), dir.file("x")); }, "'int64'"},
      {"bool", [&] { write_idx(ember::ones({2}, kBool), dir.file("x")); }, "'bool'"},
      {"float16", [&] { write_idx(ember::ones({2}, kFloat16), dir.file("x")); }, "'float16'"},
  });
}

TEST(DataReaders, ReadText) {
  TempDir dir;
  const std::string s = "It is a truth universally acknowledged\n\xC2\xA3 100\n";
  write_bytes(dir.file("a.txt"), {s.begin(), s.end()});
  EXPECT_EQ(read_text(dir.file("a.txt")), s);
  write_bytes(dir.file("empty.txt"), {});
  EXPECT_EQ(read_text(dir.file("empty.txt")), "");
  // Binary content (with NUL bytes) comes back unchanged.
  write_bytes(dir.file("bin"), {0, 1, 0, 255});
  EXPECT_EQ(read_text(dir.file("bin")), std::string("\0\1\0\xFF", 4));
}

}  // namespace
}  // namespace ember::test
