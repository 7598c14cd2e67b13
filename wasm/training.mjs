// Training (core/include/attn/train/): a small transformer the engine trains, the retrieval
// task it learns, and the measures of where it looks. Models and trainers live in wasm
// memory, which JavaScript's garbage collector does not see: each has a delete().
import {
  describe, fail, optional, positionalOption, requireBoolean, requireCount, requireFiniteNumber,
  requireKnownKeys, requireName, requireWholeNumber, toMatrix, unwrap,
} from './arguments.mjs';

const MAX_SEED = 2 ** 32 - 1;
// evaluateRetrievalChunks' measuredWith: a 32-bit checksum of the model and the context
const MAX_CHECKSUM = 2 ** 32 - 1;
// The keys of each positional type a model takes.
const MODEL_POSITIONAL_KEYS = {
  none: ['type'], rope: ['type', 'base', 'pairing'], alibi: ['type', 'slopes'], learned: ['type'],
  sinusoidal: ['type'],
};
const CONFIG_KEYS = ['vocab', 'outputs', 'layers', 'dModel', 'heads', 'mlp', 'positional', 'maxLength', 'seed'];
const TASK_KEYS = ['pairs', 'keys', 'values', 'answerPositions', 'mix', 'span'];
const MIX_KEYS = ['retrieval', 'runningSpan', 'serialRecall'];
const TRAINING_KEYS = ['steps', 'batch', 'learningRate', 'warmup', 'schedule', 'weightDecay', 'betas', 'clip', 'seed'];
const EVALUATION_KEYS = ['every', 'sequences', 'pairs'];
// What createOptimizer takes of the training options: all but the batch and the seed.
const OPTIMIZER_KEYS = TRAINING_KEYS.filter((key) => key !== 'batch' && key !== 'seed');
const SAVED_FORMAT = 'attention-playground-transformer';
const SAVED_VERSION = 1;

function requireSeed(name, seed) {
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > MAX_SEED) {
    fail(`${name} must be a whole number from 0 to ${MAX_SEED}, got ${describe(seed)}`);
  }
  return seed;
}

// The architecture's options shared by createTransformer and the trainer's `model`.
function architecture(name, options) {
  return {
    layers: optional(options.layers, (layers) => requireCount(`${name}layers`, layers, 1)),
    dModel: optional(options.dModel, (width) => requireCount(`${name}dModel`, width, 1)),
    heads: optional(options.heads, (heads) => requireCount(`${name}heads`, heads, 1)),
    mlp: optional(options.mlp, (mlp) => requireBoolean(`${name}mlp`, mlp)),
    positional: optional(options.positional,
      (positional) => positionalOption(`${name}positional`, positional, MODEL_POSITIONAL_KEYS)),
    maxLength: optional(options.maxLength, (length) => requireCount(`${name}maxLength`, length, 1)),
  };
}

function transformerConfig(config) {
  requireKnownKeys('createTransformer config', config, CONFIG_KEYS);
  return {
    vocab: requireCount('vocab', config.vocab, 1),
    outputs: requireCount('outputs', config.outputs, 1),
    ...architecture('', config),
    seed: optional(config.seed, (seed) => requireSeed('seed', seed)),
  };
}

// Token ids or class ids: an Int32Array, or an array of whole numbers (range checks are the core's).
function toIds(name, ids) {
  if (ids instanceof Int32Array) return ids;
  if (!Array.isArray(ids) && !ArrayBuffer.isView(ids)) {
    fail(`${name} must be an Int32Array or an array of whole numbers, got ${describe(ids)}`);
  }
  const result = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; ++i) {
    if (!Number.isInteger(ids[i]) || Math.abs(ids[i]) > 2 ** 31 - 1) {
      fail(`${name}[${i}] must be a whole number, got ${describe(ids[i])}`);
    }
    result[i] = ids[i];
  }
  return result;
}

