// Ember demo. For now it only reports the library version; it will grow into the main
// end-to-end job on the embedded data as the core lands.
#include <cstdio>

#if __has_include(<ember/ember.h>)
#include <ember/ember.h>
#else
namespace ember {
const char* version();
}  // namespace ember
#endif

int main() {
  std::printf("Ember %s\n", ember::version());
  return 0;
}
