#pragma once
// A vector that keeps up to N elements inline (no heap allocation) and moves to the heap beyond.
// Shapes and strides have a handful of entries: dispatch builds several per op, and a heap
// allocation each would cost more than a tiny op's kernel.
#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace ember {

template <typename T, size_t N>
class SmallVector {
 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() noexcept {}  // not `= default`: a value-initialised one would zero inline_
  SmallVector(size_t n, const T& value) { assign(n, value); }
  SmallVector(std::initializer_list<T> l) { append(l.begin(), l.end()); }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  SmallVector(It first, It last) {
    append(first, last);
  }
  SmallVector(const SmallVector& o) { append(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { take(std::move(o)); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      clear();
      append(o.begin(), o.end());
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      clear();
      release_heap();
      take(std::move(o));
    }
    return *this;
  }
  ~SmallVector() {
    std::destroy(begin(), end());
    release_heap();
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    T* fresh = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    std::uninitialized_move(begin(), end(), fresh);
    std::destroy(begin(), end());
    release_heap();
    data_ = fresh;
    capacity_ = n;
  }
  void push_back(T v) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    new (data_ + size_) T(std::move(v));
    ++size_;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    T* p = new (data_ + size_) T(std::forward<Args>(args)...);
    ++size_;
    return *p;
  }
  void pop_back() { std::destroy_at(data_ + --size_); }
  void clear() {
    std::destroy(begin(), end());
    size_ = 0;
  }
  void resize(size_t n, const T& value = T()) {
    while (size_ > n) pop_back();
    reserve(n);
    while (size_ < n) push_back(value);
  }
  void assign(size_t n, const T& value) {
    clear();
    resize(n, value);
  }
  /// Inserts `count` copies of `value` before `pos`.
  T* insert(T* pos, size_t count, const T& value) {
    const size_t at = static_cast<size_t>(pos - begin());
    const T copy = value;  // value may live in this vector
    const size_t old = size_;
    resize(old + count, copy);
    std::rotate(begin() + at, begin() + old, end());
    return begin() + at;
  }
  template <typename It>
  void append(It first, It last) {
    const auto n = static_cast<size_t>(std::distance(first, last));
    reserve(size_ + n);
    // Constructs in place (no temporary per element); on a throw the constructed ones are undone.
    std::uninitialized_copy(first, last, end());
    size_ += n;
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator!=(const SmallVector& a, const SmallVector& b) { return !(a == b); }

 private:
  T* inline_data() { return reinterpret_cast<T*>(inline_); }
  bool on_heap() const { return data_ != reinterpret_cast<const T*>(inline_); }
  void release_heap() {
    if (on_heap()) ::operator delete(data_, std::align_val_t(alignof(T)));
    data_ = inline_data();
    capacity_ = N;
  }
  // Leaves `o` empty; this vector is empty with no heap buffer. Inlined: shapes move on every op.
  [[gnu::always_inline]] void take(SmallVector&& o) {
    if (o.on_heap()) {
      data_ = o.data_;
      capacity_ = o.capacity_;
      size_ = o.size_;
      o.data_ = o.inline_data();
      o.capacity_ = N;
    } else {
      for (size_t i = 0; i < o.size_; ++i) new (data_ + i) T(std::move(o.data_[i]));
      size_ = o.size_;
      std::destroy(o.begin(), o.end());
    }
    o.size_ = 0;
  }

  // data_ points at inline_ until the elements outgrow it (no branch per access).
  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* data_ = inline_data();
  size_t size_ = 0;
  size_t capacity_ = N;
};

}  // namespace ember
