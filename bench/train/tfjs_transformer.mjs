// The engine's trainable transformer (wasm/attention.d.ts, createTransformer;
// core/include/attn/train/) written with TensorFlow.js ops on its wasm backend: the peer that
// `npm run bench` (bench/train/run.mjs) trains side by side with the engine, from the same
// initial parameters on the same batches. check_tfjs.mjs holds it to PyTorch's golden values.
//
// Letters as in core/include/attn/train/layers.hpp:
//   B  batch: sequences per call            T  length: tokens per sequence
//   N  = B·T rows, one per token            C  channels (dModel)
//   H  heads                                D  = C / H, one head's width
//   F  = 4·C, the MLP's hidden width        V  vocabulary (token ids 0..V-1)
//   O  outputs (answer classes)             A  answers: the last A positions of a row
//   R  = B·A answer rows                    P  maxLength
//   Tq the query positions a layer computes: all T, but only the A answers in the last layer
//      (all that reaches the head), as the engine does
//
// How it is made fast on TF.js 4.22's wasm backend (one thread in Node, SIMD), measured on the
// default run (batch 64, T = 34, C = 32, 2 heads, 2 layers):
//   - Only an un-transposed 2-D tf.matMul runs on XNNPACK; with a transpose flag or a batch
//     dimension it falls to a scalar loop, 6–10× slower at these sizes. TF.js's own gradient
//     of matMul multiplies with transpose flags, so the linear layers and the embedding carry
//     custom gradients that transpose an operand first (51 → 33 ms of kernels per step), and
//     their weights are kept transposed (in×out), converted from and to PyTorch's out×in only
//     at the boundary.
//   - q, k and v are three products from one input, not one product split by columns: the wasm
//     backend's Slice and SplitV copy slowly. RoPE's exchange of the members of each pair is a
//     product with a permutation matrix: its Reverse took 5 ms a call.
//   - The per-head products q·kᵀ and weights·v (and their gradients) are batched B·H-fold and
//     so run in the scalar loop whatever their layout: about 14 of the 33 ms.
//   - Shape-dependent constants (the mask with the ALiBi bias, RoPE's tables with the rotation's
//     sign and the scale 1/√D folded in) are built once per batch shape, tiled to the batch.
//   - The last layer computes queries only at the answer positions, as the engine does.
//   - LayerNorm, GELU and the cross-entropy have closed-form custom gradients (fewer ops than
//     differentiating their pieces), and the optimiser updates one flat vector.
import * as tf from '@tensorflow/tfjs-core';
import { loadTensorFlow } from '../tfjs.mjs';

const LAYER_NORM_EPSILON = 1e-5;
const ADAM_EPSILON = 1e-8;
const CLIP_EPSILON = 1e-6;  // torch.nn.utils.clip_grad_norm_'s guard against a zero norm
const SINUSOID_BASE = 10000;  // the wavelengths' base, from "Attention Is All You Need"
const ROPE_DEFAULT_BASE = 10000;
const TWO_PI = 2 * Math.PI;
const SHAPE_CACHE_SIZE = 4;  // batch shapes whose constants are kept

const MODEL_DEFAULTS = {
  layers: 2, dModel: 32, heads: 2, mlp: false, positional: { type: 'rope' }, maxLength: 512,
};
const OPTIMIZER_DEFAULTS = { betas: [0.9, 0.98], weightDecay: 0, clip: 1 };

