// The baseline the engine is measured against: softmax(q·kᵀ/√d)·v written as the
// straightforward JavaScript triple loop a page would otherwise run.
// q: n×d, k: n×d, v: n×d as row-major Float32Arrays → context n×d.
export function jsAttention(q, k, v, n, d, causal) {
  const context = new Float32Array(n * d);
  const scores = new Float64Array(n);
  const scale = 1 / Math.sqrt(d);
  for (let i = 0; i < n; ++i) {
    const visible = causal ? i + 1 : n;
    let max = -Infinity;
    for (let j = 0; j < visible; ++j) {
      let dot = 0;
      for (let t = 0; t < d; ++t) dot += q[i * d + t] * k[j * d + t];
      scores[j] = dot * scale;
      if (scores[j] > max) max = scores[j];
    }
    let total = 0;
    for (let j = 0; j < visible; ++j) {
      scores[j] = Math.exp(scores[j] - max);
      total += scores[j];
    }
    for (let j = 0; j < visible; ++j) {
      const weight = scores[j] / total;
      for (let t = 0; t < d; ++t) context[i * d + t] += weight * v[j * d + t];
    }
  }
  return context;
}
