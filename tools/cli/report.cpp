#include "cli/report.h"

#include <cblas.h>  // openblas_get_config, openblas_get_parallel
#include <ember/core/error.h>
#include <ember/core/parallel.h>
#include <oneapi/dnnl/dnnl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ember::cli {

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename... Args>
std::string format(const char* fmt, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// mm:ss below an hour, h:mm:ss from there.
std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const auto s = static_cast<int64_t>(std::llround(seconds));
  if (s < 3600)
    return format("%02lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  return format("%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
}

// 950 -> "950", 5300 -> "5.3k", 1.25e6 -> "1.2M".
std::string format_rate(double v) {
  if (!std::isfinite(v)) return "-";
  if (v < 100) return format("%.1f", v);
  if (v < 999.5) return format("%.0f", v);
  if (v < 999.5e3) return format("%.1fk", v / 1e3);
  return format("%.1fM", v / 1e6);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Progress

Progress::Progress(int64_t total, std::string unit, int64_t plain_every, std::FILE* out)
    : Progress(total, std::move(unit), plain_every, out, steady_seconds) {}

Progress::Progress(int64_t total, std::string unit, int64_t plain_every, std::FILE* out,
                   Clock clock, std::optional<bool> tty)
    : total_(std::max<int64_t>(total, 1)),
      unit_(std::move(unit)),
      plain_every_(std::max<int64_t>(plain_every, 1)),
      out_(out),
      clock_(std::move(clock)),
      tty_(tty ? *tty : ::isatty(::fileno(out)) == 1),
      start_(clock_()) {}

bool Progress::is_tty() const { return tty_; }

double Progress::rate() const {
  const double elapsed = clock_() - start_;
  return elapsed > 0 ? items_ / elapsed : 0.0;
}

std::string Progress::line(bool with_bar) const {
  const double elapsed = clock_() - start_;
  const int64_t done = std::clamp<int64_t>(done_, 0, total_);
  std::string s =
      format("step %lld/%lld ", static_cast<long long>(done), static_cast<long long>(total_));
  if (with_bar) {
    constexpr int kWidth = 20;
    const auto filled = static_cast<int>(done * kWidth / total_);
    s += '[';
    s.append(static_cast<size_t>(filled), '#');
    s.append(static_cast<size_t>(kWidth - filled), '.');
    s += "] ";
  }
  s += format("%lld%% | loss %.3f", static_cast<long long>(done * 100 / total_), loss_);
  if (val_) s += format(" | val %.3f", *val_);
  s +=
      " | " + (elapsed > 0 ? format_rate(items_ / elapsed) : std::string("-")) + " " + unit_ + "/s";
  // Steps since construction: the first update's step ran after it.
  const int64_t steps = done_ - first_done_ + 1;
  const double eta = elapsed > 0 && steps > 0
                         ? static_cast<double>(total_ - done) * elapsed / static_cast<double>(steps)
                         : std::numeric_limits<double>::quiet_NaN();
  s += " | " + format_duration(elapsed) + "<" + format_duration(eta);
  return s;
}

void Progress::draw() {
  std::fputs("\r\033[K", out_);
  std::fputs(line(true).c_str(), out_);
  std::fflush(out_);
  showing_ = true;
  last_draw_ = clock_();
}

void Progress::update(int64_t done, double loss, std::optional<double> val_loss, int64_t items) {
  if (first_done_ < 0) first_done_ = done;
  done_ = done;
  loss_ = loss;
  if (val_loss) val_ = val_loss;
  items_ += static_cast<double>(items);
  const bool last = done >= total_;
  if (tty_) {
    if (last || last_draw_ < 0 || clock_() - last_draw_ >= 0.1) draw();
  } else if (last || done % plain_every_ == 0) {
    std::fprintf(out_, "%s\n", line(false).c_str());
    std::fflush(out_);
  }
}

void Progress::finish() {
  if (showing_) {
    std::fputc('\n', out_);
    std::fflush(out_);
    showing_ = false;
  }
}

void Progress::message(const std::string& text) {
  if (showing_) std::fputs("\r\033[K", out_);
  std::fprintf(out_, "%s\n", text.c_str());
  if (showing_) draw();
  std::fflush(out_);
}

// ---------------------------------------------------------------------------------------------
// MetricsLog

MetricsLog::MetricsLog(const std::string& path) : path_(path), out_(path, std::ios::app) {
  EMBER_CHECK(out_.is_open(), "[ember train] cannot open metrics log for writing: ", path);
}

void MetricsLog::write(const nlohmann::json& record) {
  out_ << record.dump() << '\n';
  out_.flush();
  EMBER_CHECK(out_.good(), "[ember train] cannot write metrics log: ", path_);
}

// ---------------------------------------------------------------------------------------------
// loss.svg

namespace {

struct Axis {
  double lo, hi, step;
  int decimals;
};

// About `target` ticks at a 1-2-5 step; the axis is widened to whole steps around [lo, hi].
Axis nice_axis(double lo, double hi, int target = 5) {
  if (!(hi > lo)) {
    const double pad = lo != 0 ? std::abs(lo) * 0.1 : 1.0;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / (target - 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  Axis a;
  // The epsilon keeps 100.0000001 from adding a whole step.
  a.lo = std::floor(lo / step + 1e-9) * step;
  a.hi = std::ceil(hi / step - 1e-9) * step;
  a.step = step;
  a.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  return a;
}

std::string tick_label(double v, const Axis& a) {
  if (std::abs(v) < a.step * 1e-9) v = 0;  // no "-0"
  return format("%.*f", a.decimals, v);
}

std::string xml_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    switch (c) {
      case '&':
        r += "&amp;";
        break;
      case '<':
        r += "&lt;";
        break;
      case '>':
        r += "&gt;";
        break;
      case '"':
        r += "&quot;";
        break;
      default:
        r += c;
    }
  }
  return r;
}

bool finite(const Point& p) { return std::isfinite(p.step) && std::isfinite(p.value); }

}  // namespace

void write_loss_svg(const std::string& path, const std::vector<Point>& train,
                    const std::vector<Point>& val, const std::string& title) {
  constexpr double kWidth = 640, kHeight = 400;
  constexpr double kLeft = 70, kRight = 20, kTop = 40, kBottom = 55;
  constexpr double px0 = kLeft, py0 = kTop, pw = kWidth - kLeft - kRight,
                   ph = kHeight - kTop - kBottom;

  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (const auto* series : {&train, &val})
    for (const Point& p : *series)
      if (finite(p)) {
        xmin = std::min(xmin, p.step), xmax = std::max(xmax, p.step);
        ymin = std::min(ymin, p.value), ymax = std::max(ymax, p.value);
      }
  if (xmin > xmax) xmin = 0, xmax = 1, ymin = 0, ymax = 1;  // nothing to plot
  const Axis ax = nice_axis(xmin, xmax), ay = nice_axis(ymin, ymax);
  auto sx = [&](double x) { return px0 + (x - ax.lo) / (ax.hi - ax.lo) * pw; };
  auto sy = [&](double y) { return py0 + ph - (y - ay.lo) / (ay.hi - ay.lo) * ph; };

  std::ostringstream svg;
  svg << format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
      kWidth, kHeight, kWidth, kHeight);
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << kWidth / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">"
      << xml_escape(title) << "</text>\n";
  // Grid lines and tick labels.
  svg << "<g class=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n";
  for (double v = ax.lo; v <= ax.hi + ax.step * 1e-6; v += ax.step)
    svg << format("<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", sx(v), py0, sx(v),
                  py0 + ph);
  for (double v = ay.lo; v <= ay.hi + ay.step * 1e-6; v += ay.step)
    svg << format("<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", px0, sy(v), px0 + pw,
                  sy(v));
  svg << "</g>\n<g class=\"ticks\" fill=\"#333\">\n";
  for (double v = ax.lo; v <= ax.hi + ax.step * 1e-6; v += ax.step)
    svg << format("<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">", sx(v), py0 + ph + 18)
        << tick_label(v, ax) << "</text>\n";
  for (double v = ay.lo; v <= ay.hi + ay.step * 1e-6; v += ay.step)
    svg << format("<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">", px0 - 8, sy(v) + 4)
        << tick_label(v, ay) << "</text>\n";
  svg << "</g>\n";
  // Plot frame (the axes) and axis labels.
  svg << format(
      "<rect class=\"plot\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
      "fill=\"none\" stroke=\"#333\"/>\n",
      px0, py0, pw, ph);
  svg << format("<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">step</text>\n", px0 + pw / 2,
                kHeight - 12);
  svg << format(
      "<text x=\"16\" y=\"%.2f\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 16 %.2f)\">loss</text>\n",
      py0 + ph / 2, py0 + ph / 2);
  // The series.
  auto polyline = [&](const std::vector<Point>& pts, const char* cls, const char* colour) {
    std::string points;
    for (const Point& p : pts)
      if (finite(p))
        points += format("%s%.2f,%.2f", points.empty() ? "" : " ", sx(p.step), sy(p.value));
    if (points.empty()) return;
    svg << "<polyline class=\"" << cls << "\" fill=\"none\" stroke=\"" << colour
        << "\" stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"" << points << "\"/>\n";
  };
  polyline(train, "train", "#1f77b4");
  polyline(val, "validation", "#d62728");
  svg << "<g class=\"markers\" fill=\"#d62728\">\n";
  for (const Point& p : val)
    if (finite(p))
      svg << format("<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\"/>\n", sx(p.step), sy(p.value));
  svg << "</g>\n";
  // Legend, top right inside the plot.
  const double lx = px0 + pw - 110, ly = py0 + 10;
  svg << format(
      "<g class=\"legend\">\n<rect x=\"%.2f\" y=\"%.2f\" width=\"100\" height=\"44\" "
      "fill=\"white\" fill-opacity=\"0.85\" stroke=\"#ccc\"/>\n",
      lx, ly);
  svg << format(
      "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#1f77b4\" "
      "stroke-width=\"2\"/>\n<text x=\"%.2f\" y=\"%.2f\">train</text>\n",
      lx + 8, ly + 14, lx + 30, ly + 14, lx + 36, ly + 18);
  svg << format(
      "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#d62728\" "
      "stroke-width=\"2\"/>\n<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"#d62728\"/>\n"
      "<text x=\"%.2f\" y=\"%.2f\">validation</text>\n</g>\n",
      lx + 8, ly + 32, lx + 30, ly + 32, lx + 19, ly + 32, lx + 36, ly + 36);
  svg << "</svg>\n";

  write_file_atomically(path, svg.str());
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    EMBER_CHECK(f.is_open(), "[ember train] cannot write ", tmp);
    f << contents;
    f.close();
    EMBER_CHECK(!f.fail(), "[ember train] cannot write ", tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    EMBER_CHECK(false, "[ember train] cannot replace ", path, ": ", ec.message());
  }
}

// ---------------------------------------------------------------------------------------------
// ember info

std::string build_info() {
  std::ostringstream s;
  s << "ember " << EMBER_VERSION << "\n";
  s << "build type: " << (std::string(EMBER_BUILD_TYPE).empty() ? "(none)" : EMBER_BUILD_TYPE)
    << "\n";
  s << "CPU capability: " << get_cpu_capability() << " (kernels built for:";
  for (const std::string& c : get_built_cpu_capabilities()) s << " " << c;
  s << "; EMBER_CPU_CAPABILITY=default|avx2|avx512 forces one)";
  s << "\nthis CPU:    ";
  __builtin_cpu_init();
  struct {
    const char* name;
    bool on;
  } cpu[] = {{"sse4.2", __builtin_cpu_supports("sse4.2") != 0},
             {"avx", __builtin_cpu_supports("avx") != 0},
             {"avx2", __builtin_cpu_supports("avx2") != 0},
             {"fma", __builtin_cpu_supports("fma") != 0},
             {"f16c", __builtin_cpu_supports("f16c") != 0},
             {"avx512f", __builtin_cpu_supports("avx512f") != 0},
             {"avx512bw", __builtin_cpu_supports("avx512bw") != 0},
             {"avx512vl", __builtin_cpu_supports("avx512vl") != 0},
             {"avx512vnni", __builtin_cpu_supports("avx512vnni") != 0},
             {"avx512bf16", __builtin_cpu_supports("avx512bf16") != 0},
             {"avx512fp16", __builtin_cpu_supports("avx512fp16") != 0}};
  for (const auto& c : cpu)
    if (c.on) s << " " << c.name;
  s << "\nthreads: " << get_num_threads() << "\n";
  const int parallel = openblas_get_parallel();
  const char* model = parallel == 0   ? "sequential"
                      : parallel == 1 ? "pthreads"
                      : parallel == 2 ? "OpenMP"
                                      : "unknown";
  std::string config = openblas_get_config();
  while (!config.empty() && config.back() == ' ') config.pop_back();
  s << "BLAS: " << config << " (threading: " << model << ")\n";
  const dnnl_version_t* v = dnnl_version();
  s << "oneDNN: " << v->major << "." << v->minor << "." << v->patch;
  if (v->hash && std::string(v->hash) != "N/A") s << " (" << v->hash << ")";
  s << "\n";
  return s.str();
}

// ---------------------------------------------------------------------------------------------
// Confusion matrix

std::string format_confusion(const Tensor& matrix, const std::vector<std::string>& class_names) {
  EMBER_CHECK_VALUE(matrix.dim() == 2 && matrix.size(0) == matrix.size(1),
                    "[ember eval] the confusion matrix must be square [C, C], got ", matrix.dim(),
                    " dimensions");
  const int64_t c = matrix.size(0);
  EMBER_CHECK_VALUE(class_names.empty() || static_cast<int64_t>(class_names.size()) == c,
                    "[ember eval] ", class_names.size(), " class names for ", c, " classes");
  const Tensor m = matrix.to(kInt64).contiguous();
  const int64_t* d = m.data_ptr<int64_t>();
  // Rows are labelled "index name"; the columns only by index, names being too wide for them.
  auto name = [&](int64_t i) {
    return class_names.empty() ? std::string() : " " + class_names[static_cast<size_t>(i)];
  };
  const std::string corner = "true \\ predicted";
  const size_t index_w = std::to_string(c - 1).size();
  size_t row_w = corner.size();
  for (int64_t i = 0; i < c; ++i) row_w = std::max(row_w, index_w + name(i).size());
  size_t cell_w = index_w;
  int64_t correct = 0, total = 0;
  for (int64_t i = 0; i < c * c; ++i) {
    cell_w = std::max(cell_w, std::to_string(d[i]).size());
    total += d[i];
  }
  for (int64_t i = 0; i < c; ++i) correct += d[i * c + i];
  auto pad_left = [](const std::string& s, size_t w) {
    return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
  };
  auto pad_right = [](const std::string& s, size_t w) {
    return s + std::string(w > s.size() ? w - s.size() : 0, ' ');
  };
  std::ostringstream out;
  out << pad_right(corner, row_w);
  for (int64_t j = 0; j < c; ++j) out << " " << pad_left(std::to_string(j), cell_w);
  out << "  recall\n";
  for (int64_t i = 0; i < c; ++i) {
    out << pad_right(pad_left(std::to_string(i), index_w) + name(i), row_w);
    int64_t row = 0;
    for (int64_t j = 0; j < c; ++j) {
      out << " " << pad_left(std::to_string(d[i * c + j]), cell_w);
      row += d[i * c + j];
    }
    out << "  "
        << (row > 0 ? format("%5.1f%%", 100.0 * static_cast<double>(d[i * c + i]) / row)
                    : std::string("     -"))
        << "\n";
  }
  out << format("accuracy: %.2f%% (%lld/%lld)\n",
                total > 0 ? 100.0 * static_cast<double>(correct) / total : 0.0,
                static_cast<long long>(correct), static_cast<long long>(total));
  return out.str();
}

}  // namespace ember::cli
