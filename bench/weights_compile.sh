#!/usr/bin/env bash
# Compile cost of embedded weights: builds a Gemm chain with ~47 MB of float weights, compiles it
# with onnxc, then times `g++ -O2 -c` on the generated .cpp and reports wall time and peak RSS.
# Usage: bench/weights_compile.sh [ONNXC] [CXX]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
onnxc=${1:-$here/../build/onnxc}
cxx=${2:-g++}
dir=$(mktemp -d)
/usr/bin/python3 - "$dir/big.onnx" <<'PY'
import sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper
rng = np.random.default_rng(0)
n = 700  # 3 layers of 700x2800 + 2800x700 floats: 47 MB
nodes, inits, x = [], [], "x"
for i in range(3):
    for j, (a, b) in enumerate([(n, 4 * n), (4 * n, n)]):
        w = f"w{i}_{j}"
        inits.append(numpy_helper.from_array(rng.standard_normal((a, b)).astype(np.float32) * 0.01, w))
        nodes.append(helper.make_node("MatMul", [x, w], [f"h{i}_{j}"]))
        x = f"h{i}_{j}"
g = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
                      [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, n])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
open(sys.argv[1], "wb").write(m.SerializeToString())
PY
"$onnxc" "$dir/big.onnx" -o "$dir/big.cpp"
echo "weights: $(stat -c %s "$dir/big.onnx") bytes of model, generated .cpp $(stat -c %s "$dir/big.cpp") bytes"
/usr/bin/time -f "$cxx -O2: wall_s=%e max_rss_kb=%M" "$cxx" -std=c++17 -O2 -c "$dir/big.cpp" -o "$dir/big.o"
rm -rf "$dir"