// The parameters in the engine's order (transformer.cpp), with PyTorch's shapes:
// [{name, rows, cols, linear, parts}]. `linear` marks an out×in weight, which this module keeps
// transposed (in×out), cut into `parts` equal blocks of output features: Wqkv into its q, k
// and v blocks.
function parameterLayout(config) {
  const { vocab: V, outputs: O, layers: L, dModel: C, mlp, maxLength: P, positional } = completeConfig(config);
  const F = 4 * C;
  const layout = [];
  const add = (name, rows, cols, linear = false, parts = 1) => layout.push({ name, rows, cols, linear, parts });
  add('embedding.weight', V, C);
  if (positional.type === 'learned') add('positional.weight', P, C);
  for (let l = 0; l < L; ++l) {
    const block = `blocks.${l}.`;
    add(`${block}ln1.weight`, 1, C);
    add(`${block}ln1.bias`, 1, C);
    add(`${block}attention.qkv.weight`, 3 * C, C, true, 3);
    add(`${block}attention.out.weight`, C, C, true);
    if (mlp) {
      add(`${block}ln2.weight`, 1, C);
      add(`${block}ln2.bias`, 1, C);
      add(`${block}mlp.fc.weight`, F, C, true);
      add(`${block}mlp.fc.bias`, 1, F);
      add(`${block}mlp.proj.weight`, C, F, true);
      add(`${block}mlp.proj.bias`, 1, C);
    }
  }
  add('final_ln.weight', 1, C);
  add('final_ln.bias', 1, C);
  add('head.weight', O, C, true);
  add('head.bias', 1, O);
  return layout;
}

// The model's configuration with the contract's defaults filled in; throws naming the option.
function completeConfig(config) {
  const full = { ...MODEL_DEFAULTS, ...config, positional: { ...MODEL_DEFAULTS.positional, ...config.positional } };
  for (const key of ['vocab', 'outputs', 'layers', 'dModel', 'heads', 'maxLength']) {
    if (!Number.isInteger(full[key]) || full[key] < 1) {
      throw new Error(`${key} must be a whole number of at least 1, got ${full[key]}`);
    }
  }
  if (full.dModel % full.heads !== 0) {
    throw new Error(`heads (${full.heads}) must divide dModel (${full.dModel})`);
  }
  const { type } = full.positional;
  if (!['none', 'rope', 'alibi', 'learned', 'sinusoidal'].includes(type)) {
    throw new Error(`positional.type must be none, rope, alibi, learned or sinusoidal, got ${type}`);
  }
  if (type === 'rope' && (full.dModel / full.heads) % 2 !== 0) {
    throw new Error(`positional rope needs an even head width, got dModel / heads = ${full.dModel / full.heads}`);
  }
  const pairing = full.positional.pairing ?? 'interleaved';
  if (type === 'rope' && pairing !== 'interleaved' && pairing !== 'half') {
    throw new Error(`positional.pairing must be interleaved or half, got ${pairing}`);
  }
  if (type === 'alibi' && full.positional.slopes && full.positional.slopes.length !== full.heads) {
    throw new Error(`positional.slopes has ${full.positional.slopes.length} slopes but the model has ${full.heads} heads`);
  }
  return full;
}

// ---- layers: each a forward with its gradient ------------------------------------------

// y = x·wT for x: rows×in, wT: in×out (a weight kept transposed). The gradients multiply
// transposed copies, so that all three products run on XNNPACK.
const linearNoBias = tf.customGrad((x, wT, save) => {
  save([x, wT]);
  return {
    value: tf.matMul(x, wT),
    gradFunc: (dy, [x, wT]) => [
      tf.matMul(dy, tf.transpose(wT)),  // dx: rows×in
      tf.matMul(tf.transpose(x), dy),   // dwT: in×out
    ],
  };
});

// y = x·wT + bias; bias: out.
const linearWithBias = tf.customGrad((x, wT, bias, save) => {
  save([x, wT]);
  return {
    value: tf.fused.matMul({ a: x, b: wT, bias }),  // the bias added by XNNPACK
    gradFunc: (dy, [x, wT]) => [
      tf.matMul(dy, tf.transpose(wT)),
      tf.matMul(tf.transpose(x), dy),
      tf.sum(dy, 0),
    ],
  };
});

function linear(x, wT, bias = null) {
  return bias === null ? linearNoBias(x, wT) : linearWithBias(x, wT, bias);
}

// out = table[tokens] as oneHot·table: tf.gather is 8× slower on wasm, and its gradient needs
// a kernel (UnsortedSegmentSum) the wasm backend lacks.
// oneHot: N×V, oneHotT: V×N (its transpose, made once per batch), table: V×C → N×C.
function embedding(table, oneHot, oneHotT) {
  return tf.customGrad((table) => ({
    value: tf.matMul(oneHot, table),
    gradFunc: (dy) => tf.matMul(oneHotT, dy),  // dtable: V×C
  }))(table);
}

