// The Train page's engine thread. The page runs seeds in parallel, a seed's run on one
// worker or, when there are more workers than seeds, on a team of them (replica.js). Each
// holds at most one RetrievalTrainer (the run being trained) and the trained models of the
// runs the page keeps, by run id (and, while a team measures a model, its copy of it);
// everything it stops using is deleted, since wasm memory is not garbage-collected. Training
// goes in chunks of about `budgetMs` of work, so that the page's pause and stop take effect
// within one chunk. Messages: shared/worker/client.js.
import { serveEngine } from '../shared/worker/server.js';
import { createReplica, evaluationShare, joinEvaluations } from './replica.js';

let training = null;       // {id, trainer, replica}: the run being trained (replica: in a team)
const models = new Map();  // run id → TransformerModel

const plainCheckpoint = ({ step, loss, accuracy, accuracyByPosition }) => ({
  step, loss, accuracy, accuracyByPosition: Array.from(accuracyByPosition),
});

const byHead = (layers) => layers.map((heads) => heads.map((values) => Array.from(values)));

const plainEvaluation = ({ pairs, accuracy, loss, accuracyByPosition, questionsByPosition, attention }) => ({
  pairs, accuracy, loss, accuracyByPosition: Array.from(accuracyByPosition), questionsByPosition: Array.from(questionsByPosition),
  attention: { toValue: byHead(attention.toValue), toKey: byHead(attention.toKey), toFirst: byHead(attention.toFirst) },
});

function dropTraining() {
  training?.replica?.close();
  training?.trainer.delete();
  training = null;
}

function dropModel(id) {
  models.get(id)?.delete();
  models.delete(id);
}

function release(id) {
  dropModel(id);
  if (training?.id === id) dropTraining();
}

function trainingOf(id) {
  if (training?.id !== id) throw new Error(`run ${id} is not being trained in this worker`);
  return training;
}

function modelOf(id) {
  const model = models.get(id);
  if (!model) throw new Error(`run ${id} has no model in this worker`);
  return model;
}

// The model measured on the fixed held-out set at each number of pairs: {evaluations}, or with
// `share` ({rank, size} of a team), {chunks}: the sums of its share of the chunks, which the
// team's first worker joins (join, below).
function measure(engine, model, evaluation, share) {
  if (share) return { chunks: evaluationShare(engine, model, evaluation, share), ...engine.memory };
  const { task, lengths, sequences, context } = evaluation;
  const evaluations = lengths.map((pairs) => plainEvaluation(engine.evaluateRetrieval(model, { task, pairs, sequences, context })));
  return { evaluations, ...engine.memory };
}

const handlers = {
  // A new trainer for run `id` (its model is drawn from options.training.seed); with `team`
  // ({rank, peers, control}: replica.js), a replica of the run a team trains.
  start(engine, { id, options, team }) {
    dropTraining();
    release(id);
    const trainer = engine.retrievalTrainer(options);
    training = { id, trainer, replica: null };
    if (team) training.replica = createReplica(trainer, team);
    return { step: trainer.step, steps: trainer.steps, ...engine.memory };
  },

  // Trains until about budgetMs have passed (the leader's, in a team), the next checkpoint
  // (returned), step `until` (a stopped run's other seeds catching up), or the end.
  async advance(engine, { id, budgetMs, until = Infinity }) {
    const { trainer, replica } = trainingOf(id);
    let checkpoints = [];
    if (replica) {
      checkpoints = (await replica.advance(budgetMs, until)).map(plainCheckpoint);
    } else {
      const started = performance.now();
      while (!trainer.finished && trainer.step < until && checkpoints.length === 0 && performance.now() - started < budgetMs) {
        const checkpoint = trainer.advance(1);
        if (checkpoint) checkpoints.push(plainCheckpoint(checkpoint));
      }
    }
    return { step: trainer.step, steps: trainer.steps, finished: trainer.finished, checkpoints };
  },

  // Ends the training of run `id` where it is (finished, or stopped): keeps its model, frees
  // the trainer, and measures the model at each evaluation length; in a team, with `share`
  // ({rank, size}), measures its share of the chunks and answers their sums (join, below).
  // Stopped between checkpoints, the run's first worker answers too the checkpoint of the
  // steps since the last one (`checkpoint`, else null), measured on the whole held-out set.
  finish(engine, { id, evaluation, share }) {
    const { trainer } = trainingOf(id);
    const leads = (share?.rank ?? 0) === 0;
    const stopped = leads && !trainer.finished && trainer.stop();
    const checkpoint = stopped ? plainCheckpoint(trainer.checkpoint(trainer.correctAnswers())) : null;
    const model = trainer.model();
    dropTraining();
    models.set(id, model);
    return { ...measure(engine, model, evaluation, share), checkpoint };
  },

  // Run `id`'s evaluations joined from every team member's sums: chunks[e] those at the e-th length.
  join(engine, { id, evaluation, chunks }) {
    return { evaluations: joinEvaluations(engine, modelOf(id), evaluation, chunks).map(plainEvaluation) };
  },

  // A model from a file's JSON text (read as a saved model on the page), checked by the
  // engine, kept as run `id`.
  load(engine, { id, text }) {
    const model = engine.loadTransformer(JSON.parse(text));
    dropModel(id);
    models.set(id, model);
    return { config: model.config, ...engine.memory };
  },

  // A loaded model kept as `from` (its key while the page loaded it), kept as run `to` instead.
  rename(engine, { from, to }) {
    const model = modelOf(from);
    models.delete(from);
    dropModel(to);
    models.set(to, model);
    return engine.memory;
  },

  // Run `id`'s model measured at each evaluation length; with `share`, as finish's.
  evaluate(engine, { id, evaluation, share }) {
    return measure(engine, modelOf(id), evaluation, share);
  },

  // One held-out sequence (drawn from `seed`) and the model's attention on it, per layer and
  // head; with the queried pair, the right answer and the model's (its largest logit).
  attention(engine, { id, task, pairs, seed, context }) {
    const model = modelOf(id);
    const batch = engine.retrievalBatch({ task, objective: 'retrieval', pairs, batch: 1, seed });
    const prefix = context === 'prefix' ? 2 * pairs : 0;  // the 2k context tokens, as the trainer sets it
    const { weights } = model.attention({ tokens: batch.tokens, prefix });
    const logits = model.logits({ tokens: batch.tokens, batch: 1, answers: 1, prefix }).data;
    const answer = logits.indexOf(Math.max(...logits));
    return {
      tokens: Array.from(batch.tokens), length: batch.length, prefix, queried: batch.queried[0], target: batch.targets[0], answer,
      weights: weights.map((heads) => heads.map((matrix) => matrix.data)),
    };
  },

  // What model.save() writes, with `meta` beside it.
  save(engine, { id, meta }) {
    return { ...modelOf(id).save(), meta };
  },

  release(engine, { id }) {
    release(id);
    return engine.memory;
  },
};

serveEngine(handlers);
