// One run trained by a team of workers at once (README "One run on several workers"). Each
// worker holds a replica of the run's trainer; at every step each computes its range of the
// step's gradient shards (as blocks, each one summed gradient), sends them to the others
// through MessagePorts, and applies all of them. The core fixes the shards and the order of
// their sum (core/include/attn/train/shard_sum.hpp), so the replicas take the same steps, to
// the bit, as one trainer alone. At a checkpoint each counts the right answers of its range of
// the held-out set's chunks, and they add their counts up. The first replica (rank 0) decides
// when a chunk of steps ends, and tells the others with its shards. A replica that fails tells
// the others; a message that cannot be read, closing, or the page's word on the control port
// abandons a replica, so that a team never waits for a worker that is gone. After training,
// each member measures its range of the final evaluation's chunks, and one joins their sums
// (evaluationShare, joinEvaluations).

/** Rank r's [first, end) of `count` things (shards, chunks) for a team of `size`, as even as they divide. */
export function shardRanges(count, size) {
  return Array.from({ length: size }, (_, r) => [Math.floor((r * count) / size), Math.floor(((r + 1) * count) / size)]);
}

/** The MessagePorts that join a team of `size` members: ports[r][s] is r's port to s (null where r = s). */
export function connectTeam(size) {
  const ports = Array.from({ length: size }, () => Array(size).fill(null));
  for (let r = 0; r < size; ++r) {
    for (let s = r + 1; s < size; ++s) {
      const { port1, port2 } = new MessageChannel();
      ports[r][s] = port1;
      ports[s][r] = port2;
    }
  }
  return ports;
}

/**
 * A team member's share of a trained model's final measure (evaluation: {task, lengths,
 * sequences, context}, as the workers' evaluate takes it): at each number of pairs in lengths,
 * the sums of its rank's range of the held-out set's chunks. joinEvaluations makes the
 * evaluations from every member's, to the bits of one worker's evaluateRetrieval.
 */
export function evaluationShare(engine, model, { task, lengths, sequences, context }, { rank, size }) {
  return lengths.map((pairs) => {
    const set = { task, pairs, sequences, context };
    const [first, end] = shardRanges(engine.retrievalEvaluationChunks(model, set), size)[rank];
    return first < end ? engine.evaluateRetrievalChunks(model, { ...set, first, end }) : [];
  });
}

/** The evaluations at each length from every member's chunks there (chunks[e]: all of them at lengths[e], any order). */
export function joinEvaluations(engine, model, { task, lengths, sequences, context }, chunks) {
  return lengths.map((pairs, e) => engine.joinRetrievalEvaluation(model, { task, pairs, sequences, context }, chunks[e]));
}

/**
 * A replica of one run: `trainer` (engine.retrievalTrainer, made from the same options by every
 * member), its `rank` (0 leads), `peers` (by rank, a MessagePort to that member; null at its own
 * rank) and `control` (a MessagePort on which a message {reason} abandons it). Returns
 * {advance(budgetMs, until), close()}: advance trains until the leader's chunk of about budgetMs
 * ends, step `until` (by default none), a checkpoint (returned in an array) or the end of the run, and rejects when a member fails
 * or the replica is abandoned or closed.
 */
export function createReplica(trainer, { rank, peers, control }) {
  const size = peers.length;
  if (size > trainer.shards) throw new Error(`a team has at most ${trainer.shards} members (the step's shards), got ${size}`);
  const inboxes = peers.map(() => []);  // what each member sent, in order
  let wake = null;                      // the pending receive's resolve
  let abandoned = null;                 // the Error that ends the replica, once it is abandoned

  const arrived = () => {
    wake?.();
    wake = null;
  };
  const abandon = (reason) => {
    abandoned ??= new Error(reason);
    arrived();
  };
  peers.forEach((port, r) => {
    port?.addEventListener('message', ({ data }) => {
      inboxes[r].push(data);
      arrived();
    });
    port?.addEventListener('messageerror', () => abandon(`a message from worker ${r + 1} of this run could not be read`));
    port?.start();
  });
  control.addEventListener('message', ({ data }) => abandon(data.reason));
  control.start();

  // The next message of member r, which must be of `kind` for `step` (messages of a port
  // arrive in the order they were sent).
  async function receive(r, kind, step) {
    for (;;) {
      if (abandoned) throw abandoned;
      if (inboxes[r].length > 0) break;
      await new Promise((resolve) => { wake = resolve; });
    }
    const message = inboxes[r].shift();
    if (message.error !== undefined) throw new Error(`worker ${r + 1} of this run's ${size} failed: ${message.error}`);
    if (message.kind !== kind || message.step !== step) {
      throw new Error(`worker ${r + 1} of this run sent ${message.kind} of step ${message.step + 1} when ${kind} of step ${step + 1} were due`);
    }
    return message;
  }

  // Every member's message of `kind` for `step`, ours (`own`) sent first: by rank.
  async function exchange(kind, step, own) {
    for (const port of peers) port?.postMessage({ kind, step, ...own });
    const messages = [];
    for (let r = 0; r < size; ++r) messages.push(r === rank ? own : await receive(r, kind, step));
    return messages;
  }

  const [first, end] = shardRanges(trainer.shards, size)[rank];

  // Every member's count of right answers at the checkpoint of `step`, added up.
  async function countAnswers(step) {
    const [from, to] = shardRanges(trainer.evaluationChunks, size)[rank];
    const counts = (await exchange('answers', step, { correct: from < to ? trainer.correctAnswers(from, to) : null }))
      .map(({ correct }) => correct).filter((correct) => correct !== null);
    return Array.from(counts[0], (_, i) => counts.reduce((sum, count) => sum + count[i], 0));
  }

  async function advance(budgetMs, until = Infinity) {
    const started = performance.now();
    try {
      for (;;) {
        if (abandoned) throw abandoned;
        const step = trainer.step;
        const blocks = trainer.computeShards(first, end);
        const due = performance.now() - started >= budgetMs || step + 1 >= until;
        const parts = await exchange('shards', step, { blocks, stop: rank === 0 && due });
        if (trainer.applyShards(parts.flatMap((part) => part.blocks))) return [trainer.checkpoint(await countAnswers(step))];
        if (trainer.finished || parts[0].stop) return [];
      }
    } catch (error) {
      for (const port of peers) port?.postMessage({ error: error.message });
      throw error;
    }
  }

  return {
    advance,
    close() {
      abandon('this replica was closed');
      for (const port of peers) port?.close();
      control.close();
    },
  };
}
