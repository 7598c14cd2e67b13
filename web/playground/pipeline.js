// The compute pipeline: the state → tokens and vectors (input/vectors.js) → attention in the
// engine worker → the pieces the views draw (the heatmap's pooled blocks, the lines view's
// window, the profiles), then, when a setting A is pinned, A's attention and the comparison
// (A, B = the page's setting, B − A), in generation mode the decoding step and its cache, then
// the step-by-step walk-through and the memory costs. Each stage
// runs again only when what it depends on changed (stage.js), so that selecting a query does
// not pool the matrix again, and a newer update makes older, still-running ones stop at their
// next step.
import { formatCount, formatNumber } from '../shared/format.js';
import { Superseded } from '../shared/worker/client.js';
import { headsProblem, kvHeadsProblem, slopesProblem } from './checks.js';
import { createStage } from './stage.js';
import { fedRows, fitStep, generationRegion } from './generation.js';
import { PROJECTION_FIELDS, attentionOptions, shownHeads } from './state.js';
import { createVectors } from './input/vectors.js';

// A computation says it is under way (its line, and an animated bar) only once it has run this
// long: a recompute while typing takes 10–20 ms, and drawing the line and the bar then took
// 13 ms of the page's thread and its raster threads at the same moment, on the cores the
// engine's threads were computing on.
export const PROGRESS_DELAY_MS = 250;
const ELAPSED_TICK_MS = 100;
const MS_PER_SECOND = 1000;
const SINGLE_MAX_CELLS = 512;        // cells per side of one large panel; longer inputs come pooled
const MULTIPLE_MAX_CELLS = 256;      // per side of each small multiple (and of A, B and B − A)
const PROFILE_POINTS = 512;
export const LINES_MAX_TOKENS = 40;
const STEPS_MAX_ROWS = 24;

// Typing updates once the keys pause for twice what a typed update takes until it is drawn,
// within these bounds: a sentence (drawn in about 10 ms) follows the keys within 60 ms, a long
// text (75 ms at 512 tokens, a second at 4,096) waits 150–250 ms rather than compute what the
// next key changes again.
export const TYPING_PAUSE_MS = { least: 60, most: 250 };

// A typed update's engine threads are woken this long before its typing pause ends, and kept
// awake for WAKE_FOR_MS, until its computation comes (the page's work before it takes a few
// milliseconds): on the virtual machines measured a thread that has slept starts late and runs
// slowly for milliseconds (pool.wake).
export const WAKE_LEAD_MS = 20;
export const WAKE_FOR_MS = 100;

/** The typing pause after a typed update that took `milliseconds` until it was drawn. */
export function typingPauseFor(milliseconds) {
  return Math.min(TYPING_PAUSE_MS.most, Math.max(TYPING_PAUSE_MS.least, 2 * milliseconds));
}

/**
 * The page's update: update({typingPause}) brings every view up to date with `state`
 * (typingPause: the milliseconds typing waited for it, recorded with its timing). client: the
 * engine worker; vectors: input/vectors.js; views: views/attention-views.js; comparison:
 * views/compare.js; status: the progress line; onInput(input) shows a new input (tokens,
 * table), with its attention or its error; onFit(n) fits the controls to n tokens before the
 * engine is asked; onDrawn(ms, typingPause) hears how long an update took until its attention
 * was drawn, and the pause it followed (0: not typing). wake() wakes the engine's threads for an
 * update due within WAKE_LEAD_MS.
 */