// Row by row: (x − mean)/√(var + ε)·weight + bias. x: rows×C; weight, bias: C.
const layerNorm = tf.customGrad((x, weight, bias, save) => {
  const centred = tf.sub(x, tf.mean(x, -1, true));
  const rstd = tf.rsqrt(tf.add(tf.mean(tf.square(centred), -1, true), LAYER_NORM_EPSILON));  // rows×1
  const normed = tf.mul(centred, rstd);
  save([normed, rstd, weight]);
  return {
    value: tf.add(tf.mul(normed, weight), bias),
    gradFunc: (dy, [normed, rstd, weight]) => {
      // dx = rstd·(dn − mean(dn) − n·mean(dn·n)) with dn = dy·weight, n the normalised x
      const dnormed = tf.mul(dy, weight);
      const projection = tf.mul(normed, tf.mean(tf.mul(dnormed, normed), -1, true));
      const dx = tf.mul(rstd, tf.sub(tf.sub(dnormed, tf.mean(dnormed, -1, true)), projection));
      return [dx, tf.sum(tf.mul(dy, normed), 0), tf.sum(dy, 0)];
    },
  };
});

// Exact GELU: x·Φ(x) with Φ(x) = (1 + erf(x/√2))/2; Φ'(x)·x + Φ(x) is its derivative.
const gelu = tf.customGrad((x, save) => {
  const cdf = tf.mul(tf.add(tf.erf(tf.mul(x, Math.SQRT1_2)), 1), 0.5);
  save([x, cdf]);
  return {
    value: tf.mul(x, cdf),
    gradFunc: (dy, [x, cdf]) => {
      const density = tf.mul(tf.exp(tf.mul(tf.square(x), -0.5)), 1 / Math.sqrt(TWO_PI));  // φ(x)
      return tf.mul(dy, tf.add(cdf, tf.mul(x, density)));
    },
  };
});

// Mean softmax cross-entropy of logits: R×O against one-hot labels: R×O.
function crossEntropy(logits, labels) {
  const R = logits.shape[0];
  return tf.customGrad((logits, save) => {
    const logProbabilities = tf.logSoftmax(logits);
    save([logProbabilities]);
    return {
      value: tf.div(tf.neg(tf.sum(tf.mul(labels, logProbabilities))), R),
      gradFunc: (dy, [logProbabilities]) =>
        tf.mul(tf.sub(tf.exp(logProbabilities), labels), tf.div(dy, R)),
    };
  })(logits);
}

// RoPE: rows of x (rows×C) rotated pair by pair, x·cos + swap(x)·sin, where swap exchanges
// the members of every pair and cos, sin (rows×C) hold the angles of each row's position with
// the rotation's sign (and for queries the scale 1/√D) folded in.
function rotate(x, { cos, sin }, swap) {
  return tf.add(tf.mul(x, cos), tf.mul(swap(x), sin));
}

// x·S for a permutation S (C×C) that exchanges pairs of columns: S is its own transpose, so
// the gradient is dy·S too. (A matmul: TF.js's wasm Reverse is 30× slower here.)
function swapColumns(x, S) {
  return tf.customGrad((x) => ({ value: tf.matMul(x, S), gradFunc: (dy) => tf.matMul(dy, S) }))(x);
}

// Causal (or prefix) attention of the last Tq positions over all T, per head.
// q: B·Tq×C (scaled by 1/√D, rotated), k, v: N×C → B·Tq×C, heads concatenated.
// bias: B·H×Tq×T, the ALiBi bias and −∞ where the mask hides a key.
function attention(q, k, v, bias, { B, T, Tq, H, D }) {
  const C = H * D;
  // pass 1: split the heads: q: B·H×Tq×D, kᵀ: B·H×D×T, v: B·H×T×D
  const qHeads = tf.reshape(tf.transpose(tf.reshape(q, [B, Tq, H, D]), [0, 2, 1, 3]), [B * H, Tq, D]);
  const kHeadsT = tf.reshape(tf.transpose(tf.reshape(k, [B, T, H, D]), [0, 2, 3, 1]), [B * H, D, T]);
  const vHeads = tf.reshape(tf.transpose(tf.reshape(v, [B, T, H, D]), [0, 2, 1, 3]), [B * H, T, D]);
  // pass 2: scores = q·kᵀ + bias: B·H×Tq×T
  const scores = tf.add(tf.matMul(qHeads, kHeadsT), bias);
  // pass 3: softmax over the keys (TF.js subtracts the row's max, so no exp overflows)
  const weights = tf.softmax(scores);
  // pass 4: context = weights·v, heads concatenated: B·Tq×C
  const context = tf.matMul(weights, vHeads);  // B·H×Tq×D
  return tf.reshape(tf.transpose(tf.reshape(context, [B, H, Tq, D]), [0, 2, 1, 3]), [B * Tq, C]);
}

