// operator<< for Tensor: PyTorch's repr (torch/_tensor_str.py) with its default print options.
// Note [Tensor printing]: one _Formatter decides, for the whole tensor (or, when summarised, the
// elements that are shown), whether floats print as integers ("1."), in fixed point with four
// decimals or in scientific notation, and the common width every element is padded to. Rows are
// wrapped at 80 columns and tensors of more than 1000 elements show three items at each end of
// every dimension.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

namespace {

constexpr int kPrecision = 4;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kLineWidth = 80;

// Reads elements of a tensor by element offset from its first element.
class ElementReader {
 public:
  explicit ElementReader(const Tensor& t)
      : base_(static_cast<const char*>(t.data_ptr())), dtype_(t.dtype()), size_(t.element_size()) {}
  double as_double(int64_t off) const {
    const char* p = base_ + off * size_;
    switch (dtype_) {
      case kFloat16:
        return static_cast<float>(*reinterpret_cast<const Half*>(p));
      case kBFloat16:
        return static_cast<float>(*reinterpret_cast<const BFloat16*>(p));
      case kFloat32:
        return *reinterpret_cast<const float*>(p);
      case kFloat64:
        return *reinterpret_cast<const double*>(p);
      default:
        return static_cast<double>(as_int(off));
    }
  }
  int64_t as_int(int64_t off) const {
    const char* p = base_ + off * size_;
    switch (dtype_) {
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
        return *reinterpret_cast<const int64_t*>(p);
      default:
        return 0;  // floating dtypes are read with as_double
    }
  }

 private:
  const char* base_;
  ScalarType dtype_;
  int64_t size_;
};

// Concatenates with append: GCC 12 reports -Wrestrict false positives on "literal" + std::string.
template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::string r;
  (r.append(parts), ...);
  return r;
}

std::string printf_double(const char* fmt, double v) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, kPrecision, v);
  return buf;
}

// Python's formatting of a non-finite float: "nan", "inf", "-inf".
std::string nonfinite_str(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

std::string fixed_str(double v) {
  return std::isfinite(v) ? printf_double("%.*f", v) : nonfinite_str(v);
}
std::string sci_str(double v) {
  return std::isfinite(v) ? printf_double("%.*e", v) : nonfinite_str(v);
}
std::string int_str(double v) {  // "{:.0f}"
  if (!std::isfinite(v)) return nonfinite_str(v);
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%.0f", v);
  return buf;
}

// torch._tensor_str._Formatter.
class Formatter {
 public:
  Formatter(const Tensor& t, const ElementReader& reader, const std::vector<int64_t>& offsets)
      : dtype_(t.dtype()), floating_(is_floating_point(t.dtype())), reader_(reader) {
    if (!floating_) {
      for (int64_t off : offsets) max_width_ = std::max(max_width_, raw(off).size());
      return;
    }
    std::vector<double> vals;
    for (int64_t off : offsets) {
      const double v = reader.as_double(off);
      if (std::isfinite(v) && v != 0) vals.push_back(v);
    }
    if (vals.empty()) return;
    double lo = std::fabs(vals[0]), hi = lo;
    for (double v : vals) {
      lo = std::min(lo, std::fabs(v));
      hi = std::max(hi, std::fabs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    if (int_mode_) {
      // All integers: "1." unless the magnitudes call for scientific notation.
      if (hi / lo > 1000.0 || hi > 1.0e8) {
        sci_mode_ = true;
        for (double v : vals) max_width_ = std::max(max_width_, sci_str(v).size());
      } else {
        for (double v : vals) max_width_ = std::max(max_width_, int_str(v).size() + 1);
      }
    } else if (hi / lo > 1000.0 || hi > 1.0e8 || lo < 1.0e-4) {
      sci_mode_ = true;
      for (double v : vals) max_width_ = std::max(max_width_, sci_str(v).size());
    } else {
      for (double v : vals) max_width_ = std::max(max_width_, fixed_str(v).size());
    }
  }

  size_t width() const { return max_width_; }

  std::string format(int64_t off) const {
    std::string s = raw(off);
    return s.size() < max_width_ ? concat(std::string(max_width_ - s.size(), ' '), s) : s;
  }

 private:
  std::string raw(int64_t off) const {
    if (!floating_) {
      if (dtype_ == kBool) return reader_.as_int(off) ? "True" : "False";
      return std::to_string(reader_.as_int(off));
    }
    const double v = reader_.as_double(off);
    if (sci_mode_) return sci_str(v);
    if (int_mode_) return std::isfinite(v) ? concat(int_str(v), ".") : int_str(v);
    return fixed_str(v);
  }

  ScalarType dtype_;
  bool floating_;
  const ElementReader& reader_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  size_t max_width_ = 1;
};

class TensorPrinter {
 public:
  explicit TensorPrinter(const Tensor& t) : t_(t), reader_(t), summarize_(t.numel() > kThreshold) {}

  std::string body(int64_t indent) {
    std::vector<int64_t> shown;
    collect(0, 0, shown);
    formatter_.emplace(t_, reader_, shown);
    return render(0, 0, indent);
  }

 private:
  // The indices printed along dim d: all of them, or the edges when summarising.
  std::vector<int64_t> indices(int64_t d) const {
    const int64_t n = t_.sizes()[d];
    std::vector<int64_t> idx;
    if (summarize_ && n > 2 * kEdgeItems) {
      for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
      idx.push_back(-1);  // the "..." marker
      for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    }
    return idx;
  }

  void collect(int64_t off, int64_t d, std::vector<int64_t>& out) const {
    if (d == t_.dim()) {
      out.push_back(off);
      return;
    }
    for (int64_t i : indices(d)) {
      if (i >= 0) collect(off + i * t_.strides()[d], d + 1, out);
    }
  }

  std::string render(int64_t off, int64_t d, int64_t indent) const {
    const int64_t remaining = t_.dim() - d;
    if (remaining == 0) return formatter_->format(off);
    if (remaining == 1) return vector(off, d, indent);
    std::vector<std::string> slices;
    for (int64_t i : indices(d)) {
      slices.push_back(i < 0 ? "..." : render(off + i * t_.strides()[d], d + 1, indent + 1));
    }
    const std::string sep =
        concat(",", std::string(remaining - 1, '\n'), std::string(indent + 1, ' '));
    return concat("[", join(slices, sep), "]");
  }

  std::string vector(int64_t off, int64_t d, int64_t indent) const {
    const auto element_length = static_cast<int64_t>(formatter_->width()) + 2;
    const int64_t per_line = std::max<int64_t>(
        1, static_cast<int64_t>(
               std::floor(static_cast<double>(kLineWidth - indent) / element_length)));
    std::vector<std::string> data;
    for (int64_t i : indices(d)) {
      data.push_back(i < 0 ? " ..." : formatter_->format(off + i * t_.strides()[d]));
    }
    std::vector<std::string> lines;
    for (size_t i = 0; i < data.size(); i += per_line) {
      const size_t end = std::min(data.size(), i + static_cast<size_t>(per_line));
      lines.push_back(join(std::vector<std::string>(data.begin() + i, data.begin() + end), ", "));
    }
    return concat("[", join(lines, concat(",\n", std::string(indent + 1, ' '))), "]");
  }

  static std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string r;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) r += sep;
      r += parts[i];
    }
    return r;
  }

  const Tensor& t_;
  ElementReader reader_;
  bool summarize_;
  std::optional<Formatter> formatter_;
};

