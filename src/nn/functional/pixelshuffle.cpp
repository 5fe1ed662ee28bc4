// F::pixel_shuffle / F::pixel_unshuffle: composites of reshape and permute (their gradients come
// with those ops), with aten/src/ATen/native/PixelShuffle.cpp's checks.
#include "ember/nn/functional/pixelshuffle.h"

#include "ember/ops/shape.h"
#include "ops/util.h"

namespace ember::nn::functional {

namespace {
// SymInts: a dynamic batch stays symbolic (Note [Symbolic shapes]).
std::vector<SymInt> batch_dims(const Tensor& x) {
  std::vector<SymInt> b = x.sym_sizes();
  b.resize(b.size() - 3);
  return b;
}
std::vector<int64_t> permutation(int64_t nb, std::initializer_list<int64_t> tail) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  for (int64_t t : tail) perm.push_back(nb + t);
  return perm;
}
}  // namespace

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& o) {
  EMBER_CHECK(input.defined(), "[pixel_shuffle] argument 'input' is an undefined tensor");
  const int64_t r = o.upscale_factor();
  EMBER_CHECK(input.dim() >= 3,
              "[pixel_shuffle] pixel_shuffle expects input to have at least 3 "
              "dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, "[pixel_shuffle] pixel_shuffle expects a positive upscale_factor, but got ",
              r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  // Checked: a factor of 2^32 once wrapped.
  const int64_t rr = checked_mul(r, r, "pixel_shuffle", "the square of upscale_factor");
  EMBER_CHECK(c % rr == 0,
              "[pixel_shuffle] pixel_shuffle expects its input's 'channel' "
              "dimension to be divisible by the square of upscale_factor, but input.size(-3)=",
              c, " is not divisible by ", rr);
  const int64_t oc = c / rr;
  std::vector<SymInt> b = batch_dims(input), s1 = b, s2 = b;
  s1.insert(s1.end(), {oc, r, r, h, w});
  s2.insert(s2.end(), {oc, h * r, w * r});
  const int64_t nb = static_cast<int64_t>(b.size());
  return input.reshape(SymIntList(s1))
      .permute(permutation(nb, {0, 3, 1, 4, 2}))
      .reshape(SymIntList(s2));
}

Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& o) {
  EMBER_CHECK(input.defined(), "[pixel_unshuffle] argument 'input' is an undefined tensor");
  const int64_t r = o.downscale_factor();
  EMBER_CHECK(input.dim() >= 3,
              "[pixel_unshuffle] pixel_unshuffle expects input to have at least "
              "3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(r > 0,
              "[pixel_unshuffle] pixel_unshuffle expects a positive downscale_factor, but "
              "got ",
              r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(h % r == 0,
              "[pixel_unshuffle] pixel_unshuffle expects height to be divisible by "
              "downscale_factor, but input.size(-2)=",
              h, " is not divisible by ", r);
  EMBER_CHECK(w % r == 0,
              "[pixel_unshuffle] pixel_unshuffle expects width to be divisible by "
              "downscale_factor, but input.size(-1)=",
              w, " is not divisible by ", r);
  std::vector<SymInt> b = batch_dims(input), s1 = b, s2 = b;
  s1.insert(s1.end(), {c, h / r, r, w / r, r});
  s2.insert(s2.end(), {c * r * r, h / r, w / r});
  const int64_t nb = static_cast<int64_t>(b.size());
  return input.reshape(SymIntList(s1))
      .permute(permutation(nb, {0, 2, 4, 1, 3}))
      .reshape(SymIntList(s2));
}

}  // namespace ember::nn::functional
