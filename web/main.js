import createAttention from './wasm/attention.mjs';

// "Your journey starts with one step", 3-d inputs of the tutorial.
const JOURNEY = [
  [0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
  [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55],
];

const status = document.getElementById('status');
try {
  const engine = await createAttention();
  const { context } = engine.walkthrough(JOURNEY, { query: 1 });
  document.getElementById('context').textContent = `[${Array.from(context, (x) => x.toFixed(4)).join(', ')}]`;
  status.textContent = `Engine ${engine.version} ready.`;
  document.documentElement.dataset.engine = 'ready';
} catch (error) {
  status.textContent = `The engine failed to load: ${error.message}`;
  document.documentElement.dataset.engine = 'failed';
}
