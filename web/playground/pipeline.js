// The compute pipeline: the state → tokens and vectors (input/vectors.js) → attention in the
// engine worker → the pieces the views draw (the heatmap's pooled blocks, the lines view's
// window, the profiles), then the step-by-step walk-through and the memory costs. Each stage
// runs again only when what it depends on changed (stage.js), so that selecting a query does
// not pool the matrix again, and a newer update makes older, still-running ones stop at their
// next step.
import { formatCount, formatNumber } from '../shared/format.js';
import { Superseded } from '../shared/worker/client.js';
import { headsProblem, kvHeadsProblem, slopesProblem } from './checks.js';
import { createStage } from './stage.js';
import { PROJECTION_FIELDS, attentionOptions, groupedKvHeads, shownHeads, shownRegion } from './state.js';

const ELAPSED_TICK_MS = 100;
const MS_PER_SECOND = 1000;
const SINGLE_MAX_CELLS = 512;        // cells per side of one large panel; longer inputs come pooled
const MULTIPLE_MAX_CELLS = 256;      // per side of each small multiple
const PROFILE_POINTS = 512;
const LINES_MAX_TOKENS = 40;
const STEPS_MAX_ROWS = 24;

/**
 * The page's update: update() brings every view up to date with `state`. client: the engine
 * worker; vectors: input/vectors.js; views: views/attention-views.js; status: the progress
 * line; onInput(input) shows a new input (tokens, table); onFit(n) fits the controls to n
 * tokens before the engine is asked.
 */
export function createPipeline({ client, state, vectors, views, status, onInput, onFit }) {
  const computeStage = createStage();
  const blocksStage = createStage();
  const linesStage = createStage();
  const profilesStage = createStage();
  const stepsStage = createStage();
  const costStage = createStage();
  let updates = 0;  // generation of the latest update()

  function compute(input) {
    const n = input.tokens.length;
    const key = JSON.stringify([input.key, PROJECTION_FIELDS.map((field) => state[field]), attentionOptions(state)]);
    return computeStage(key, async () => {
      const started = performance.now();
      const label = `${formatCount(n)} × ${formatCount(n)}, ${state.heads} head${state.heads === 1 ? '' : 's'}`;
      let phase = 'starting';
      const tick = () => status.progress(`Computing ${label}: ${phase}… ${((performance.now() - started) / MS_PER_SECOND).toFixed(1)} s`);
      tick();
      const timer = setInterval(tick, ELAPSED_TICK_MS);
      try {
        const payload = {
          x: input.x,
          random: { seed: state.randomSeed, rows: n, dims: state.randomDims },
          trainable: { kind: state.trainable, seed: state.torchSeed, dOut: state.dOut, heads: state.heads, kvHeads: groupedKvHeads(state) },
          options: attentionOptions(state),
        };
        const { value, milliseconds } = await client.request('compute', payload, { onProgress: (next) => { phase = next; } });
        return { ...value, workerMs: milliseconds, receivedAt: performance.now(), key, label };
      } finally {
        clearInterval(timer);
      }
    });
  }

  // The pieces of the result the views draw, each asked for again only when what it depends on changed.
  async function fetchView(computed) {
    const heads = shownHeads(state);
    const area = shownRegion(state, computed.n);
    const linesCount = Math.min(computed.n, LINES_MAX_TOKENS);
    const linesStart = Math.min(area.row0, computed.n - linesCount);
    const pooling = state.pooling;
    const query = state.query;
    const started = performance.now();
    const timed = (answer) => ({ ...answer.value, workerMs: answer.milliseconds, receivedAt: performance.now() });
    const [blocks, lines, profiles] = await Promise.all([
      blocksStage(JSON.stringify([computed.key, heads, area, pooling]), () => client.request('blocks', {
        heads, ...area, pooling, maxCells: heads.length > 1 ? MULTIPLE_MAX_CELLS : SINGLE_MAX_CELLS,
      }).then(timed)),
      linesStage(JSON.stringify([computed.key, heads, linesStart, linesCount]), () => client.request('blocks', {
        heads, row0: linesStart, col0: linesStart, size: linesCount, maxCells: linesCount, pooling,
      }, { lane: 'lines' }).then(timed)),
      profilesStage(JSON.stringify([computed.key, heads, area.col0, area.size, pooling, query]), () => client.request('profiles', {
        heads, col0: area.col0, size: area.size, query, points: PROFILE_POINTS, pooling,
      }).then(timed)),
    ]);
    return {
      computed, heads, region: area, blocks, profiles, lines: { start: linesStart, count: linesCount, panels: lines.panels },
      milliseconds: performance.now() - started,
    };
  }

  function steps(input) {
    const key = JSON.stringify([input.key, state.query, state.stepScale]);
    return stepsStage(key, () => client.request('walkthrough', { query: state.query, scale: state.stepScale, maxRows: STEPS_MAX_ROWS })
      .then(({ value }) => value));
  }

  function cost(n) {
    const key = JSON.stringify([state.heads, n]);
    return costStage(key, () => client.request('memory', { heads: state.heads, n }).then(({ value }) => value));
  }

  async function update() {
    const generation = ++updates;
    const current = () => generation === updates;
    const started = performance.now();
    try {
      if (await vectors.embed(current)) onInput(vectors.input());
      if (!current()) return;
      const input = vectors.input();
      const n = input.tokens.length;
      if (n === 0) {
        views.clear();
        status.done('Type a sentence to see its attention.');
        return;
      }
      onFit(n);
      const problem = slopesProblem(state) ?? headsProblem(state, input) ?? kvHeadsProblem(state);
      if (problem) throw new Error(problem);
      const costs = cost(n);
      const computed = await compute(input);
      if (!current()) return;
      views.showWasmBytes(computed.wasmBytes);
      const fetched = await fetchView(computed);
      if (!current()) return;
      const drawMs = views.draw(fetched, input.labels);
      const timing = `engine ${formatNumber(computed.engineMs, 0)} ms, view ${formatNumber(fetched.milliseconds, 0)} ms, ` +
        `drawing ${formatNumber(drawMs, 0)} ms`;
      status.done(`${computed.label} (${timing}).`);
      views.recordTiming(started, { computed, fetched, drawMs });
      const walk = await steps(input);
      if (!current()) return;
      views.showSteps(walk, input.labels);
      const { scores, kvCache } = await costs;
      if (!current()) return;
      views.showCost(scores, n);
      views.showKvCache(kvCache);
    } catch (error) {
      if (error instanceof Superseded || !current()) return;
      views.markStale();
      status.done(error.message, true);
    }
  }

  return { update };
}
