// One run trained by a team (web/train/replica.js, and the runner's teams in runner.js):
// replicas joined by MessagePorts give the checkpoints and parameters of one trainer alone,
// bit for bit, whatever the team's size and however the leader cuts the chunks; a member that
// fails ends the others' advance with its message; an abandoned or closed replica, or one
// sent a message it cannot read, stops waiting. After training, the members' shares of the
// evaluation, joined, give one engine's evaluateRetrieval at every length.
// The replicas run in this one thread: each awaits the others' shards, as workers would. A
// replica that waited for ever would hang its test: each has a time limit instead.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { connectTeam, createReplica, evaluationShare, joinEvaluations, shardRanges } from '../../web/train/replica.js';
import { teamsFor } from '../../web/train/runner.js';

const engine = await createAttention();
const LIMIT = { timeout: 60_000 };

// 4 pairs of 8 keys and 8 values with running span mixed in, checkpoints at 10, 20 and 25.
const OPTIONS = {
  task: { pairs: 4, keys: 8, values: 8, mix: { retrieval: 1, runningSpan: 1 }, span: 2 },
  model: { dModel: 16 },
  training: { steps: 25, warmup: 5, batch: 24 },
  evaluation: { every: 10, sequences: 32, pairs: [4] },
};

// A team of `size` replicas of the run of `options` (OPTIONS'): {trainers, replicas, peers (each one's ports), controls (the page's ends)}.
function team(size, options = OPTIONS) {
  const peers = connectTeam(size);
  const channels = peers.map(() => new MessageChannel());
  const trainers = peers.map(() => engine.retrievalTrainer(options));
  const replicas = trainers.map((trainer, rank) => createReplica(trainer, { rank, peers: peers[rank], control: channels[rank].port2 }));
  return { trainers, replicas, peers, controls: channels.map(({ port1 }) => port1) };
}

function close({ trainers, replicas, controls }) {
  replicas.forEach((replica) => replica.close());
  controls.forEach((port) => port.close());
  trainers.forEach((trainer) => trainer.delete());
}

// Advances every replica chunk by chunk to the end: each one's checkpoints, and the steps at
// which each chunk ended (the same for every member, or the test fails).
async function trainToEnd({ trainers, replicas }, budgetMs) {
  const checkpoints = replicas.map(() => []);
  const chunkEnds = [];
  while (!trainers[0].finished) {
    const chunks = await Promise.all(replicas.map((replica) => replica.advance(budgetMs)));
    chunks.forEach((chunk, r) => checkpoints[r].push(...chunk));
    const steps = trainers.map((trainer) => trainer.step);
    assert.ok(steps.every((step) => step === steps[0]), `the members ended a chunk at steps ${steps}`);
    chunkEnds.push(steps[0]);
  }
  return { checkpoints, chunkEnds };
}

function assertSameModel(model, expected, what) {
  for (const name of expected.parameterNames()) {
    assert.deepEqual(model.getParameter(name), expected.getParameter(name), `${what}: ${name}`);
  }
}

