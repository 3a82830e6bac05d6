#!/usr/bin/env bash
# The TacTix benchmark battery: every board in boards/ through the contest binary, with its
# nimsum, time and peak memory, as a Markdown table.
#   scripts/bench-tactix.sh [--time-limit SECONDS] [--max-memory MIB] [BOARD...]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=60
memory=24
boards=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time-limit) limit="$2"; shift 2 ;;
    --max-memory) memory="$2"; shift 2 ;;
    *) boards+=("$1"); shift ;;
  esac
done
[ ${#boards[@]} -gt 0 ] || boards=(boards/*.pbm)
cargo build --release -q -p tactix --bin contest
echo "| board | nimsum | time (s) | peak memory | components searched |"
echo "|---|---:|---:|---:|---:|"
for b in "${boards[@]}"; do
  start=$(date +%s.%N)
  out=$(./target/release/contest --stats --time-limit "$limit" --max-memory "$memory" < "$b" 2>/tmp/bench-tactix.err || true)
  end=$(date +%s.%N)
  stats=$(grep -o 'searched [0-9]* components.*' /tmp/bench-tactix.err || true)
  searched=$(echo "$stats" | sed -E 's/searched ([0-9]+) components.*/\1/')
  peak=$(echo "$stats" | sed -E 's/.*peak memory (.*)/\1/')
  [ "$out" = "-1" ] && out="-1 (over ${limit} s)"
  printf '| %s | %s | %.3f | %s | %s |\n' "$(basename "$b" .pbm)" "$out" "$(awk "BEGIN { print $end - $start }")" "$peak" "$searched"
done
