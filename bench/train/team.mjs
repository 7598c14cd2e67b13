// The team part of `npm run bench` (node bench/run.mjs team): the engine's default run
// (engine.trainRetrieval's defaults: the Train page's RoPE preset, 1,400 steps) trained by one
// worker alone and by a team of two (worker_threads, each with its own engine;
// web/train/replica.js exchanging shards and counts through MessagePorts, as the page's workers
// do), alternating, ROUNDS times each; then
// the page's evaluations after training (16, 24 and 32 pairs, 2,048 sequences each): by the
// worker alone, or by each member on its share of the chunks, joined by the first. The team's
// checkpoints and evaluations must equal the worker's alone, or the benchmark stops. Prints the
// medians and team ÷ alone; on a machine of two cores the team has them both.
import { MessageChannel, Worker } from 'node:worker_threads';
import { connectTeam } from '../../web/train/replica.js';
import { evaluationOptions } from '../../web/train/runner.js';
import { DEFAULTS, evaluationLengths } from '../../web/train/state.js';

const ROUNDS = 3;
const OPTIONS = {};  // trainRetrieval's defaults: the page's RoPE preset (its default is the same with ALiBi)
// What the page measures after a run of its default task
const EVALUATION = evaluationOptions(DEFAULTS, evaluationLengths(DEFAULTS));

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
  worker.postMessage({ options: OPTIONS, evaluation: EVALUATION });
  return answered;
}

// The run on `workers` as one team: each member's answer, and the evaluations joined by the
// first from every member's chunks, with the join's time (its round trip from here).
async function trainTeam(workers) {
  const peers = connectTeam(workers.length);
  const members = await Promise.all(workers.map((worker, rank) => {
    const answered = answer(worker);
    const { port2: control } = new MessageChannel();
    const ports = peers[rank].filter((port) => port !== null);
    const team = { rank, size: workers.length, peers: peers[rank], control };
    worker.postMessage({ options: OPTIONS, evaluation: EVALUATION, team }, [...ports, control]);
    return answered;
  }));
  const joining = performance.now();
  const joined = answer(workers[0]);
  const chunks = EVALUATION.lengths.map((_, e) => members.flatMap((member) => member.chunks[e]));
  workers[0].postMessage({ join: { evaluation: EVALUATION, chunks } });
  const { evaluations } = await joined;
  return { members, evaluations, joinSeconds: (performance.now() - joining) / 1000 };
}

export async function runTeamBenchmark() {
  const workers = await Promise.all([startWorker(), startWorker()]);
  try {
    const alone = [], team = [], aloneEvaluation = [], teamEvaluation = [];
    let expected = null;
    for (let round = 0; round < ROUNDS; ++round) {
      const one = await trainAlone(workers[0]);
      const { members, evaluations, joinSeconds } = await trainTeam(workers);
      expected ??= JSON.stringify(one.checkpoints);
      for (const answered of [one, ...members]) {
        if (JSON.stringify(answered.checkpoints) !== expected) throw new Error('a team\'s checkpoints differ from one worker\'s');
      }
      if (JSON.stringify(evaluations) !== JSON.stringify(one.evaluations)) throw new Error('a team\'s evaluations differ from one worker\'s');
      alone.push(one.seconds);
      team.push(Math.max(...members.map((member) => member.seconds)));
      aloneEvaluation.push(one.evaluationSeconds);
      teamEvaluation.push(Math.max(...members.map((member) => member.evaluationSeconds)) + joinSeconds);
      console.error(`bench: round ${round + 1}: one worker ${one.seconds.toFixed(2)} s + ${one.evaluationSeconds.toFixed(3)} s of evaluations, ` +
        `a team of two ${team.at(-1).toFixed(2)} s + ${teamEvaluation.at(-1).toFixed(3)} s`);
    }
    const results = {
      rounds: ROUNDS, alone: median(alone), team: median(team), ratio: median(team) / median(alone), allAlone: alone, allTeam: team,
      evaluation: {
        lengths: EVALUATION.lengths, sequences: EVALUATION.sequences, alone: median(aloneEvaluation), team: median(teamEvaluation),
        ratio: median(teamEvaluation) / median(aloneEvaluation), allAlone: aloneEvaluation, allTeam: teamEvaluation,
      },
    };
    const { evaluation } = results;
    const table = [
      `The engine's default run (the Train page's RoPE preset: 1,400 steps of 64 sequences), then its evaluations (${EVALUATION.lengths.join(', ')} pairs, ` +
        `${EVALUATION.sequences} sequences each), ${ROUNDS} rounds alternating, medians; the checkpoints and evaluations of every run equal.`,
      '',
      '| | training (s) | ÷ one worker | evaluations (s) | ÷ one worker |',
      '|---|---:|---:|---:|---:|',
      `| one worker | ${results.alone.toFixed(2)} | 1.00 | ${evaluation.alone.toFixed(3)} | 1.00 |`,
      `| a team of two workers | ${results.team.toFixed(2)} | ${results.ratio.toFixed(2)} | ${evaluation.team.toFixed(3)} | ${evaluation.ratio.toFixed(2)} |`,
    ].join('\n');
    return { results, table };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
