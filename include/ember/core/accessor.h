#pragma once
// libtorch's TensorAccessor: typed, bounds-unchecked element access through sizes and strides,
// obtained with `t.accessor<float, 2>()` (the tensor must outlive the accessor).
//
//   auto a = t.accessor<float, 2>();
//   for (int64_t i = 0; i < a.size(0); ++i)
//     for (int64_t j = 0; j < a.size(1); ++j) a[i][j] *= 2;
#include <cstddef>
#include <cstdint>

namespace ember {

template <typename T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(data_ + i * strides_[0], sizes_ + 1, strides_ + 1);
  }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

template <typename T>
class TensorAccessor<T, 1> {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  T& operator[](int64_t i) const { return data_[i * strides_[0]]; }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

}  // namespace ember
