// tools/cli/report: progress lines, metrics.jsonl, loss.svg, `ember info`, confusion tables.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/report.h"
#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/ember.h"

namespace fs = std::filesystem;
using ember::cli::Point;
using ember::cli::Progress;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string read_back(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  return s;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  std::stringstream ss(s);
  for (std::string line; std::getline(ss, line);) lines.push_back(line);
  return lines;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("ember_report_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Progress

TEST(ReportProgress, PlainLinesEveryNAndAtTheLastStep) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  double now = 100;  // the clock need not start at zero
  Progress p(10, "tok", 4, f, [&] { return now; });
  EXPECT_FALSE(p.is_tty());
  for (int64_t step = 1; step <= 10; ++step) {
    now = 100 + 2.0 * step;  // 2 s per step, 100 tokens per step
    p.update(step, 3.0 - 0.25 * step, step == 6 ? std::optional<double>(1.25) : std::nullopt, 100);
  }
  p.finish();  // no in-place line to end: prints nothing
  const auto lines = split_lines(read_back(f));
  std::fclose(f);
  ASSERT_EQ(lines.size(), 3u);
  // step 4: 8 s elapsed, 400 tok -> 50 tok/s; 4 steps took 8 s, 6 remain -> 12 s.
  EXPECT_EQ(lines[0], "step 4/10 40% | loss 2.000 | 50.0 tok/s | 00:08<00:12");
  // The validation loss, once known, stays on the line.
  EXPECT_EQ(lines[1], "step 8/10 80% | loss 1.000 | val 1.250 | 50.0 tok/s | 00:16<00:04");
  EXPECT_EQ(lines[2], "step 10/10 100% | loss 0.500 | val 1.250 | 50.0 tok/s | 00:20<00:00");
  EXPECT_DOUBLE_EQ(p.rate(), 1000.0 / 20.0);
}

TEST(ReportProgress, ResumedRunCountsOnlyNewStepsAndFormatsHours) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  double now = 0;
  Progress p(10000, "img", 1000, f, [&] { return now; });
  now = 10;
  p.update(5000, 0.25, std::nullopt, 1'000'000);  // resumed at step 4999: one step in 10 s
  now = 3725;                                     // 1:02:05
  p.update(5999, 0.2, std::nullopt, 50'000'000);  // not a multiple of 1000: no line
  p.update(6000, 0.125, 0.5, 0);
  const auto lines = split_lines(read_back(f));
  std::fclose(f);
  ASSERT_EQ(lines.size(), 2u);
  // 1e6 img / 10 s = 100k/s; ETA 5000 steps × 10 s = 50000 s = 13:53:20.
  EXPECT_EQ(lines[0], "step 5000/10000 50% | loss 0.250 | 100.0k img/s | 00:10<13:53:20");
  // 5.1e7 / 3725 = 13691/s; 1001 steps in 3725 s, 4000 left: 14885 s = 4:08:05.
  EXPECT_EQ(lines[1],
            "step 6000/10000 60% | loss 0.125 | val 0.500 | 13.7k img/s | 1:02:05<4:08:05");
}

TEST(ReportProgress, TerminalLineRedrawsInPlaceAtMostTenTimesASecond) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  double now = 0;
  Progress p(
      20, "tok", 50, f, [&] { return now; }, /*tty=*/true);
  EXPECT_TRUE(p.is_tty());
  const std::string erase = "\r\033[K";
  now = 1.0;
  p.update(5, 1.5, std::nullopt, 10);  // first update: drawn
  now = 1.05;
  p.update(6, 1.4, std::nullopt, 10);  // 50 ms later: skipped
  now = 1.2;
  p.update(7, 1.3, std::nullopt, 10);  // 150 ms after the last draw: drawn
  p.message("checkpoint saved");
  now = 1.21;
  p.update(20, 1.0, std::nullopt, 10);  // the last step is always drawn
  p.finish();
  p.finish();  // idempotent
  const std::string out = read_back(f);
  std::fclose(f);
  // draws at steps 5, 7, the redraw after the message, and 20; plus the erase before the message.
  EXPECT_EQ(count(out, erase), 5u);
  EXPECT_EQ(count(out, "step 6/20"), 0u);
  EXPECT_NE(out.find(erase + "step 5/20 [#####...............] 25% | loss 1.500 | 10.0 tok/s"),
            std::string::npos)
      << out;
  // The message replaces the bar on its line, then the bar is redrawn below it.
  EXPECT_NE(out.find(erase + "checkpoint saved\n" + erase + "step 7/20 [#######"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(erase + "step 20/20 [####################] 100% | loss 1.000"),
            std::string::npos);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(count(out, "\n"), 2u);  // after the message, and from finish()
}