// The last Tq rows of each sequence: x: B·T×C → B·Tq×C.
function lastRows(x, B, T, Tq) {
  if (Tq === T) return x;
  const C = x.shape[1];
  return tf.reshape(tf.slice(tf.reshape(x, [B, T, C]), [0, T - Tq, 0], [B, Tq, C]), [B * Tq, C]);
}

// ids.length×depth, row r one-hot at ids[r]. (The wasm backend's OneHot kernel ignores the
// dtype argument and writes int32 bits, so the float32 copy is made by a cast.)
function oneHotRows(ids, depth) {
  return tf.cast(tf.oneHot(tf.tensor1d(Int32Array.from(ids), 'int32'), depth), 'float32');
}

// ---- the model -------------------------------------------------------------------------

// {rows, cols, data} in PyTorch's layout from the tensors that hold one parameter (or its
// gradient) here: a vector, a matrix, or a linear weight's transposed blocks.
function toMatrix(tensors, { rows, cols, linear }) {
  const whole = tf.tidy(() => (linear ? tf.concat(tensors.map((block) => tf.transpose(block)), 0) : tensors[0]));
  const matrix = { rows, cols, data: whole.dataSync().slice() };
  if (linear) whole.dispose();
  return matrix;
}

// The tensors that hold one parameter here, from its values in PyTorch's layout (rows×cols).
function fromMatrix(data, { rows, cols, linear, parts }) {
  return tf.tidy(() => {
    if (rows === 1) return [tf.tensor1d(data, 'float32')];
    const matrix = tf.tensor2d(data, [rows, cols], 'float32');
    return linear ? tf.split(matrix, parts, 0).map((block) => tf.transpose(block)) : [matrix];
  });
}

function parameterData(parameters, name) {
  const value = parameters instanceof Map ? parameters.get(name) : parameters[name];
  if (value === undefined) throw new Error(`parameters has no '${name}'`);
  return value instanceof Float32Array || Array.isArray(value) ? value : value.data;
}

class TfjsTransformer {
  #config;
  #layout;           // parameterLayout(config)
  #parameters;       // name → [tf.Variable]: a vector, a matrix, or a linear weight's transposed blocks
  #variables;        // all of them, in #layout order: what the gradients and AdamW go over
  #moments = null;   // AdamW's running means, flat, in the order of #variables: {m, v}
  #steps = 0;
  #optimizer;
  #shapeCache = new Map();  // batch shape → constants (see #constants)
  #sinusoidal = null;       // P×C (sinusoidal only)
  #ropeAngles = null;       // {cos, sin}: Float64Array P×(D/2) (rope only)
  #swap = null;             // C×C, the permutation that exchanges RoPE's pairs (rope only)
  #alibiSlopes = null;      // H (alibi only)

  constructor(config, parameters, optimizer) {
    this.#config = completeConfig(config);
    this.#optimizer = { ...OPTIMIZER_DEFAULTS, ...optimizer };
    this.#layout = parameterLayout(this.#config);
    this.#parameters = new Map();
    for (const info of this.#layout) {
      const { name, rows, cols } = info;
      const data = parameterData(parameters, name);
      if (data.length !== rows * cols) {
        throw new Error(`${name} is ${rows}×${cols} (${rows * cols} values) but ${data.length} values were given`);
      }
      const tensors = fromMatrix(data, info);
      this.#parameters.set(name, tensors.map((tensor) => tf.variable(tensor, true)));
      tf.dispose(tensors);
    }
    this.#variables = [...this.#parameters.values()].flat();
    this.#precomputePositions();
  }

