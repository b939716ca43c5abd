// Runs each case's model.onnx under onnxruntime-node (CPU) on test_data_set_0/input_K.bin and
// writes output_K.bin + outputs.json; with --time N also prints ORT's median/min latency.
// Usage: node ort_reference.js CASES_DIR [--time N]
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

// The element types inputs.json may name (default float32), as ORT's tensor types.
const kTypedArrays = {
  float32: Float32Array, int64: BigInt64Array, int32: Int32Array, uint8: Uint8Array,
  int8: Int8Array, bool: Uint8Array,
};

async function main() {
  const dir = process.argv[2];
  const timeIters = process.argv[3] === '--time' ? parseInt(process.argv[4], 10) : 0;
  for (const name of fs.readdirSync(dir).sort()) {
    const data = path.join(dir, name, 'test_data_set_0');
    const session = await ort.InferenceSession.create(path.join(dir, name, 'model.onnx'),
        {intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all'});
    const specs = JSON.parse(fs.readFileSync(path.join(data, 'inputs.json')));
    const feeds = {};
    specs.forEach((s, k) => {
      const buf = fs.readFileSync(path.join(data, `input_${k}.bin`));
      const copy = Uint8Array.from(buf).buffer;  // aligned for the typed array
      const type = s.type || 'float32';
      feeds[s.name] = new ort.Tensor(type, new kTypedArrays[type](copy), s.shape);
    });
    const results = await session.run(feeds);
    const outputs = session.outputNames.map((n, k) => {
      const t = results[n];
      fs.writeFileSync(path.join(data, `output_${k}.bin`), Buffer.from(t.data.buffer));
      return {name: n, shape: t.dims, type: t.type};
    });
    fs.writeFileSync(path.join(data, 'outputs.json'), JSON.stringify(outputs));
    if (timeIters > 0) {
      for (let i = 0; i < Math.max(1, timeIters / 10); ++i) await session.run(feeds);
      const ms = [];
      for (let i = 0; i < timeIters; ++i) {
        const t0 = process.hrtime.bigint();
        await session.run(feeds);
        ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      ms.sort((a, b) => a - b);
      console.log(`${name} ort median_ms=${ms[ms.length >> 1].toFixed(4)} min_ms=${ms[0].toFixed(4)}`);
    }
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