TEST(ReportProgress, MessageWithoutBarIsAPlainLine) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  Progress p(
      5, "tok", 50, f, [] { return 0.0; }, /*tty=*/true);
  p.message("hello");
  EXPECT_EQ(read_back(f), "hello\n");
  std::fclose(f);
}

// ---------------------------------------------------------------------------------------------
// MetricsLog

TEST(ReportMetrics, OneJsonObjectPerLineAppended) {
  TempDir dir;
  const std::string path = (dir.path / "metrics.jsonl").string();
  const nlohmann::json a = {{"step", 1}, {"loss", 2.5}, {"lr", 1e-3}};
  const nlohmann::json b = {{"step", 2}, {"loss", 2.25}, {"val_loss", 2.75}, {"tag", "x\ny"}};
  const nlohmann::json c = {{"step", 3}, {"event", "resume"}};
  {
    ember::cli::MetricsLog log(path);
    log.write(a);
    // Flushed per line: readable before the log is closed.
    EXPECT_EQ(nlohmann::json::parse(split_lines(read_file(path)).at(0)), a);
    log.write(b);
  }
  ember::cli::MetricsLog(path).write(c);  // a second log appends
  const auto lines = split_lines(read_file(path));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(lines[0]), a);
  EXPECT_EQ(nlohmann::json::parse(lines[1]), b);
  EXPECT_EQ(nlohmann::json::parse(lines[2]), c);
}

TEST(ReportMetrics, UnopenablePathIsRuntimeErrorNamingIt) {
  TempDir dir;
  const std::string path = (dir.path / "missing" / "metrics.jsonl").string();
  try {
    ember::cli::MetricsLog log(path);
    FAIL() << "expected RuntimeError";
  } catch (const ember::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// loss.svg

namespace {

// Tags balance (every opened element is closed in order), and the document is one <svg> element.
::testing::AssertionResult balanced_xml(const std::string& s) {
  std::vector<std::string> stack;
  size_t roots = 0;
  for (size_t i = s.find('<'); i != std::string::npos; i = s.find('<', i + 1)) {
    const size_t end = s.find('>', i);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unterminated tag";
    const std::string tag = s.substr(i + 1, end - i - 1);
    if (tag.empty()) return ::testing::AssertionFailure() << "empty tag";
    if (tag[0] == '?' || tag[0] == '!') continue;
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name)
        return ::testing::AssertionFailure() << "unexpected </" << name << ">";
      stack.pop_back();
      continue;
    }
    if (stack.empty()) ++roots;
    if (tag.back() == '/') continue;
    stack.push_back(tag.substr(0, tag.find_first_of(" \t\n")));
  }
  if (!stack.empty()) return ::testing::AssertionFailure() << "<" << stack.back() << "> not closed";
  if (roots != 1) return ::testing::AssertionFailure() << roots << " root elements";
  return ::testing::AssertionSuccess();
}

// The value of attribute `name` in the first element that contains `marker`.
std::string attribute(const std::string& svg, const std::string& marker, const std::string& name) {
  const size_t at = svg.find(marker);
  if (at == std::string::npos) return "";
  const size_t begin = svg.rfind('<', at), end = svg.find('>', at);
  const std::string element = svg.substr(begin, end - begin);
  const std::string key = " " + name + "=\"";
  const size_t value = element.find(key);
  if (value == std::string::npos) return "";
  const size_t first = value + key.size();
  return element.substr(first, element.find('"', first) - first);
}

std::vector<std::pair<double, double>> parse_points(const std::string& points) {
  std::vector<std::pair<double, double>> r;
  std::stringstream ss(points);
  for (std::string xy; ss >> xy;) {
    const size_t comma = xy.find(',');
    r.emplace_back(std::stod(xy.substr(0, comma)), std::stod(xy.substr(comma + 1)));
  }
  return r;
}

std::string write_and_read(const fs::path& path, const std::vector<Point>& train,
                           const std::vector<Point>& val, const std::string& title = "loss") {
  ember::cli::write_loss_svg(path.string(), train, val, title);
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  return read_file(path);
}

}  // namespace