  parameterNames() {
    return this.#layout.map(({ name }) => name);
  }

  // name → {rows, cols, data} in PyTorch's layout.
  getParameters() {
    return Object.fromEntries(this.#layout.map((info) => [info.name, toMatrix(this.#parameters.get(info.name), info)]));
  }

  // {loss, gradients: name → {rows, cols, data}}: the mean loss and its gradients.
  lossAndGradients(batch) {
    const shape = this.#checkBatch(batch, true);
    const { value, grads } = tf.tidy(() => {
      const inputs = this.#inputs(batch, shape);
      return tf.variableGrads(() => this.#loss(inputs), this.#variables);
    });
    const gradients = {};
    for (const info of this.#layout) {
      const pieces = this.#parameters.get(info.name).map((variable) => grads[variable.name]);
      gradients[info.name] = toMatrix(pieces, info);
    }
    tf.dispose(Object.values(grads));
    const loss = value.dataSync()[0];
    value.dispose();
    return { loss, gradients };
  }

  // Logits at the last `answers` positions: {rows: B·A, cols: O, data}.
  logits(batch) {
    const shape = this.#checkBatch(batch, false);
    const logits = tf.tidy(() => this.#logits(this.#inputs(batch, shape)));
    const matrix = { rows: logits.shape[0], cols: logits.shape[1], data: logits.dataSync().slice() };
    logits.dispose();
    return matrix;
  }

  // One training step at this learning rate: the gradients of the mean loss, clipped to the
  // global norm `clip`, then AdamW. Returns the loss before the step.
  step(batch, learningRate) {
    const shape = this.#checkBatch(batch, true);
    const loss = tf.tidy(() => {
      // the inputs are made outside the differentiated function, whose intermediate tensors
      // are gone before the gradients that need them (custom gradients hold the one-hots)
      const inputs = this.#inputs(batch, shape);
      const { value, grads } = tf.variableGrads(() => this.#loss(inputs), this.#variables);
      this.#adamw(this.#variables.map((variable) => grads[variable.name]), learningRate);
      return value;
    });
    const value = loss.dataSync()[0];
    loss.dispose();
    return value;
  }

  dispose() {
    tf.dispose(this.#variables);
    if (this.#moments) tf.dispose([this.#moments.m, this.#moments.v]);
    tf.dispose([this.#sinusoidal, this.#swap].filter((tensor) => tensor !== null));
    for (const constants of this.#shapeCache.values()) tf.dispose(constants.tensors);
    this.#shapeCache.clear();
  }

  // -- forward ---------------------------------------------------------------------------

  #loss(inputs) {
    return crossEntropy(this.#logits(inputs), inputs.labels);
  }

  // → R×O
  #logits(inputs) {
    const { B, T, A, constants } = inputs;
    const { layers: L, dModel: C, heads: H, mlp } = this.#config;
    const W = (name) => this.#parameters.get(name)[0];
    const { type } = this.#config.positional;
    // embedding (+ position vectors): N×C
    let x = embedding(W('embedding.weight'), inputs.oneHot, inputs.oneHotT);
    if (type === 'learned' || type === 'sinusoidal') {
      const table = type === 'learned' ? W('positional.weight') : this.#sinusoidal;
      x = tf.reshape(tf.add(tf.reshape(x, [B, T, C]), tf.slice(table, [0, 0], [T, C])), [B * T, C]);
    }
    for (let l = 0; l < L; ++l) {
      const block = `blocks.${l}.`;
      const Tq = l === L - 1 ? A : T;
      // attention sublayer: x = x + attention(ln1(x))·Woutᵀ, on the query rows
      const normed = layerNorm(x, W(`${block}ln1.weight`), W(`${block}ln1.bias`));  // N×C
      const [Wq, Wk, Wv] = this.#parameters.get(`${block}attention.qkv.weight`);    // C×C each
      let q = linear(lastRows(normed, B, T, Tq), Wq);  // B·Tq×C
      let k = linear(normed, Wk);                      // N×C
      const v = linear(normed, Wv);                    // N×C
      if (this.#swap) {
        const swap = (rows) => swapColumns(rows, this.#swap);
        q = rotate(q, constants.queryRope[Tq], swap);
        k = rotate(k, constants.keyRope, swap);
      } else {
        q = tf.mul(q, 1 / Math.sqrt(C / H));
      }
      const context = attention(q, k, v, constants.bias[Tq], { B, T, Tq, H, D: C / H });
      x = tf.add(lastRows(x, B, T, Tq), linear(context, W(`${block}attention.out.weight`)));
      if (!mlp) continue;
      // MLP sublayer: x = x + proj(gelu(fc(ln2(x))))
      const normed2 = layerNorm(x, W(`${block}ln2.weight`), W(`${block}ln2.bias`));
      const hidden = gelu(linear(normed2, W(`${block}mlp.fc.weight`), W(`${block}mlp.fc.bias`)));  // B·Tq×F
      x = tf.add(x, linear(hidden, W(`${block}mlp.proj.weight`), W(`${block}mlp.proj.bias`)));
    }
    // the last stream holds the R answer rows: final LayerNorm → head
    const final = layerNorm(x, W('final_ln.weight'), W('final_ln.bias'));
    return linear(final, W('head.weight'), W('head.bias'));
  }

  // -- AdamW -----------------------------------------------------------------------------

  // Clips the gradients to the global norm and applies one AdamW update, as the engine's
  // clip_gradients and AdamW::step (torch.optim.AdamW with decoupled weight decay).
  // gradients: one per variable, in the order of #variables.
  #adamw(gradients, learningRate) {
    const { betas: [beta1, beta2], weightDecay, clip } = this.#optimizer;
    const variables = this.#variables;
    const flat = (tensors) => tf.concat(tensors.map((t) => tf.reshape(t, [-1])));
    let g = flat(gradients);
    if (clip > 0) {
      // as torch.nn.utils.clip_grad_norm_: scale by clip/(norm + 1e-6) when that is below 1
      const norm = tf.sqrt(tf.sum(tf.square(g)));
      g = tf.mul(g, tf.minimum(tf.div(clip, tf.add(norm, CLIP_EPSILON)), 1));
    }
    if (this.#moments === null) {
      this.#moments = { m: tf.variable(tf.zerosLike(g), false), v: tf.variable(tf.zerosLike(g), false) };
    }
    const { m, v } = this.#moments;
    m.assign(tf.add(tf.mul(m, beta1), tf.mul(g, 1 - beta1)));
    v.assign(tf.add(tf.mul(v, beta2), tf.mul(tf.square(g), 1 - beta2)));
    this.#steps += 1;
    // the bias corrections of moments that start at zero
    const stepSize = learningRate / (1 - beta1 ** this.#steps);
    const inverseCorrection2 = 1 / Math.sqrt(1 - beta2 ** this.#steps);
    const denominator = tf.add(tf.mul(tf.sqrt(v), inverseCorrection2), ADAM_EPSILON);
    const decayed = tf.mul(flat(variables), 1 - learningRate * weightDecay);
    const updated = tf.sub(decayed, tf.div(tf.mul(m, stepSize), denominator));
    const pieces = tf.split(updated, variables.map((variable) => variable.size));
    variables.forEach((variable, i) => variable.assign(tf.reshape(pieces[i], variable.shape)));
  }

  // -- inputs and constants --------------------------------------------------------------

  // {B, T, A, prefix}; throws naming the field when the batch does not fit the model.
  #checkBatch({ tokens, batch, targets, answers = 1, prefix = 0 }, needTargets) {
    const { vocab, outputs, maxLength } = this.#config;
    if (!Number.isInteger(batch) || batch < 1) throw new Error(`batch must be a whole number of at least 1, got ${batch}`);
    if (!tokens || tokens.length % batch !== 0 || tokens.length === 0) {
      throw new Error(`tokens has ${tokens?.length} ids, not a multiple of batch (${batch})`);
    }
    const T = tokens.length / batch;
    if (T > maxLength) throw new Error(`sequences of ${T} tokens do not fit maxLength (${maxLength})`);
    if (!Number.isInteger(answers) || answers < 1 || answers > T) {
      throw new Error(`answers must be from 1 to the sequence length (${T}), got ${answers}`);
    }
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > T) {
      throw new Error(`prefix must be from 0 to the sequence length (${T}), got ${prefix}`);
    }
    const outOfRange = (ids, limit) => ids.findIndex((id) => !(id >= 0 && id < limit));
    const badToken = outOfRange(tokens, vocab);
    if (badToken >= 0) throw new Error(`tokens[${badToken}] is ${tokens[badToken]}; ids go from 0 to ${vocab - 1}`);
    if (needTargets) {
      if (!targets || targets.length !== batch * answers) {
        throw new Error(`targets has ${targets?.length} class ids, expected batch × answers = ${batch * answers}`);
      }
      const badTarget = outOfRange(targets, outputs);
      if (badTarget >= 0) throw new Error(`targets[${badTarget}] is ${targets[badTarget]}; class ids go from 0 to ${outputs - 1}`);
    }
    return { B: batch, T, A: answers, prefix };
  }

  // The batch as tensors, with the constants of its shape (call inside tf.tidy).
  #inputs({ tokens, targets }, { B, T, A, prefix }) {
    const { vocab: V, outputs: O } = this.#config;
    const oneHot = oneHotRows(tokens, V);  // N×V
    return {
      B, T, A, oneHot, oneHotT: tf.transpose(oneHot),
      labels: targets ? oneHotRows(targets, O) : null,  // R×O
      constants: this.#constants(B, T, A, prefix),
    };
  }

  // Constants of one batch shape, built once and kept (the oldest shape is dropped when more
  // than SHAPE_CACHE_SIZE are in use), by query count Tq (T, or A in the last layer):
  //   bias[Tq]: B·H×Tq×T, the ALiBi bias and −∞ where the mask hides a key;
  //   queryRope[Tq]: cos, sin: B·Tq×C for the query rows (scale 1/√D folded in); keyRope: N×C.
  #constants(B, T, A, prefix) {
    const key = `${B},${T},${A},${prefix}`;
    let constants = this.#shapeCache.get(key);
    if (constants) return constants;
    if (this.#shapeCache.size >= SHAPE_CACHE_SIZE) {
      const [oldest] = this.#shapeCache.keys();
      tf.dispose(this.#shapeCache.get(oldest).tensors);
      this.#shapeCache.delete(oldest);
    }
    const D = this.#config.dModel / this.#config.heads;
    constants = { bias: {}, queryRope: {}, keyRope: null };
    for (const Tq of new Set([T, A])) {
      constants.bias[Tq] = this.#maskBias(B, T, Tq, prefix);
      if (this.#swap) constants.queryRope[Tq] = this.#ropeTables(B, T - Tq, Tq, 1 / Math.sqrt(D));
    }
    if (this.#swap) constants.keyRope = this.#ropeTables(B, 0, T, 1);
    // kept: they outlive the tf.tidy of the step that first needs them
    constants.tensors = [
      ...Object.values(constants.bias),
      ...[...Object.values(constants.queryRope), constants.keyRope].flatMap((rope) => (rope ? [rope.cos, rope.sin] : [])),
    ];
    for (const tensor of constants.tensors) tf.keep(tensor);
    this.#shapeCache.set(key, constants);
    return constants;
  }

  // B·H×Tq×T: for query i at position p = T − Tq + i and key j, −slope_h·|p − j| where j is
  // visible (j ≤ p, or both inside the prefix), −∞ where it is not.
  #maskBias(B, T, Tq, prefix) {
    const H = this.#config.heads;
    const values = new Float32Array(H * Tq * T);
    for (let h = 0; h < H; ++h) {
      const slope = this.#alibiSlopes ? this.#alibiSlopes[h] : 0;
      for (let i = 0; i < Tq; ++i) {
        const p = T - Tq + i;
        for (let j = 0; j < T; ++j) {
          const visible = j <= p || (p < prefix && j < prefix);
          values[(h * Tq + i) * T + j] = visible ? -slope * Math.abs(p - j) : -Infinity;
        }
      }
    }
    return tf.tidy(() => tf.tile(tf.tensor3d(values, [H, Tq, T]), [B, 1, 1]));
  }

  // RoPE's tables for `count` positions from `first`, tiled to the batch: cos, sin: B·count×C,
  // so that rotated = x·cos + swap(x)·sin. The first member of a pair takes −sin, the second
  // +sin; both are multiplied by `scale`.
  #ropeTables(B, first, count, scale) {
    const C = this.#config.dModel, D = C / this.#config.heads, half = D / 2;
    const interleaved = this.#config.positional.pairing !== 'half';
    const cos = new Float32Array(count * C), sin = new Float32Array(count * C);
    for (let r = 0; r < count; ++r) {
      const angles = (first + r) * half;
      for (let c = 0; c < C; ++c) {
        const j = c % D;  // column within the head
        const pair = interleaved ? j >> 1 : j % half;
        const firstMember = interleaved ? j % 2 === 0 : j < half;
        cos[r * C + c] = scale * this.#ropeAngles.cos[angles + pair];
        sin[r * C + c] = scale * (firstMember ? -1 : 1) * this.#ropeAngles.sin[angles + pair];
      }
    }
    return tf.tidy(() => {
      const tile = (table) => tf.tile(tf.tensor2d(table, [count, C]), [B, 1]);
      return { cos: tile(cos), sin: tile(sin) };
    });
  }

  // Position tables that depend on the configuration only.
  #precomputePositions() {
    const { positional, dModel: C, heads: H, maxLength: P } = this.#config;
    const D = C / H;
    if (positional.type === 'sinusoidal') {
      // PE[p][2t] = sin(p / 10000^(2t/C)), PE[p][2t+1] = cos(the same)
      const table = new Float32Array(P * C);
      for (let p = 0; p < P; ++p) {
        for (let c = 0; c < C; ++c) {
          const angle = p / SINUSOID_BASE ** ((2 * (c >> 1)) / C);
          table[p * C + c] = c % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
        }
      }
      this.#sinusoidal = tf.tensor2d(table, [P, C]);
    } else if (positional.type === 'rope') {
      // pair t's angle at position p is p·base^(−2t/D); the frequency is taken modulo 2π as the
      // engine does, so that p·frequency stays exact enough for any base
      const base = positional.base ?? ROPE_DEFAULT_BASE, half = D / 2;
      const cos = new Float64Array(P * half), sin = new Float64Array(P * half);
      for (let t = 0; t < half; ++t) {
        const frequency = (base ** ((-2 * t) / D)) % TWO_PI;
        for (let p = 0; p < P; ++p) {
          cos[p * half + t] = Math.cos(p * frequency);
          sin[p * half + t] = Math.sin(p * frequency);
        }
      }
      this.#ropeAngles = { cos, sin };
      // the pairs: (2t, 2t+1) interleaved, or (t, t + D/2) half, within each head
      const swap = new Float32Array(C * C);
      for (let c = 0; c < C; ++c) {
        const j = c % D;
        const partner = positional.pairing === 'half' ? c - j + ((j + D / 2) % D) : c ^ 1;
        swap[partner * C + c] = 1;
      }
      this.#swap = tf.tensor2d(swap, [C, C]);
    } else if (positional.type === 'alibi') {
      // ALiBi's geometric slopes 2^(−8h/H), h = 1..H, unless given
      this.#alibiSlopes = positional.slopes ?? Array.from({ length: H }, (_, h) => 2 ** ((-8 * (h + 1)) / H));
    }
  }
}

// A model with `config` (createTransformer's: vocab, outputs, layers, dModel, heads, mlp,
// positional, maxLength) starting from `parameters` (PyTorch's names → Float32Array or
// {rows, cols, data}, e.g. the engine's initial ones), trained by AdamW with `optimizer`
// ({betas, weightDecay, clip}; learning rates are given to each step).
export async function createTfjsTransformer(config, parameters, optimizer = {}) {
  await loadTensorFlow();
  return new TfjsTransformer(config, parameters, optimizer);
}
