// The lost-in-the-middle lab's engine thread. The lab runs two of these, one for the live
// curves and one for the slower experiments, so that sliders stay live while a grid is
// computed. Messages: shared/worker/client.js.
import { serveEngine } from '../shared/worker/server.js';

// Distances at which the RoPE decay bound is sampled: every distance up to this, then
// log-spaced (the chart's x axis is logarithmic).
const DENSE_DISTANCES = 64;
const LOG_SAMPLES = 160;

function ropeDistances(maxDistance) {
  const distances = new Set();
  for (let d = 0; d <= Math.min(DENSE_DISTANCES, maxDistance); ++d) distances.add(d);
  const ratio = Math.log(maxDistance / DENSE_DISTANCES) / LOG_SAMPLES;
  for (let k = 1; k <= LOG_SAMPLES && maxDistance > DENSE_DISTANCES; ++k) {
    distances.add(Math.min(maxDistance, Math.round(DENSE_DISTANCES * Math.exp(ratio * k))));
  }
  return [...distances].sort((a, b) => a - b);
}

const handlers = {
  // The position curve, and RoPE's decay bound for each base up to distance n, divided by
  // its value at distance 0.
  curves(engine, { model, measure, rope }) {
    const curve = engine.positionCurve({ ...model, measure });
    const distances = ropeDistances(model.n);
    const decay = rope.bases.map((base) => {
      const bound = engine.ropeDecay({ headWidth: rope.headWidth, base, maxDistance: model.n });
      return { base, distances, values: distances.map((d) => bound[d] / bound[0]) };
    });
    return { curve, decay };
  },
  needle(engine, { model, needle }) {
    return engine.needleSweep({ ...model, ...needle });
  },
  grid(engine, { model, needle, lengths }) {
    const { n, ...withoutLength } = model;
    return engine.needleGrid({ ...withoutLength, ...needle, lengths });
  },
  mitigation(engine, { model, needle, mitigation }) {
    return {
      before: engine.needleSweep({ ...model, ...needle }),
      after: engine.needleSweep({ ...model, ...needle, mitigation }),
    };
  },
};

serveEngine(handlers);