describe('a run trained by a team of replicas', () => {
  const alone = engine.trainRetrieval(OPTIONS);

  for (const size of [2, 3, 8]) {
    test(`${size} replicas give one trainer's checkpoints and parameters, bit for bit`, LIMIT, async () => {
      const members = team(size);
      const { checkpoints, chunkEnds } = await trainToEnd(members, 1e9);
      assert.deepEqual(chunkEnds, [10, 20, 25], 'chunks end at the checkpoints when time does not end them');
      assert.equal(members.trainers[0].evaluationChunks, 1, 'one chunk of held-out sequences: the other members count none');
      checkpoints.forEach((got, r) => assert.deepEqual(got, alone.checkpoints, `replica ${r}'s checkpoints`));
      members.trainers.forEach((trainer, r) => {
        const model = trainer.model();
        assertSameModel(model, alone.model, `replica ${r}`);
        model.delete();
      });
      close(members);
    });
  }

  test('chunks the leader cuts short (a budget of 0 ms: one step each) end at the same step for every member', LIMIT, async () => {
    const members = team(3);
    assert.equal(members.trainers[0].evaluationChunks, 1);
    const { checkpoints, chunkEnds } = await trainToEnd(members, 0);
    assert.deepEqual(chunkEnds, Array.from({ length: 25 }, (_, i) => i + 1));
    checkpoints.forEach((got) => assert.deepEqual(got, alone.checkpoints));
    close(members);
  });

  test('a held-out set of 3 chunks counted by 3 members (one each) gives one trainer\'s checkpoints', LIMIT, async () => {
    const options = { ...OPTIONS, evaluation: { ...OPTIONS.evaluation, sequences: 600 } };
    const expected = engine.trainRetrieval(options);
    const members = team(3, options);
    assert.equal(members.trainers[0].evaluationChunks, 3);
    const { checkpoints } = await trainToEnd(members, 1e9);
    checkpoints.forEach((got) => assert.deepEqual(got, expected.checkpoints));
    expected.model.delete();
    close(members);
  });

  test('a member that fails ends the others\' advance with its message; nothing waits', LIMIT, async () => {
    const members = team(3);
    await Promise.all(members.replicas.map((replica) => replica.advance(1e9)));
    members.trainers[1].delete();  // its next computeShards throws
    const outcomes = await Promise.allSettled(members.replicas.map((replica) => replica.advance(1e9)));
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['rejected', 'rejected', 'rejected']);
    const deleted = 'this trainer was deleted; its wasm memory is freed and it can no longer be used';
    assert.equal(outcomes[1].reason.message, deleted);
    assert.equal(outcomes[0].reason.message, `worker 2 of this run's 3 failed: ${deleted}`);
    assert.equal(outcomes[2].reason.message, `worker 2 of this run's 3 failed: ${deleted}`);
    members.trainers.splice(1, 1);
    close(members);
  });

  test('a replica whose team never answers is abandoned through its control port', LIMIT, async () => {
    const members = team(2);
    const waiting = members.replicas[0].advance(1e9);  // the other member never advances
    members.controls[0].postMessage({ reason: 'another worker of this run failed: it stopped' });
    await assert.rejects(waiting, { message: 'another worker of this run failed: it stopped' });
    close(members);
  });

  test('a replica that is closed, or sent a message it cannot read, stops waiting', LIMIT, async () => {
    const closed = team(2);
    const waiting = closed.replicas[0].advance(1e9);
    closed.replicas[0].close();
    await assert.rejects(waiting, { message: 'this replica was closed' });
    close(closed);
    const unreadable = team(2);
    const waits = unreadable.replicas[0].advance(1e9);
    // what a port does with a message it cannot deserialize
    unreadable.peers[0][1].dispatchEvent(new Event('messageerror'));
    await assert.rejects(waits, { message: 'a message from worker 2 of this run could not be read' });
    close(unreadable);
  });

  test('a team larger than the trainer\'s shards is refused', () => {
    const trainer = engine.retrievalTrainer(OPTIONS);
    const { port1, port2 } = new MessageChannel();
    assert.throws(() => createReplica(trainer, { rank: 0, peers: Array(9).fill(null), control: port2 }),
      { message: 'a team has at most 8 members (the step\'s shards), got 9' });
    port1.close();
    trainer.delete();
  });

  test('the evaluations after training, shared by a team of 3 over 2 chunks (one member measures none) and joined: evaluateRetrieval\'s, bit for bit', () => {
    // 300 held-out sequences: 2 chunks at each length
    const evaluation = { task: OPTIONS.task, lengths: [4, 6], sequences: 300, context: 'causal' };
    const replicas = [0, 1, 2].map(() => engine.loadTransformer(alone.model.save()));
    const shares = replicas.map((model, rank) => structuredClone(evaluationShare(engine, model, evaluation, { rank, size: 3 })));
    assert.deepEqual(shares.map((share) => share.map((chunks) => chunks.map(({ chunk }) => chunk))), [[[], []], [[0], [0]], [[1], [1]]]);
    const joined = joinEvaluations(engine, replicas[0], evaluation, evaluation.lengths.map((_, e) => shares.flatMap((share) => share[e])));
    assert.deepEqual(joined, evaluation.lengths.map((pairs) =>
      engine.evaluateRetrieval(alone.model, { task: OPTIONS.task, pairs, sequences: 300, context: 'causal' })));
    replicas.forEach((model) => model.delete());
  });

  test('after', () => alone.model.delete());
});

describe('teams and shard ranges', () => {
  test('shardRanges splits the 8 shards as evenly as they divide', () => {
    assert.deepEqual(shardRanges(8, 1), [[0, 8]]);
    assert.deepEqual(shardRanges(8, 2), [[0, 4], [4, 8]]);
    assert.deepEqual(shardRanges(8, 3), [[0, 2], [2, 5], [5, 8]]);
    assert.deepEqual(shardRanges(8, 8), Array.from({ length: 8 }, (_, r) => [r, r + 1]));
  });

  test('teamsFor: one worker per seed when seeds are as many as the workers; else equal teams of at most 8', () => {
    assert.deepEqual(teamsFor(1, 1), [[0]]);
    assert.deepEqual(teamsFor(3, 1), [[0], [1], [2]]);
    assert.deepEqual(teamsFor(3, 3), [[0], [1], [2]]);
    assert.deepEqual(teamsFor(1, 3), [[0, 1, 2]]);
    assert.deepEqual(teamsFor(2, 7), [[0, 1, 2], [3, 4, 5]]);
    assert.deepEqual(teamsFor(1, 15), [[0, 1, 2, 3, 4, 5, 6, 7]]);
  });
});
