#pragma once
// What `ember train` shows and writes: a live progress bar (or plain lines when stdout is not a
// terminal), metrics.jsonl, and loss.svg.
#include <ember/core/tensor.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ember::cli {

/// One progress line. On a terminal it redraws in place ("\r" + erase) at most ~10 times a
/// second (elapsed<ETA, mm:ss or h:mm:ss; "val" once a validation loss is known):
///   step 120/800 [###.................] 15% | loss 2.134 | val 2.201 | 5.3k tok/s | 00:23<01:55
/// When `out` is not a terminal it prints the same line without the bar every `plain_every` steps
/// and at the last step. Rate and ETA are measured from construction; a resumed run (whose first
/// update is part-way) counts only the steps done since.
class Progress {
 public:
  /// Seconds on a monotonic clock.
  using Clock = std::function<double()>;
  Progress(int64_t total, std::string unit /* "tok" or "img" */, int64_t plain_every = 50,
           std::FILE* out = stdout);
  /// For tests: an injected clock, and optionally forcing terminal (in-place) mode on or off.
  Progress(int64_t total, std::string unit, int64_t plain_every, std::FILE* out, Clock clock,
           std::optional<bool> tty = std::nullopt);
  /// `done` steps finished (absolute, so a resumed run starts part-way); `items` processed since
  /// the previous update (tokens or images) for the rate.
  void update(int64_t done, double loss, std::optional<double> val_loss, int64_t items);
  /// Ends the in-place line (prints the newline) if one is showing.
  void finish();
  /// Prints a message on its own line without garbling the bar.
  void message(const std::string& text);
  bool is_tty() const;
  /// Items per second since the start (for the summary).
  double rate() const;

 private:
  std::string line(bool with_bar) const;
  void draw();

  int64_t total_;
  std::string unit_;
  int64_t plain_every_;
  std::FILE* out_;
  Clock clock_;
  bool tty_;
  double start_ = 0;       // clock at construction
  double last_draw_ = -1;  // clock at the last in-place redraw (-1: never)
  bool showing_ = false;   // an in-place line is on screen (no newline after it yet)
  int64_t first_done_ = -1, done_ = 0;
  double items_ = 0, loss_ = 0;
  std::optional<double> val_;
};

/// Appends one JSON object per line to `path` (created if missing), flushing each line.
class MetricsLog {
 public:
  explicit MetricsLog(const std::string& path);
  void write(const nlohmann::json& record);

 private:
  std::string path_;
  std::ofstream out_;
};

struct Point {
  double step, value;
};

/// Writes an SVG line chart of train loss (and validation loss, drawn as a second series with
/// markers) against step: axes with ticks and numbers, axis labels "step" and "loss", a title and
/// a legend. Atomic (temp file + rename). Empty series are allowed (an empty chart with axes).
void write_loss_svg(const std::string& path, const std::vector<Point>& train,
                    const std::vector<Point>& val, const std::string& title);

/// Replaces `path` by `contents` atomically (a temporary file beside it, then a rename); on
/// failure the old file is intact and the temporary removed. RuntimeError naming the path.
void write_file_atomically(const std::string& path, const std::string& contents);

/// `ember info`: version, build type, instruction sets compiled in and available on this CPU,
/// thread count, BLAS library (OpenBLAS config string) and its threading model.
std::string build_info();

/// A confusion matrix (int64 [C, C], rows = true class, columns = predicted) as an aligned text
/// table with class names, per-class recall on the right, and overall accuracy below.
std::string format_confusion(const Tensor& matrix, const std::vector<std::string>& class_names);

}  // namespace ember::cli
