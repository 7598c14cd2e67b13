// One run trained by a team of workers at once (README "One run on several workers"). Each
// worker holds a replica of the run's trainer; at every step each computes its range of the
// step's gradient shards, sends them to the others through MessagePorts, and applies all of
// them. The core fixes the shards and the order of their sum (attn/train/trainer.hpp), so the
// replicas take the same steps, to the bit, as one trainer alone. At a checkpoint each counts
// the right answers of its range of the held-out set's chunks, and they add their counts up.
// The first replica (rank 0) decides when a chunk of steps ends, and tells the others with
// its shards. A replica that
// fails tells the others, and the page can abandon a replica through its control port, so
// that a team never waits for a worker that is gone.

/** Rank r's shards of `shards`, for a team of `size`: [first, end), as even as they divide. */
export function shardRanges(shards, size) {
  return Array.from({ length: size }, (_, r) => [Math.floor((r * shards) / size), Math.floor(((r + 1) * shards) / size)]);
}

/**
 * A replica of one run: `trainer` (engine.retrievalTrainer, made from the same options by every
 * member), its `rank`, `ranges` (each rank's [first, end) of the shards), `peers` (by rank, a
 * MessagePort to that member; null at its own rank) and `control` (a MessagePort on which
 * a message {reason} abandons it). Returns {advance(budgetMs), close()}: advance trains until
 * the leader's chunk of about budgetMs ends, a checkpoint (returned) or the end of the run,
 * and rejects when a member fails or the replica is abandoned.
 */
export function createReplica(trainer, { rank, ranges, peers, control }) {
  if (ranges.length !== peers.length || ranges.at(-1)[1] !== trainer.shards) {
    throw new Error(`a team's ranges must cover the trainer's ${trainer.shards} shards, got ${JSON.stringify(ranges)}`);
  }
  const inboxes = peers.map(() => []);  // what each member sent, in order
  let wake = null;                      // the pending receive's resolve
  let abandoned = null;                 // the Error that ends the replica, once it is abandoned

  const arrived = () => {
    wake?.();
    wake = null;
  };
  peers.forEach((port, r) => {
    port?.addEventListener('message', ({ data }) => {
      inboxes[r].push(data);
      arrived();
    });
    port?.start();
  });
  control.addEventListener('message', ({ data }) => {
    abandoned = new Error(data.reason);
    arrived();
  });
  control.start();

  // The next message of member r, which must be of `kind` for `step` (messages of a port
  // arrive in the order they were sent).
  async function receive(r, kind, step) {
    while (inboxes[r].length === 0) {
      if (abandoned) throw abandoned;
      await new Promise((resolve) => { wake = resolve; });
    }
    const message = inboxes[r].shift();
    if (message.error !== undefined) throw new Error(`worker ${r + 1} of this run's ${peers.length} failed: ${message.error}`);
    if (message.kind !== kind || message.step !== step) {
      throw new Error(`worker ${r + 1} of this run sent ${message.kind} of step ${message.step + 1} when ${kind} of step ${step + 1} were due`);
    }
    return message;
  }

  // Every member's count of right answers at the checkpoint of `step`, added up.
  async function countAnswers(step) {
    const [from, to] = shardRanges(trainer.evaluationChunks, peers.length)[rank];
    const own = from < to ? trainer.correctAnswers(from, to) : null;
    for (const port of peers) port?.postMessage({ kind: 'answers', step, correct: own });
    const counts = [own];
    for (let r = 0; r < peers.length; ++r) {
      if (r !== rank) counts.push((await receive(r, 'answers', step)).correct);
    }
    const given = counts.filter((count) => count !== null);
    return given[0].map((_, i) => given.reduce((sum, count) => sum + count[i], 0));
  }

  const [first, end] = ranges[rank];
  const P = trainer.parameterCount;
  const gradients = new Float32Array(trainer.shards * P);  // every shard's, shard-major
  const losses = new Float64Array(trainer.shards);

  async function advance(budgetMs) {
    const started = performance.now();
    try {
      for (;;) {
        if (abandoned) throw abandoned;
        const step = trainer.step;
        const own = trainer.computeShards(first, end);
        let stop = rank === 0 && performance.now() - started >= budgetMs;
        for (const port of peers) port?.postMessage({ kind: 'shards', step, first, gradients: own.gradients, losses: own.losses, stop });
        gradients.set(own.gradients, first * P);
        losses.set(own.losses, first);
        for (let r = 0; r < peers.length; ++r) {
          if (r === rank) continue;
          const part = await receive(r, 'shards', step);
          gradients.set(part.gradients, part.first * P);
          losses.set(part.losses, part.first);
          if (r === 0) stop = part.stop;
        }
        if (trainer.applyShards(gradients, losses)) return [trainer.checkpoint(await countAnswers(step))];
        if (trainer.finished || stop) return [];
      }
    } catch (error) {
      for (const port of peers) port?.postMessage({ error: error.message });
      throw error;
    }
  }

  return {
    advance,
    close() {
      for (const port of peers) port?.close();
      control.close();
    },
  };
}
