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

  SmallVector() = default;
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
    clear();
    release_heap();
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return ptr(); }
  const T* data() const { return ptr(); }
  T* begin() { return ptr(); }
  T* end() { return ptr() + size_; }
  const T* begin() const { return ptr(); }
  const T* end() const { return ptr() + size_; }
  T& operator[](size_t i) { return ptr()[i]; }
  const T& operator[](size_t i) const { return ptr()[i]; }
  T& back() { return ptr()[size_ - 1]; }
  const T& back() const { return ptr()[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    T* fresh = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    std::uninitialized_move(begin(), end(), fresh);
    std::destroy(begin(), end());
    release_heap();
    heap_ = fresh;
    capacity_ = n;
  }
  void push_back(T v) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    new (ptr() + size_) T(std::move(v));
    ++size_;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    T* p = new (ptr() + size_) T(std::forward<Args>(args)...);
    ++size_;
    return *p;
  }
  void pop_back() { std::destroy_at(ptr() + --size_); }
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
  T* ptr() { return heap_ ? heap_ : reinterpret_cast<T*>(inline_); }
  const T* ptr() const { return heap_ ? heap_ : reinterpret_cast<const T*>(inline_); }
  void release_heap() {
    if (heap_) ::operator delete(heap_, std::align_val_t(alignof(T)));
    heap_ = nullptr;
    capacity_ = N;
  }
  // Leaves `o` empty; this vector is empty with no heap buffer.
  void take(SmallVector&& o) {
    if (o.heap_) {
      heap_ = o.heap_;
      capacity_ = o.capacity_;
      size_ = o.size_;
      o.heap_ = nullptr;
      o.capacity_ = N;
      o.size_ = 0;
    } else {
      append(std::make_move_iterator(o.begin()), std::make_move_iterator(o.end()));
      o.clear();
    }
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* heap_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = N;
};

}  // namespace ember
