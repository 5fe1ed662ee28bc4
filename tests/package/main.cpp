// Consumer of an installed Ember: prints ember::version() and, when given an expected
// version as its first argument, fails unless they match.
#include <cstdio>
#include <cstring>

#if __has_include(<ember/ember.h>)
#include <ember/ember.h>
#else
namespace ember {
const char* version();
}  // namespace ember
#endif

int main(int argc, char** argv) {
  const char* v = ember::version();
  std::printf("ember::version() = %s\n", v);
  if (argc > 1 && std::strcmp(v, argv[1]) != 0) {
    std::fprintf(stderr, "expected version %s\n", argv[1]);
    return 1;
  }
  return 0;
}