// torch._tensor_str._add_suffixes.
std::string add_suffixes(const std::string& tensor_str, const std::vector<std::string>& suffixes,
                         int64_t indent) {
  std::string r = tensor_str;
  const size_t nl = tensor_str.rfind('\n');
  // Python computes len(s) - s.rfind("\n") + 1, where rfind gives -1 when there is no newline.
  int64_t last_line_len = static_cast<int64_t>(tensor_str.size()) -
                          (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const auto& suffix : suffixes) {
    const auto len = static_cast<int64_t>(suffix.size());
    if (last_line_len + len + 2 > kLineWidth) {
      r.append(",\n").append(std::string(indent, ' ')).append(suffix);
      last_line_len = indent + len;
    } else {
      r.append(", ").append(suffix);
      last_line_len += len + 2;
    }
  }
  return r.append(")");
}

std::string tuple_str(const std::vector<int64_t>& sizes) {
  std::string r = "(";
  for (size_t i = 0; i < sizes.size(); ++i)
    r.append(i ? ", " : "").append(std::to_string(sizes[i]));
  return r.append(sizes.size() == 1 ? ",)" : ")");
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  const std::string prefix = "tensor(";
  const auto indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;
  const std::string dtype_suffix = std::string("dtype=torch.") + dtype_name(t.dtype());
  std::string body;
  if (t.device().is_meta()) {  // no data: the shape and any non-default dtype (as PyTorch)
    suffixes.push_back("device='meta'");
    suffixes.push_back(concat("size=", tuple_str(t.sizes())));
    if (t.dtype() != get_default_dtype()) suffixes.push_back(dtype_suffix);
    body = "...";
  } else if (t.numel() == 0) {
    // Empty tensors show their shape unless it is (0,), and any non-default dtype (int64 too:
    // there are no elements to tell it from).
    if (t.dim() != 1) suffixes.push_back(concat("size=", tuple_str(t.sizes())));
    if (t.dtype() != get_default_dtype()) suffixes.push_back(dtype_suffix);
    body = "[]";
  } else {
    const ScalarType dt = t.dtype();
    if (dt != get_default_dtype() && dt != kInt64 && dt != kBool) suffixes.push_back(dtype_suffix);
    body = TensorPrinter(t).body(indent);
  }
  return os << add_suffixes(concat(prefix, body), suffixes, indent);
}

}  // namespace ember
