// Saves what an onnxruntime-node session makes of a model at a graph optimization level, as a
// user's tool chain would (`optimizedModelFilePath`): at `extended` the CPU provider's fusions
// (com.microsoft FusedConv, FusedGemm, FusedMatMul, Gelu, LayerNormalization, ...).
// Usage: node ort_save_optimized.js MODEL.onnx OUT.onnx [LEVEL]   (LEVEL: basic|extended|all)
const ort = require('onnxruntime-node');

async function main() {
  const [model, out, level = 'extended'] = process.argv.slice(2);
  await ort.InferenceSession.create(model, {
    graphOptimizationLevel: level, optimizedModelFilePath: out,
    intraOpNumThreads: 1, interOpNumThreads: 1,
  });
}
main().catch((e) => { console.error(e.message || e); process.exit(1); });
