// A worker of the team part (team.mjs): trains the default run alone, or as one replica of a
// team (web/train/replica.js, as the Train page's workers do), then measures the trained model
// as the page does after training: alone, every evaluation; in a team, its share of the
// held-out chunks, which the leader joins when asked. Answers its times and numbers.
import { parentPort } from 'node:worker_threads';
import createAttention from '../../dist/wasm/attention.mjs';
import { createReplica, evaluationShare, joinEvaluations } from '../../web/train/replica.js';

const CHUNK_MS = 50;  // the page's chunk: the leader ends one after about this much training
const engine = await createAttention();
let model = null;  // the last run's trained model, until the next run

// Typed arrays as plain arrays, so that numbers compare as text.
const plain = (value) => JSON.parse(JSON.stringify(value, (key, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));

async function train({ options, team, evaluation }) {
  model?.delete();
  const trainer = engine.retrievalTrainer(options);
  const replica = team ? createReplica(trainer, team) : null;
  const checkpoints = [];
  const started = performance.now();
  while (!trainer.finished) {
    if (replica) checkpoints.push(...(await replica.advance(CHUNK_MS)));
    else checkpoints.push(...[trainer.advance(trainer.steps)].filter(Boolean));
  }
  const seconds = (performance.now() - started) / 1000;
  replica?.close();
  model = trainer.model();
  trainer.delete();
  const measured = performance.now();
  const { lengths, ...set } = evaluation;
  const answer = team
    ? { chunks: evaluationShare(engine, model, evaluation, team) }
    : { evaluations: plain(lengths.map((pairs) => engine.evaluateRetrieval(model, { ...set, pairs }))) };
  const evaluationSeconds = (performance.now() - measured) / 1000;
  return { seconds, evaluationSeconds, checkpoints: checkpoints.map(({ step, loss, accuracy }) => ({ step, loss, accuracy })), ...answer };
}

parentPort.on('message', async (message) => {
  if (message.join) {
    const { evaluation, chunks } = message.join;
    parentPort.postMessage({ evaluations: plain(joinEvaluations(engine, model, evaluation, chunks)) });
  } else {
    parentPort.postMessage(await train(message));
  }
});
parentPort.postMessage('ready');
