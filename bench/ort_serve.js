// onnxruntime-node as a timing server for bench/run, speaking the protocol of onnxc's timing
// program (`bench DIR --serve`): for each count N read on stdin, runs N inferences and prints
// their latencies in ms on one line. Inputs are the files onnxc bench wrote (DIR/input_K.bin),
// so both runtimes compute on the same bytes.
// Usage: node ort_serve.js MODEL.onnx INPUTS.json DIR THREADS
//   INPUTS.json: [{"name", "shape", "dtype": "float32" | "int64"}, ...] in graph order
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const ort = require('onnxruntime-node');

const kArrays = {float32: Float32Array, int64: BigInt64Array};

async function main() {
  const [model, specsPath, dir, threads] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: parseInt(threads, 10),
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  JSON.parse(fs.readFileSync(specsPath)).forEach((s, k) => {
    const buf = fs.readFileSync(path.join(dir, `input_${k}.bin`));
    const Array = kArrays[s.dtype];
    const copy = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length);
    feeds[s.name] = new ort.Tensor(s.dtype, new Array(copy), s.shape);
  });
  const lines = readline.createInterface({input: process.stdin});
  for await (const line of lines) {
    const n = parseInt(line, 10);
    if (!(n > 0)) break;
    const ms = [];
    for (let i = 0; i < n; ++i) {
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      ms.push((Number(process.hrtime.bigint() - t0) / 1e6).toFixed(6));
    }
    process.stdout.write(ms.join(' ') + '\n');
  }
}
main().catch((e) => {
  console.error(`ort_serve.js: ${e.message || e}`);
  process.exit(1);
});
