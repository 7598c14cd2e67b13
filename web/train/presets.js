// Presets for the comparisons a learner should make first: one per positional encoding with
// everything else as the default run (2 layers, dModel 32, 2 heads, no MLP, 16 pairs of 32
// keys and 32 values, batch 64, 1,400 steps), the default with a bidirectional context, and a
// quick run that learns in seconds. A preset sets every setting of a run; the number of seeds
// and what the charts show stay as they are.
import { DEFAULTS, RUN_FIELDS } from './state.js';

const QUICK = {
  pairs: 4, keys: 8, values: 8, dModel: 16, steps: 300, batch: 32, every: 50, sequences: 512, evaluateAt: [4, 6, 8],
};

export const PRESETS = [
  { id: 'rope', label: 'RoPE', settings: { positional: 'rope' } },
  { id: 'alibi', label: 'ALiBi', settings: { positional: 'alibi' } },
  { id: 'none', label: 'No positional encoding', settings: { positional: 'none' } },
  { id: 'learned', label: 'Learned positions', settings: { positional: 'learned' } },
  { id: 'sinusoidal', label: 'Sinusoidal', settings: { positional: 'sinusoidal' } },
  { id: 'bidirectional', label: 'RoPE, bidirectional context', settings: { positional: 'rope', context: 'prefix' } },
  { id: 'quick', label: 'Quick: 4 pairs of 8, 300 steps', settings: QUICK },
];

/** The settings of a run the preset describes: the defaults, then the preset's own. */
export function presetRun(preset) {
  const run = Object.fromEntries(RUN_FIELDS.filter((name) => name !== 'seeds').map((name) => [name, structuredClone(DEFAULTS[name])]));
  return { ...run, ...structuredClone(preset.settings) };
}