TEST(ReportSvg, PolylinesMapDataIntoThePlotArea) {
  TempDir dir;
  const fs::path path = dir.path / "loss.svg";
  // Steps 0..100 and losses 0..2 are whole multiples of 1-2-5 ticks (20 and 0.5), so the axes
  // span exactly the data range.
  const std::vector<Point> train = {{0, 2.0}, {25, 1.2}, {50, NAN}, {75, 0.4}, {100, 0.0}};
  const std::vector<Point> val = {{50, 1.5}, {100, INFINITY}, {100, 0.5}};
  const std::string svg = write_and_read(path, train, val, "run <a> & \"b\"");
  ASSERT_TRUE(balanced_xml(svg)) << svg;
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos);
  EXPECT_NE(svg.find("run &lt;a&gt; &amp; &quot;b&quot;"), std::string::npos);
  for (const char* label : {">step<", ">loss<", ">train<", ">validation<"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  for (const char* tick : {">0<", ">20<", ">40<", ">60<", ">80<", ">100<", ">0.0<", ">0.5<",
                           ">1.0<", ">1.5<", ">2.0<"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_EQ(svg.find(">120<"), std::string::npos);
  EXPECT_EQ(svg.find(">2.5<"), std::string::npos);

  const double x = std::stod(attribute(svg, "class=\"plot\"", "x"));
  const double y = std::stod(attribute(svg, "class=\"plot\"", "y"));
  const double w = std::stod(attribute(svg, "class=\"plot\"", "width"));
  const double h = std::stod(attribute(svg, "class=\"plot\"", "height"));
  ASSERT_GT(w, 100);
  ASSERT_GT(h, 100);
  auto expect_mapped = [&](const std::string& cls, const std::vector<Point>& data) {
    const auto pts = parse_points(attribute(svg, "class=\"" + cls + "\"", "points"));
    std::vector<Point> finite;
    for (const Point& p : data)
      if (std::isfinite(p.step) && std::isfinite(p.value)) finite.push_back(p);
    ASSERT_EQ(pts.size(), finite.size()) << cls;
    for (size_t i = 0; i < pts.size(); ++i) {
      EXPECT_NEAR(pts[i].first, x + finite[i].step / 100.0 * w, 0.011) << cls << " " << i;
      EXPECT_NEAR(pts[i].second, y + h - finite[i].value / 2.0 * h, 0.011) << cls << " " << i;
    }
  };
  expect_mapped("train", train);
  expect_mapped("validation", val);
  // Validation points carry circle markers (plus one in the legend).
  EXPECT_EQ(count(svg, "<circle"), 2u + 1u);
}

TEST(ReportSvg, DegenerateSeriesStillMakeAValidChart) {
  TempDir dir;
  const fs::path path = dir.path / "loss.svg";
  struct Case {
    const char* name;
    std::vector<Point> train, val;
    size_t polylines;
  };
  const std::vector<Case> cases = {
      {"empty", {}, {}, 0},
      {"one point", {{7, 2.3}}, {}, 1},
      {"constant", {{0, 1.0}, {10, 1.0}, {20, 1.0}}, {{20, 1.0}}, 2},
      {"all nan", {{0, NAN}, {1, -INFINITY}}, {{1, NAN}}, 0},
      {"val only", {}, {{100, 3.0}, {200, 2.0}}, 1},
      {"zero", {{0, 0.0}}, {{0, 0.0}}, 2},
  };
  for (const Case& c : cases) {
    const std::string svg = write_and_read(path, c.train, c.val);  // overwrites the last one
    EXPECT_TRUE(balanced_xml(svg)) << c.name << "\n" << svg;
    EXPECT_EQ(count(svg, "<polyline"), c.polylines) << c.name;
    EXPECT_NE(svg.find("class=\"plot\""), std::string::npos) << c.name;
    EXPECT_NE(svg.find(">step<"), std::string::npos) << c.name;
    // Every number is finite (no "nan"/"inf" leaks into coordinates or labels).
    EXPECT_EQ(svg.find("nan"), std::string::npos) << c.name;
    EXPECT_EQ(svg.find("inf"), std::string::npos) << c.name;
    // Points lie inside the plot area.
    const double x = std::stod(attribute(svg, "class=\"plot\"", "x"));
    const double y = std::stod(attribute(svg, "class=\"plot\"", "y"));
    const double w = std::stod(attribute(svg, "class=\"plot\"", "width"));
    const double h = std::stod(attribute(svg, "class=\"plot\"", "height"));
    for (const char* cls : {"train", "validation"})
      for (const auto& [px, py] :
           parse_points(attribute(svg, std::string("class=\"") + cls + "\"", "points"))) {
        EXPECT_GE(px, x - 1e-9) << c.name;
        EXPECT_LE(px, x + w + 1e-9) << c.name;
        EXPECT_GE(py, y - 1e-9) << c.name;
        EXPECT_LE(py, y + h + 1e-9) << c.name;
      }
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
}

TEST(ReportSvg, UnwritableDirectoryIsRuntimeError) {
  TempDir dir;
  EXPECT_THROW(
      ember::cli::write_loss_svg((dir.path / "no" / "loss.svg").string(), {{0, 1}}, {}, "t"),
      ember::RuntimeError);
}

// ---------------------------------------------------------------------------------------------
// ember info

TEST(ReportInfo, NamesVersionThreadsBlasAndCpu) {
  const std::string info = ember::cli::build_info();
  EXPECT_EQ(info.rfind("ember ", 0), 0u) << info;
  EXPECT_NE(info.find("threads: " + std::to_string(ember::get_num_threads()) + "\n"),
            std::string::npos)
      << info;
  EXPECT_NE(info.find("BLAS: OpenBLAS "), std::string::npos) << info;
  EXPECT_TRUE(info.find("threading: sequential)") != std::string::npos ||
              info.find("threading: pthreads)") != std::string::npos ||
              info.find("threading: OpenMP)") != std::string::npos)
      << info;
  const size_t dnnl = info.find("oneDNN: ");
  ASSERT_NE(dnnl, std::string::npos) << info;
  int major = -1, minor = -1, patch = -1;
  EXPECT_EQ(std::sscanf(info.c_str() + dnnl, "oneDNN: %d.%d.%d", &major, &minor, &patch), 3)
      << info;
  const size_t cpu = info.find("this CPU:");
  ASSERT_NE(cpu, std::string::npos) << info;
  const std::string cpu_line = info.substr(cpu, info.find('\n', cpu) - cpu) + " ";
  __builtin_cpu_init();
  EXPECT_EQ(cpu_line.find(" avx2 ") != std::string::npos, __builtin_cpu_supports("avx2") != 0);
  EXPECT_EQ(cpu_line.find(" avx512f ") != std::string::npos,
            __builtin_cpu_supports("avx512f") != 0);
  // The chosen CPU capability, and the ones built (Note [CPU capability]).
  EXPECT_NE(
      info.find("CPU capability: " + ember::get_cpu_capability() + " (kernels built for: DEFAULT"),
      std::string::npos)
      << info;
}

// ---------------------------------------------------------------------------------------------
// Confusion matrix

TEST(ReportConfusion, AlignedTableWithRecallAndAccuracy) {
  const ember::Tensor m =
      ember::tensor({5, 1, 0, 0, 4, 0, 2, 0, 13}, ember::kInt64).reshape({3, 3});
  const std::string table = ember::cli::format_confusion(m, {"cat", "dog", "bird"});
  const std::string expected =
      "true \\ predicted  0  1  2  recall\n"
      "0 cat             5  1  0   83.3%\n"
      "1 dog             0  4  0  100.0%\n"
      "2 bird            2  0 13   86.7%\n"
      "accuracy: 88.00% (22/25)\n";
  EXPECT_EQ(table, expected);
}

TEST(ReportConfusion, IndicesWithoutNamesAndEmptyRows) {
  std::vector<int64_t> values(11 * 11, 0);
  values[0] = 120;         // class 0: all right
  values[1 * 11 + 0] = 3;  // class 1: all wrong
  const std::string table =
      ember::cli::format_confusion(ember::tensor(values, ember::kInt64).reshape({11, 11}), {});
  const auto lines = split_lines(table);
  ASSERT_EQ(lines.size(), 13u) << table;
  for (size_t i = 1; i < 12; ++i) EXPECT_EQ(lines[i].size(), lines[0].size()) << table;
  EXPECT_EQ(lines[0].substr(lines[0].size() - 14), " 9  10  recall") << table;
  EXPECT_EQ(lines[1].rfind(" 0    ", 0), 0u) << table;
  EXPECT_NE(lines[1].find("100.0%"), std::string::npos);
  EXPECT_NE(lines[2].find("  0.0%"), std::string::npos);
  EXPECT_EQ(lines[3].back(), '-');  // no samples of class 2
  EXPECT_EQ(lines[12], "accuracy: 97.56% (120/123)");
}

TEST(ReportConfusion, BadShapeOrNamesIsValueError) {
  EXPECT_THROW(ember::cli::format_confusion(ember::zeros({2, 3}, ember::kInt64), {}),
               ember::ValueError);
  EXPECT_THROW(ember::cli::format_confusion(ember::zeros({2, 2}, ember::kInt64), {"a"}),
               ember::ValueError);
}
