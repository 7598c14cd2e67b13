// The lost-in-the-middle lab's engine thread. The lab runs two of these, one for the live
// curves and one for the slower experiments, so that sliders stay live while a grid is
// computed. Messages: shared/worker/client.js.
import { serveEngine } from '../shared/worker/server.js';
import { ropeCurves } from './rope-curves.js';

const handlers = {
  curves(engine, { model, measure }) {
    return { curve: engine.positionCurve({ ...model, measure }) };
  },
  // Chart 2: the model's RoPE weight and RoFormer's bounds up to a distance (rope-curves.js).
  rope(engine, options) {
    return ropeCurves(engine, options);
  },
  needle(engine, { model, needle }) {
    return engine.needleSweep({ ...model, ...needle });
  },
  grid(engine, { model, needle, lengths }) {
    const { n, ...withoutLength } = model;
    return engine.needleGrid({ ...withoutLength, ...needle, lengths });
  },
  // The sweep with the mitigation only: the page has the sweep without it (the 'needle' answer).
  mitigation(engine, { model, needle, mitigation }) {
    return engine.needleSweep({ ...model, ...needle, mitigation });
  },
};

serveEngine(handlers);
