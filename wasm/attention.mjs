// The attention engine's JavaScript API (see README "API"): the default export is the
// engine's async factory (engine.mjs), `const engine = await createAttention();` in browsers,
// workers and Node; createAttentionPool (pool.mjs) runs the engine on several workers.
export { default } from './engine.mjs';
export { createAttentionPool } from './pool.mjs';
