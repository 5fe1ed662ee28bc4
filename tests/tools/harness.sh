# Sourced by the shell tests in this folder: $1 is the ember binary; a scratch folder removed at
# exit; fail() counts failures and finish NAME reports them as the exit status.
ember=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
finish() {
  ((failures == 0)) && echo "$1: all passed"
  exit $((failures > 0))
}
