# Sourced by bench/compare_*.sh: times two timing programs built by `onnxc bench --out DIR
# --no-run` interleaved, one round of ITERS runs of each after the other, ROUNDS rounds (both
# meet the same machine state), and prints the medians of the rounds' medians and their ratio.
#   interleave_pair NAME DIR_A DIR_B ITERS ROUNDS FORMAT
# FORMAT: a Python format string over name, a (ms), b (ms) and ratio (b / a).
interleave_pair() {
  local name=$1 dir_a=$2 dir_b=$3 iters=$4 rounds=$5 format=$6 r ms
  local a=() b=()
  for ((r = 0; r < rounds; ++r)); do
    ms=$(cd "$dir_a" && ./bench . "$iters" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
    a+=("$ms")
    ms=$(cd "$dir_b" && ./bench . "$iters" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
    b+=("$ms")
  done
  /usr/bin/python3 - "$name" "${a[*]}" "${b[*]}" "$format" <<'PY'
import statistics, sys
name, a, b, fmt = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4]
a, b = statistics.median(map(float, a)), statistics.median(map(float, b))
print(fmt.format(name=name, a=a, b=b, ratio=b / a))
PY
}
