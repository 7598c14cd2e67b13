// Inputs for training benchmarks: a seeded random generator, batches of the retrieval task as
// API.md ("The retrieval task's tokens") describes them, and initial parameters drawn the way
// PyTorch initialises the model (for runs that do not start from the engine's own).
//
// With K keys and V values: keys are tokens 0..K−1, values K..K+V−1, SEP = K+V; vocabulary
// K+V+3. A sequence with k pairs is `k1 v1 … kk vk SEP q` (length T = 2k+2): keys distinct,
// values drawn with repetition, q one of the k keys; its target is q's value as a class id
// (token − K, in 0..V−1).

// mulberry32: a small, fast 32-bit generator; random() → [0, 1).
export function randomGenerator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const randomInteger = (random, count) => Math.floor(random() * count);

// The vocabulary of a task with `keys` and `values`: keys, values, SEP, RS, FR.
export const retrievalVocabulary = ({ keys, values }) => keys + values + 3;

// {tokens: Int32Array B×T, targets: Int32Array B, batch: B, answers: 1, prefix: 0}.
export function retrievalBatch(random, { pairs, keys, values }, batch) {
  const T = 2 * pairs + 2, separator = keys + values;
  const tokens = new Int32Array(batch * T), targets = new Int32Array(batch);
  const order = Int32Array.from({ length: keys }, (_, i) => i);
  for (let b = 0; b < batch; ++b) {
    const row = tokens.subarray(b * T, (b + 1) * T);
    // the first `pairs` entries of a partial Fisher–Yates shuffle: distinct keys
    for (let i = 0; i < pairs; ++i) {
      const j = i + randomInteger(random, keys - i);
      [order[i], order[j]] = [order[j], order[i]];
      row[2 * i] = order[i];
      row[2 * i + 1] = keys + randomInteger(random, values);
    }
    const queried = randomInteger(random, pairs);
    row[T - 2] = separator;
    row[T - 1] = row[2 * queried];
    targets[b] = row[2 * queried + 1] - keys;
  }
  return { tokens, targets, batch, answers: 1, prefix: 0 };
}

// A standard normal draw (Box–Muller).
function normal(random) {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

// name → Float32Array for each {name, rows, cols} of `layout`, as PyTorch initialises them:
// embedding and position tables N(0, 1); LayerNorm weights 1 and biases 0; a linear layer's
// weight and bias U(±1/√fan_in), fan_in being the weight's columns.
export function randomParameters(layout, random) {
  const parameters = {};
  let fanIn = 1;  // of the last weight seen: a bias follows its weight
  for (const { name, rows, cols } of layout) {
    const values = new Float32Array(rows * cols);
    if (name === 'embedding.weight' || name === 'positional.weight') {
      values.forEach((_, i) => { values[i] = normal(random); });
    } else if (/ln\d?\.weight$|final_ln\.weight$/.test(name)) {
      values.fill(1);
    } else if (/ln\d?\.bias$|final_ln\.bias$/.test(name)) {
      values.fill(0);
    } else {
      if (name.endsWith('.weight')) fanIn = cols;
      const bound = 1 / Math.sqrt(fanIn);
      values.forEach((_, i) => { values[i] = (2 * random() - 1) * bound; });
    }
    parameters[name] = values;
  }
  return parameters;
}
