// The team part of `npm run bench` (node bench/run.mjs team): the Train page's default run
// (engine.trainRetrieval's defaults, 1,400 steps) trained by one worker alone and by a team of
// two (worker_threads, each with its own engine; web/train/replica.js exchanging shards and
// counts through MessagePorts, as the page's workers do), alternating, ROUNDS times each.
// The team's checkpoints must equal the worker's alone, or the benchmark stops. Prints the
// medians and team ÷ alone; on a machine of two cores the team has them both.
import { MessageChannel, Worker } from 'node:worker_threads';
import { connectTeam } from '../../web/train/replica.js';

const ROUNDS = 3;
const OPTIONS = {};  // trainRetrieval's defaults: the page's default run

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function startWorker() {
  const worker = new Worker(new URL('./team-worker.mjs', import.meta.url));
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(worker));
    worker.once('error', reject);
  });
}

const answer = (worker) => new Promise((resolve, reject) => {
  worker.once('message', resolve);
  worker.once('error', reject);
});

function trainAlone(worker) {
  const answered = answer(worker);
  worker.postMessage({ options: OPTIONS });
  return answered;
}

// The run on `workers` as one team: each member's answer.
function trainTeam(workers) {
  const peers = connectTeam(workers.length);
  return Promise.all(workers.map((worker, rank) => {
    const answered = answer(worker);
    const { port2: control } = new MessageChannel();
    const ports = peers[rank].filter((port) => port !== null);
    worker.postMessage({ options: OPTIONS, team: { rank, peers: peers[rank], control } }, [...ports, control]);
    return answered;
  }));
}

export async function runTeamBenchmark() {
  const workers = await Promise.all([startWorker(), startWorker()]);
  try {
    const alone = [], team = [];
    let expected = null;
    for (let round = 0; round < ROUNDS; ++round) {
      const one = await trainAlone(workers[0]);
      const members = await trainTeam(workers);
      expected ??= JSON.stringify(one.checkpoints);
      for (const answered of [one, ...members]) {
        if (JSON.stringify(answered.checkpoints) !== expected) throw new Error('a team\'s checkpoints differ from one worker\'s');
      }
      alone.push(one.seconds);
      team.push(Math.max(...members.map((member) => member.seconds)));
      console.error(`bench: round ${round + 1}: one worker ${one.seconds.toFixed(2)} s, a team of two ${team.at(-1).toFixed(2)} s`);
    }
    const results = { rounds: ROUNDS, alone: median(alone), team: median(team), ratio: median(team) / median(alone), allAlone: alone, allTeam: team };
    const table = [
      `The Train page's default run (1,400 steps of 64 sequences), ${ROUNDS} rounds alternating, medians; the checkpoints of every run equal.`,
      '',
      '| default run | s | ÷ one worker |',
      '|---|---:|---:|',
      `| one worker | ${results.alone.toFixed(2)} | 1.00 |`,
      `| a team of two workers | ${results.team.toFixed(2)} | ${results.ratio.toFixed(2)} |`,
    ].join('\n');
    return { results, table };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
