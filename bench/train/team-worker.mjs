// A worker of the team part (team.mjs): trains the default run alone, or as one replica of a
// team (web/train/replica.js, as the Train page's workers do), and answers its time, its
// checkpoints and its own split of the time.
import { parentPort } from 'node:worker_threads';
import createAttention from '../../dist/wasm/attention.mjs';
import { createReplica } from '../../web/train/replica.js';

const CHUNK_MS = 50;  // the page's chunk: the leader ends one after about this much training
const engine = await createAttention();

parentPort.on('message', async ({ options, team }) => {
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
  trainer.delete();
  parentPort.postMessage({ seconds, checkpoints: checkpoints.map(({ step, loss, accuracy }) => ({ step, loss, accuracy })) });
});
parentPort.postMessage('ready');
