// The `ember` command: train, generate, eval, info.
int main() { return 0; }
