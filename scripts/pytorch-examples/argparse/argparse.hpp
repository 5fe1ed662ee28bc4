// The part of p-ranav/argparse that pytorch/examples' cpp/dcgan uses (--epochs N), for
// scripts/pytorch-examples.sh: Debian packages no argparse for C++, and the example includes
// <argparse/argparse.hpp>. Not part of Ember.
#pragma once
#include <cstdint>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace argparse {

class Argument {
 public:
  Argument& help(std::string text) {
    help_ = std::move(text);
    return *this;
  }
  Argument& default_value(int64_t v) {
    value_ = v;
    return *this;
  }
  template <char Kind, typename T>
  Argument& scan() {
    return *this;
  }
  std::string help_;
  int64_t value_ = 0;
};

class ArgumentParser {
 public:
  explicit ArgumentParser(std::string name) : name_(std::move(name)) {}
  Argument& add_argument(const std::string& flag) { return args_[flag]; }
  void parse_args(int argc, const char* const argv[]) {
    for (int i = 1; i < argc; ++i) {
      auto it = args_.find(argv[i]);
      if (it == args_.end()) throw std::runtime_error(std::string("Unknown argument: ") + argv[i]);
      if (i + 1 >= argc) throw std::runtime_error(std::string("Too few arguments for ") + argv[i]);
      size_t used = 0;
      const std::string text = argv[++i];
      it->second.value_ = std::stoll(text, &used);
      if (used != text.size()) throw std::runtime_error("Not an integer: " + text);
    }
  }
  template <typename T>
  T get(const std::string& flag) const {
    return static_cast<T>(args_.at(flag).value_);
  }
  friend std::ostream& operator<<(std::ostream& os, const ArgumentParser& p) {
    os << "Usage: " << p.name_ << "\n";
    for (const auto& [flag, a] : p.args_) os << "  " << flag << "  " << a.help_ << "\n";
    return os;
  }

 private:
  std::string name_;
  std::map<std::string, Argument> args_;
};

}  // namespace argparse
