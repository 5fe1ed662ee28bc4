#pragma once
// File readers for datasets: IDX (the MNIST format) and plain text, gzip-compressed or not.
#include <string>

#include "ember/core/tensor.h"

namespace ember::data {

/// Reads an IDX file (http://yann.lecun.com/exdb/mnist/): a big-endian header (two zero bytes, a
/// type code, the number of dimensions, then one 32-bit size per dimension) followed by the raw
/// elements. Type codes: 0x08 uint8 (MNIST: 0x00000801 labels, 0x00000803 images), 0x09 int8,
/// 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64. A gzip-compressed file (.gz) is recognised
/// by its first bytes and decompressed. Errors name the file: RuntimeError when it cannot be
/// opened or read, ValueError when its contents are malformed (empty, bad magic number, truncated
/// header or data, size fields that disagree with the file's length, corrupt gzip data).
///   Tensor images = ember::data::read_idx("data/train-images-idx3-ubyte.gz");  // uint8 [N, 28,
///   28]
Tensor read_idx(const std::string& path);

/// Writes `t` as an IDX file (the inverse of read_idx), gzip-compressed when `path` ends in ".gz".
/// TypeError for a dtype IDX cannot store (bool, int64, float16, bfloat16); ValueError for more
/// than 255 dimensions or a size above 2^32 - 1; RuntimeError when the file cannot be written.
void write_idx(const Tensor& t, const std::string& path);

/// The whole file as a string (gzip-compressed files are decompressed). RuntimeError naming the
/// file when it cannot be opened or read.
std::string read_text(const std::string& path);

}  // namespace ember::data
