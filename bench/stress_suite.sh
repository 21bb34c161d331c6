#!/bin/bash
# The whole suite N times in a row (default 5) with two busy CPU loops beside it,
# on a clean clone of HEAD: what issue #17 asks of the tests (no races, no clocks).
#
#   bench/stress_suite.sh [N]      # prints one line a run; stops at the first failure
set -u
n=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
git clone -q "$here" "$work/rq" && cd "$work/rq" && make -s .venv/.installed >/dev/null || exit 1
( while :; do :; done ) & l1=$!
( while :; do :; done ) & l2=$!
trap 'kill $l1 $l2; rm -rf "$work"' EXIT
for i in $(seq 1 "$n"); do
  s=$(date +%s)
  .venv/bin/pytest -q -n 2 -p no:cacheprovider > "$work/run-$i.out" 2>&1
  rc=$?
  echo "run $i rc=$rc $(( $(date +%s) - s ))s $(tail -1 "$work/run-$i.out")"
  if [ $rc != 0 ]; then grep -E "^(FAILED|ERROR)" "$work/run-$i.out"; exit 1; fi
done