// {tokens, batch, answers, prefix[, targets]} → what bindings.cpp reads, shapes checked. A
// result of retrievalBatch is such a batch: its length is checked, its queried ignored.
function batchInput(name, input, withTargets) {
  requireKnownKeys(name, input, ['tokens', 'batch', 'answers', 'prefix', 'length', 'queried',
    ...(withTargets ? ['targets'] : [])]);
  const tokens = toIds('tokens', input.tokens);
  const batch = requireCount('batch', input.batch, 1);
  const answers = requireCount('answers', input.answers ?? 1, 1);
  const prefix = requireWholeNumber('prefix', input.prefix ?? 0, 0);
  if (tokens.length === 0 || tokens.length % batch !== 0) {
    fail(`tokens has ${tokens.length} ids, which is not batch (${batch}) sequences of equal length ≥ 1`);
  }
  if (input.length !== undefined && input.length !== tokens.length / batch) {
    fail(`length is ${describe(input.length)} but tokens holds batch (${batch}) sequences of ${tokens.length / batch}`);
  }
  const result = { tokens, batch, length: tokens.length / batch, answers, prefix, targets: null };
  if (withTargets) {
    result.targets = toIds('targets', input.targets);
    if (result.targets.length !== batch * answers) {
      fail(`targets has ${result.targets.length} class ids but batch × answers = ${batch} × ${answers} = ${batch * answers}`);
    }
  }
  return result;
}

function taskOptions(task) {
  requireKnownKeys('task', task, TASK_KEYS);
  return {
    pairs: optional(task.pairs, (pairs) => requireCount('task.pairs', pairs, 1)),
    keys: optional(task.keys, (keys) => requireCount('task.keys', keys, 1)),
    values: optional(task.values, (values) => requireCount('task.values', values, 1)),
    answerPositions: optional(task.answerPositions, (where) => requireName('task.answerPositions', where)),
    mix: optional(task.mix, (mix) => {
      requireKnownKeys('task.mix', mix, MIX_KEYS);
      return Object.fromEntries(MIX_KEYS.map((key) => [key,
        optional(mix[key], (weight) => requireFiniteNumber(`task.mix.${key}`, weight))]));
    }),
    span: optional(task.span, (span) => requireCount('task.span', span, 1)),
  };
}

function trainingOptions(training) {
  requireKnownKeys('training', training, TRAINING_KEYS);
  const number = (key) => optional(training[key], (value) => requireFiniteNumber(`training.${key}`, value));
  return {
    steps: optional(training.steps, (steps) => requireCount('training.steps', steps, 1)),
    batch: optional(training.batch, (batch) => requireCount('training.batch', batch, 1)),
    learningRate: number('learningRate'),
    warmup: optional(training.warmup, (warmup) => requireWholeNumber('training.warmup', warmup, 0)),
    schedule: optional(training.schedule, (schedule) => requireName('training.schedule', schedule)),
    weightDecay: number('weightDecay'),
    betas: optional(training.betas, (betas) => {
      if (!Array.isArray(betas) || betas.length !== 2) {
        fail(`training.betas must be an array of two numbers, got ${describe(betas)}`);
      }
      return betas.map((beta, i) => requireFiniteNumber(`training.betas[${i}]`, beta));
    }),
    clip: number('clip'),
    seed: optional(training.seed, (seed) => requireSeed('training.seed', seed)),
  };
}

function retrievalOptions(options) {
  requireKnownKeys('trainRetrieval options', options, ['task', 'model', 'training', 'evaluation']);
  const { task = {}, model = {}, training = {}, evaluation = {} } = options;
  requireKnownKeys('model', model, [...CONFIG_KEYS.filter((key) => !['vocab', 'outputs', 'seed'].includes(key)), 'context']);
  requireKnownKeys('evaluation', evaluation, EVALUATION_KEYS);
  return {
    task: taskOptions(task),
    model: {
      ...architecture('model.', model),
      context: optional(model.context, (context) => requireName('model.context', context)),
    },
    training: trainingOptions(training),
    evaluation: {
      every: optional(evaluation.every, (every) => requireCount('evaluation.every', every, 1)),
      sequences: optional(evaluation.sequences, (sequences) => requireCount('evaluation.sequences', sequences, 1)),
      pairs: optional(evaluation.pairs, (pairs) => {
        if (!Array.isArray(pairs) || pairs.length === 0) {
          fail(`evaluation.pairs must be a non-empty array of numbers of pairs, got ${describe(pairs)}`);
        }
        return pairs.map((count, i) => requireCount(`evaluation.pairs[${i}]`, count, 1));
      }),
    },
  };
}