export function createPipeline({ client, state, vectors, views, comparison, status, onInput, onFit, onDrawn }) {
  const pinned = {};  // the pinned setting A while the page compares (a copy of state.pinned)
  const pinnedVectors = createVectors({ client, state: pinned, status, own: false });
  const computeStage = createStage();
  let pinnedStage = createStage();
  let compareStage = createStage();
  let comparing = false;  // whether the worker keeps a pinned result
  const blocksStage = createStage();
  const linesStage = createStage();
  const profilesStage = createStage();
  const stepsStage = createStage();
  const decodeStage = createStage();
  const costStage = createStage();
  let updates = 0;  // generation of the latest update()
  let shownInputKey = null;  // the key of the input whose tokens and vectors the page shows
  let inputTimer = null;     // {key, id}: the timer that shows a newer input meanwhile

  // Attention of `settings` (the page's state, or with `pin` the pinned setting A) on `input`, in the worker.
  function compute(input, settings = state, pin = false) {
    const n = input.tokens.length;
    const key = JSON.stringify([input.key, PROJECTION_FIELDS.map((field) => settings[field]), attentionOptions(settings)]);
    return (pin ? pinnedStage : computeStage)(key, async () => {
      const started = performance.now();
      const label = `${pin ? 'A: ' : ''}${formatCount(n)} × ${formatCount(n)}, ${settings.heads} head${settings.heads === 1 ? '' : 's'}`;
      let phase = 'starting';
      const tick = () => status.progress(`Computing ${label}: ${phase}… ${((performance.now() - started) / MS_PER_SECOND).toFixed(1)} s`);
      let timer = null;
      const delay = setTimeout(() => {
        tick();
        timer = setInterval(tick, ELAPSED_TICK_MS);
      }, PROGRESS_DELAY_MS);
      try {
        const payload = {
          x: input.x,
          random: { seed: settings.randomSeed, rows: n, dims: settings.randomDims },
          trainable: { kind: settings.trainable, seed: settings.torchSeed, dOut: settings.dOut },
          options: attentionOptions(settings),
          pin,
        };
        const { value, milliseconds } = await client.request('compute', payload, {
          onProgress: (next) => { phase = next; }, ...(pin ? { lane: 'pinned' } : {}),
        });
        return { ...value, workerMs: milliseconds, receivedAt: performance.now(), key, label };
      } finally {
        clearTimeout(delay);
        clearInterval(timer);
      }
    });
  }

  // A's attention, then A, B and B − A of the head on display (the first, when all are), or
  // the reason they cannot be compared. `computed`, `input`: B's.
  async function compare(computed, input, current) {
    Object.assign(pinned, state.pinned);
    await pinnedVectors.embed(current);
    if (!current()) return;
    const inputA = pinnedVectors.input();
    const n = input.tokens.length;
    const nA = inputA.tokens.length;
    if (nA !== n) {
      comparison.problem(`A has ${formatCount(nA)} token${nA === 1 ? '' : 's'} and B has ${formatCount(n)}: B − A subtracts the ` +
        'attention of the same query and key positions, so both need as many tokens. Change the text back to compare, or ' +
        'Unpin A and pin this text.');
      return;
    }
    const problem = slopesProblem(pinned) ?? headsProblem(pinned, inputA) ?? kvHeadsProblem(pinned);
    if (problem) {
      comparison.problem(`A's settings do not work together: ${problem}`);
      return;
    }
    const computedA = await compute(inputA, pinned, true);
    comparing = true;
    if (!current()) return;
    const head = shownHeads(state)[0];
    if (head >= computedA.heads) {
      comparison.problem(`Head ${head + 1} is shown, but A has ${computedA.heads} head${computedA.heads === 1 ? '' : 's'}: ` +
        'show a head A has to compare.');
      return;
    }
    const area = generationRegion(state, n);
    // only the rows fed so far exist, in B (and in A, when A was pinned generating)
    const rows = Math.min(fedRows(pinned, area, n), fedRows(state, area, n));
    const compared = await compareStage(JSON.stringify([computedA.key, computed.key, head, area, state.pooling]),
      () => client.request('compare', { head, ...area, pooling: state.pooling, maxCells: MULTIPLE_MAX_CELLS }).then(({ value }) => value));
    if (!current()) return;
    comparison.draw({
      compared, region: area, rows, n, labels: input.labels, labelsA: inputA.labels, pinned: { ...pinned }, settings: { ...state },
      heads: [computedA.heads, computed.heads],
    });
  }

  // Unpinned: the worker lets A's result go, and so do the stages.
  function stopComparing() {
    if (!comparing) return;
    comparing = false;
    pinnedStage = createStage();
    compareStage = createStage();
    client.request('unpin', {}).catch((error) => {
      if (!(error instanceof Superseded)) status.done(error.message, true);
    });
  }

  // The pieces of the result the views draw, each asked for again only when what it depends on changed.
  async function fetchView(computed) {
    const heads = shownHeads(state);
    const step = fitStep(state.generationStep, computed.n);
    const area = generationRegion(state, computed.n);
    const rows = fedRows(state, area, computed.n);
    const linesCount = Math.min(computed.n, LINES_MAX_TOKENS);
    const linesStart = Math.min(area.row0, computed.n - linesCount);
    // generation draws the lines of the queries fed so far (linesStart ≤ area.row0 ≤ step)
    const linesRows = state.generate ? Math.min(linesCount, step + 1 - linesStart) : linesCount;
    const pooling = state.pooling;
    const query = state.query;
    const queries = state.generate ? step + 1 : computed.n;  // the queries the keys' mean is over
    const started = performance.now();
    const timed = (answer) => ({ ...answer.value, workerMs: answer.milliseconds, receivedAt: performance.now() });
    const [blocks, lines, profiles] = await Promise.all([
      blocksStage(JSON.stringify([computed.key, heads, area, rows, pooling]), () => client.request('blocks', {
        heads, ...area, rows, pooling, maxCells: heads.length > 1 ? MULTIPLE_MAX_CELLS : SINGLE_MAX_CELLS,
      }).then(timed)),
      linesStage(JSON.stringify([computed.key, heads, linesStart, linesCount, linesRows]), () => client.request('blocks', {
        heads, row0: linesStart, col0: linesStart, size: linesCount, rows: linesRows, maxCells: linesCount, pooling,
      }, { lane: 'lines' }).then(timed)),
      profilesStage(JSON.stringify([computed.key, heads, area.col0, area.size, pooling, query, queries]), () => client.request('profiles', {
        heads, col0: area.col0, size: area.size, query, points: PROFILE_POINTS, pooling, queries,
      }).then(timed)),
    ]);
    return {
      computed, heads, region: area, rows, blocks, profiles, lines: { start: linesStart, count: linesCount, rows: linesRows, panels: lines.panels },
      milliseconds: performance.now() - started,
    };
  }

  // The walk-through of the selected query: the matrix's (its head on display, or the
  // first when all show) or the tutorial's raw version.
  function steps(input, computed) {
    const source = state.stepSource;
    const head = state.headView === 'all' ? 0 : state.headView - 1;
    const key = JSON.stringify(source === 'matrix'
      ? [source, computed.key, state.query, head]
      : [source, input.key, state.query, state.stepScale]);
    return stepsStage(key, () => client.request('walkthrough', {
      source, query: state.query, head, scale: state.stepScale, maxRows: STEPS_MAX_ROWS,
    }).then(({ value }) => value));
  }

  // Generation's current step: the row computed from the cache, the cache and its bytes.
  function decode(computed) {
    const step = fitStep(state.generationStep, computed.n);
    const heads = shownHeads(state);
    return decodeStage(JSON.stringify([computed.key, step, heads]), () => client.request('decode', { step, heads })
      .then(({ value }) => value));
  }

  // The cost tables' numbers, with a row for n tokens (null: none).
  function cost(n) {
    const key = JSON.stringify([state.heads, n]);
    return costStage(key, () => client.request('memory', { heads: state.heads, n }).then(({ value }) => value));
  }

  // Shows `input`'s tokens and vectors (null: none yet), unless the page shows them already.
  function showInput(input) {
    clearTimeout(inputTimer?.id);
    inputTimer = null;
    if (input === null || input.key === shownInputKey) return;
    shownInputKey = input.key;
    onInput(input);
  }

  // A new input's tokens and vectors appear with its attention, in the frame that draws it, or
  // PROGRESS_DELAY_MS after the input was made, whichever comes first, however many updates ask
  // for its attention meanwhile (settings changed while it computes): laid out and painted at
  // once, they took the page's thread (12 ms for 512 tokens) while the engine's threads computed.
  function showInputSoon(input) {
    if (input.key === shownInputKey || input.key === inputTimer?.key) return;
    clearTimeout(inputTimer?.id);
    inputTimer = { key: input.key, id: setTimeout(() => showInput(input), PROGRESS_DELAY_MS) };
  }

  async function update({ typingPause = 0 } = {}) {
    const generation = ++updates;
    const current = () => generation === updates;
    const started = performance.now();
    try {
      await vectors.embed(current);
      if (!current()) return;
      const input = vectors.input();
      showInputSoon(input);
      const n = input.tokens.length;
      if (n === 0) {
        showInput(input);
        views.clear();
        status.done('Type a sentence to see its attention.');
        // the cost tables stay, without a row for this input
        const { scores, kvCache } = await cost(null);
        if (!current()) return;
        views.showCost(scores, null);
        views.showKvCache(kvCache);
        return;
      }
      onFit(n);
      const problem = slopesProblem(state) ?? headsProblem(state, input) ?? kvHeadsProblem(state);
      if (problem) throw new Error(problem);
      const costs = cost(n);
      const computed = await compute(input);
      if (!current()) return;
      views.showWasmMemory(computed);
      const fetched = await fetchView(computed);
      if (!current()) return;
      showInput(input);
      const drawMs = views.draw(fetched, input.labels);
      const timing = `engine ${formatNumber(computed.engineMs, 0)} ms, view ${formatNumber(fetched.milliseconds, 0)} ms, ` +
        `drawing ${formatNumber(drawMs, 0)} ms`;
      const done = `${computed.label} (${timing}).`;
      status.done(done);
      onDrawn(views.recordTiming(started, { computed, fetched, drawMs, typingPause }), typingPause);
      if (state.pinned) {
        await compare(computed, input, current).catch((error) => {
          if (error instanceof Superseded || !current()) return;
          comparison.problem(`A could not be computed: ${error.message}`);
        });
        if (!current()) return;
        status.done(done);  // the line said what A's computation was doing
      } else stopComparing();
      if (state.generate) {
        const decoded = await decode(computed);
        if (!current()) return;
        views.showGeneration(decoded, input.labels);
      } else {
        views.hideGeneration();
      }
      const walk = await steps(input, computed);
      if (!current()) return;
      views.showSteps(walk, input.labels);
      const { scores, kvCache } = await costs;
      if (!current()) return;
      views.showCost(scores, n);
      views.showKvCache(kvCache);
    } catch (error) {
      if (error instanceof Superseded || !current()) return;
      showInput(vectors.input());
      views.markStale();
      comparison.markStale();
      status.done(error.message, true);
    }
  }

  // Wakes the engine's threads for a computation expected within WAKE_LEAD_MS. Nothing to wait
  // for: a newer wake replaces a waiting one, and a worker that failed says so to the update.
  function wake() {
    client.request('wake', { ms: WAKE_FOR_MS }).catch(() => {});
  }

  return { update, wake };
}