// What a call that needs a live model or trainer checks first.
function requireLive(what, deleted) {
  if (deleted) fail(`this ${what} was deleted; its wasm memory is freed and it can no longer be used`);
}

export function trainingCalls(core) {
  // Each model's core handle, for the calls that take a model (createOptimizer, evaluateRetrieval).
  const handles = new WeakMap();

  function handleOf(model) {
    const handle = handles.get(model);
    if (handle === undefined) fail(`model must be a model of createTransformer or loadTransformer, got ${describe(model)}`);
    requireLive('model', model.deleted);
    return handle;
  }

  // A JavaScript model around the core's handle (which JavaScript must delete).
  function modelFrom(handle) {
    let deleted = false;
    const config = handle.config();
    Object.freeze(config.positional);
    Object.freeze(config);
    const live = () => requireLive('model', deleted);
    const model = Object.freeze({
      config,
      parameterNames() { live(); return handle.parameterNames(); },
      getParameter(name) { live(); return unwrap(handle.parameter(requireName('name', name))); },
      setParameter(name, value) {
        live();
        unwrap(handle.setParameter(requireName('name', name), toMatrix(name, value)));
      },
      lossAndGradients(batch) {
        live();
        return unwrap(handle.lossAndGradients(batchInput('lossAndGradients batch', batch, true)));
      },
      logits(batch) { live(); return unwrap(handle.logits(batchInput('logits batch', batch, false))); },
      attention(input) {
        live();
        requireKnownKeys('attention input', input, ['tokens', 'prefix']);
        const tokens = toIds('tokens', input.tokens);
        return unwrap(handle.attention({ tokens, batch: 1, length: tokens.length, answers: tokens.length,
          prefix: requireWholeNumber('prefix', input.prefix ?? 0, 0), targets: null }));
      },
      save() {
        live();
        const parameters = {};
        for (const name of handle.parameterNames()) {
          const { rows, cols, data } = unwrap(handle.parameter(name));
          parameters[name] = { rows, cols, data: Array.from(data) };
        }
        return { format: SAVED_FORMAT, version: SAVED_VERSION, config: { ...config }, parameters };
      },
      get deleted() { return deleted; },
      delete() {
        if (deleted) return;
        deleted = true;
        handle.delete();
      },
    });
    handles.set(model, handle);
    return model;
  }

  /** A new model whose parameters PyTorch's generator draws from config.seed. */
  function createTransformer(config) {
    return modelFrom(unwrap(core.createTransformer(transformerConfig(config))));
  }

  /** A model from what model.save() wrote; every part is checked, and nothing else accepted. */
  function loadTransformer(saved) {
    requireKnownKeys('saved model', saved, ['format', 'version', 'config', 'parameters', 'meta']);
    if (saved.format !== SAVED_FORMAT) {
      fail(`saved model's format must be '${SAVED_FORMAT}', got ${describe(saved.format)}`);
    }
    if (saved.version !== SAVED_VERSION) {
      fail(`saved model's version must be ${SAVED_VERSION}, got ${describe(saved.version)}`);
    }
    if (saved.parameters === null || typeof saved.parameters !== 'object' || Array.isArray(saved.parameters)) {
      fail(`saved model parameters must be an object of matrices by name, got ${describe(saved.parameters)}`);
    }
    const model = createTransformer(saved.config);
    try {
      const names = model.parameterNames();
      const missing = names.filter((name) => !Object.hasOwn(saved.parameters, name));
      const extra = Object.keys(saved.parameters).filter((name) => !names.includes(name));
      if (missing.length > 0) fail(`saved model has no parameter ${missing[0]} (it needs ${names.length}: ${names.join(', ')})`);
      if (extra.length > 0) fail(`saved model has a parameter ${JSON.stringify(extra[0].slice(0, 60))} that this model does not`);
      for (const name of names) model.setParameter(name, saved.parameters[name]);
      return model;
    } catch (error) {
      model.delete();
      throw error;
    }
  }

  /** Trains step by step; checkpoints every evaluation.every steps and after the last. */
  function retrievalTrainer(options = {}) {
    const normalized = retrievalOptions(options);
    const handle = unwrap(core.createRetrievalTrainer(normalized));
    let deleted = false;
    let model = null;  // the one model handed out, until its holder deletes it
    const live = () => requireLive('trainer', deleted);
    const shards = handle.shards();
    const parameterCount = handle.parameterCount();
    const pairs = handle.pairs();  // task.pairs: the positions a checkpoint counts answers at
    return Object.freeze({
      get step() { live(); return handle.step(); },
      get steps() { live(); return handle.steps(); },
      get finished() { live(); return handle.finished(); },
      shards,
      parameterCount,
      advance(maxSteps) {
        live();
        return unwrap(handle.advance(requireCount('maxSteps', maxSteps, 1)));
      },
      // A step shared by replicas (README "One run on several workers"): each computes some of
      // the step's shards, as blocks, they exchange them, and each applies all of them; at a
      // checkpoint, each counts the right answers of some chunks of the held-out set, and each
      // takes the checkpoint from their sum.
      computeShards(first = 0, end = shards) {
        live();
        requireCount('first', first, 0, shards - 1);
        requireCount('end', end, first + 1, shards);
        return unwrap(handle.computeShards(first, end));
      },
      applyShards(blocks) {
        live();
        if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > shards) {
          fail(`blocks must be an array of 1 to ${shards} blocks of shards, got ${describe(blocks)}`);
        }
        // each block's values read once, into objects of our own
        const read = Array.from({ length: blocks.length }, (_, b) => {
          const name = `blocks[${b}]`;
          requireKnownKeys(name, blocks[b], ['first', 'end', 'gradient', 'loss']);
          const { first, end, gradient, loss } = blocks[b];
          requireCount(`${name}.first`, first, 0, shards - 1);
          requireCount(`${name}.end`, end, first + 1, shards);
          const size = end - first;
          if ((size & (size - 1)) !== 0 || first % size !== 0) {
            fail(`${name} must be a block of shards (a power of two of them, from a multiple of that number), got shards ${first} to ${end}`);
          }
          if (!(gradient instanceof Float32Array) || gradient.length !== parameterCount) {
            fail(`${name}.gradient must be a Float32Array of parameterCount = ${parameterCount} values, got ${describe(gradient)}`);
          }
          requireFiniteNumber(`${name}.loss`, loss);
          return { block: { first, end, gradient, loss }, b };
        });
        const ordered = read.sort((x, y) => x.block.first - y.block.first);
        ordered.forEach(({ block, b }, i) => {
          const due = i === 0 ? 0 : ordered[i - 1].block.end;
          if (block.first !== due) {
            fail(`blocks must tile shards 0 to ${shards} once each: blocks[${b}] (shards ${block.first} to ${block.end}) ${block.first < due ? 'overlaps another' : `leaves shards ${due} to ${block.first} out`}`);
          }
        });
        const last = ordered.at(-1).block.end;
        if (last !== shards) fail(`blocks must tile shards 0 to ${shards} once each: shards ${last} to ${shards} are left out`);
        return unwrap(handle.applyShards(ordered.map(({ block }) => block)));
      },
      get evaluationChunks() { live(); return handle.evaluationChunks(); },
      correctAnswers(first = 0, end = undefined) {
        live();
        const chunks = handle.evaluationChunks();
        requireCount('first', first, 0, chunks - 1);
        requireCount('end', end ?? chunks, first + 1, chunks);
        return unwrap(handle.correctAnswers(first, end ?? chunks));
      },
      checkpoint(correct) {
        live();
        if (!(correct instanceof Int32Array || Array.isArray(correct)) || correct.length !== pairs) {
          fail(`correct must be an Int32Array or an array of ${pairs} whole numbers, one per position, got ${describe(correct)}`);
        }
        // each count read once, into an array of our own
        const counts = Array.from({ length: pairs }, (_, i) => requireCount(`correct[${i}]`, correct[i], 0));
        return unwrap(handle.checkpoint(counts));
      },
      stop() {
        live();
        return handle.stop();
      },
      evaluate(pairs) {
        live();
        return unwrap(handle.evaluate(optional(pairs, (count) => requireCount('pairs', count, 1)) ?? 0));
      },
      model() {
        live();
        if (model === null || model.deleted) model = modelFrom(handle.model());
        return model;
      },
      delete() {
        if (deleted) return;
        deleted = true;
        handle.delete();
      },
    });
  }

  /** Trains a new model on the retrieval task to the end; see README "Train". */
  function trainRetrieval(options = {}, onProgress = undefined) {
    if (onProgress !== undefined && typeof onProgress !== 'function') {
      fail(`onProgress must be a function, got ${describe(onProgress)}`);
    }
    const started = performance.now();
    const trainer = retrievalTrainer(options);
    try {
      const checkpoints = [];
      while (!trainer.finished) {
        const checkpoint = trainer.advance(trainer.steps);
        if (checkpoint === null) continue;
        checkpoints.push(checkpoint);
        onProgress?.(checkpoint);
      }
      const pairs = options.evaluation?.pairs ?? [undefined];
      const evaluations = pairs.map((count) => trainer.evaluate(count));
      return { checkpoints, evaluations, model: trainer.model(), seconds: (performance.now() - started) / 1000 };
    } finally {
      trainer.delete();
    }
  }

  /** Sequences of the retrieval task, drawn from a seed (the trainer's own draws come from its seed's stream). */
  function retrievalBatch(options = {}) {
    requireKnownKeys('retrievalBatch options', options, ['task', 'objective', 'pairs', 'batch', 'seed']);
    return unwrap(core.retrievalBatch({
      task: taskOptions(options.task ?? {}),
      objective: optional(options.objective, (objective) => requireName('objective', objective)),
      pairs: optional(options.pairs, (pairs) => requireCount('pairs', pairs, 1)),
      batch: requireCount('batch', options.batch ?? 1, 1),
      seed: requireSeed('seed', options.seed ?? 0),
    }));
  }

  /** Schedule, clipping and AdamW for a model, one step per call (what the trainer does each step). */
  function createOptimizer(model, options = {}) {
    requireKnownKeys('createOptimizer options', options, OPTIMIZER_KEYS);
    const handle = unwrap(core.createOptimizer(handleOf(model), trainingOptions(options)));
    let deleted = false;
    return Object.freeze({
      step(batch) {
        requireLive('optimizer', deleted);
        requireLive('model', model.deleted);
        return unwrap(handle.step(batchInput('step batch', batch, true)));
      },
      get steps() { requireLive('optimizer', deleted); return handle.steps(); },
      delete() {
        if (deleted) return;
        deleted = true;
        handle.delete();
      },
    });
  }

  // evaluateRetrieval's options {task, pairs, sequences, context}, checked, as the core reads them.
  function heldOutSet(name, options, keys = []) {
    requireKnownKeys(name, options, ['task', 'pairs', 'sequences', 'context', ...keys]);
    return {
      task: taskOptions(options.task ?? {}),
      pairs: optional(options.pairs, (pairs) => requireCount('pairs', pairs, 1)),
      sequences: optional(options.sequences, (sequences) => requireCount('sequences', sequences, 1)),
      context: optional(options.context, (context) => requireName('context', context)),
    };
  }

  /** Any model measured on the fixed held-out retrieval set (as the trainer measures its own). */
  function evaluateRetrieval(model, options = {}) {
    return unwrap(core.evaluateRetrieval(handleOf(model), heldOutSet('evaluateRetrieval options', options)));
  }

  // An evaluation in parts (README "One run on several workers"): the chunks of the held-out
  // set, the sums of some of them (each from zero), and the evaluation joined from every
  // chunk's sums, which is evaluateRetrieval's to the bit wherever the chunks were computed.

  /** How many chunks evaluateRetrieval(model, options) measures its held-out set in. */
  function retrievalEvaluationChunks(model, options = {}) {
    const set = heldOutSet('retrievalEvaluationChunks options', options);
    return unwrap(core.heldOutChunks(handleOf(model), set)).chunks;
  }

  /** The sums of chunks [first, end) of that set (by default all), one per chunk, in order. */
  function evaluateRetrievalChunks(model, options = {}) {
    const set = heldOutSet('evaluateRetrievalChunks options', options, ['first', 'end']);
    const handle = handleOf(model);
    const { chunks } = unwrap(core.heldOutChunks(handle, set));
    const first = requireCount('first', options.first ?? 0, 0, chunks - 1);
    const end = requireCount('end', options.end ?? chunks, first + 1, chunks);
    return unwrap(core.evaluateRetrievalChunks(handle, set, first, end));
  }

  // chunks[c].attention[table] of `layers` × `heads` Float64Arrays of `pairs` sums, read once
  // into plain arrays (holes, getters and other lengths refused here, before the core copies
  // anything).
  function summedTable(name, table, layers, heads, pairs) {
    const shape = `an array of ${layers} layers, each an array of ${heads} Float64Arrays of ${pairs} sums (one per position)`;
    if (!Array.isArray(table) || table.length !== layers) fail(`${name} must be ${shape}, got ${describe(table)}`);
    return Array.from({ length: layers }, (_, l) => {
      const row = table[l];
      if (!Array.isArray(row) || row.length !== heads) fail(`${name}[${l}] must be an array of ${heads} Float64Arrays, got ${describe(row)}`);
      return Array.from({ length: heads }, (__, h) => {
        const sums = row[h];
        if (!(sums instanceof Float64Array) || sums.length !== pairs) {
          fail(`${name}[${l}][${h}] must be a Float64Array of ${pairs} sums, got ${describe(sums)}`);
        }
        return sums;
      });
    });
  }

  /** evaluateRetrieval's result from every chunk's sums (evaluateRetrievalChunks'), in any order. */
  function joinRetrievalEvaluation(model, options, chunks) {
    const set = heldOutSet('joinRetrievalEvaluation options', options);
    const handle = handleOf(model);
    const { chunks: count, pairs } = unwrap(core.heldOutChunks(handle, set));
    const { layers, heads } = model.config;
    if (!Array.isArray(chunks) || chunks.length !== count) {
      fail(`chunks must be an array of the set's ${count} chunks' sums, got ${describe(chunks)}`);
    }
    // each chunk's values read once, into objects of our own
    const read = Array.from({ length: count }, (_, c) => {
      const name = `chunks[${c}]`;
      const given = chunks[c];
      requireKnownKeys(name, given, ['chunk', 'sequences', 'measuredWith', 'loss', 'correct', 'attention']);
      const { chunk, sequences, measuredWith, loss, correct, attention } = given;
      requireCount(`${name}.chunk`, chunk, 0, count - 1);
      requireCount(`${name}.sequences`, sequences, 1);
      requireCount(`${name}.measuredWith`, measuredWith, 0, MAX_CHECKSUM);
      if (typeof loss !== 'number') fail(`${name}.loss must be a number, got ${describe(loss)}`);
      if (!(correct instanceof Int32Array) || correct.length !== pairs) {
        fail(`${name}.correct must be an Int32Array of ${pairs} counts (one per position), got ${describe(correct)}`);
      }
      requireKnownKeys(`${name}.attention`, attention, ['toValue', 'toKey', 'toFirst']);
      const { toValue, toKey, toFirst } = attention;
      return {
        chunk, sequences, measuredWith, loss, correct,
        toValue: summedTable(`${name}.attention.toValue`, toValue, layers, heads, pairs),
        toKey: summedTable(`${name}.attention.toKey`, toKey, layers, heads, pairs),
        toFirst: summedTable(`${name}.attention.toFirst`, toFirst, layers, heads, pairs),
      };
    });
    const ordered = read.sort((a, b) => a.chunk - b.chunk);
    ordered.forEach(({ chunk }, c) => {
      if (chunk !== c) {
        fail(`chunks must hold each of the set's ${count} chunks once: chunk ${chunk < c ? `${chunk} comes twice` : `${c} is missing`}`);
      }
    });
    return unwrap(core.joinRetrievalEvaluation(handle, set, ordered));
  }

  return {
    createTransformer, loadTransformer, retrievalTrainer, trainRetrieval, evaluateRetrieval, retrievalEvaluationChunks,
    evaluateRetrievalChunks, joinRetrievalEvaluation, retrievalBatch, createOptimizer,
  };
}
