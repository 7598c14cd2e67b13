// Presets for the comparisons a learner should make first: one per positional encoding with
// everything else as the default run (ALiBi, 2 layers, dModel 32, 2 heads, no MLP, 16 pairs of
// 32 keys and 32 values, batch 64, 1,400 steps), the default with a bidirectional context, and
// a quick run that learns in seconds. ALiBi comes first: it is the default, the run where the
// middle gets lost: it was chosen as the default because it shows the U. A preset sets every
// setting of a run; the number of seeds and what the charts show stay as they are. `note`, on
// its button: the presets that stay near chance in their 1,400 steps (over seeds 0–2, held-out
// accuracy 11% with learned positions, 8% sinusoidal, 11% ALiBi bidirectional, where chance is
// 3.1%; README "What it finds"), so that nobody reads their curves as a finding.
import { DEFAULTS, RUN_FIELDS } from './state.js';

const SLOW = 'near chance';

const QUICK = {
  pairs: 4, keys: 8, values: 8, dModel: 16, steps: 300, batch: 32, every: 50, sequences: 512, evaluateAt: [4, 6, 8],
};

export const PRESETS = [
  { id: 'alibi', label: 'ALiBi', settings: { positional: 'alibi' } },
  { id: 'rope', label: 'RoPE', settings: { positional: 'rope' } },
  { id: 'none', label: 'No positional encoding', settings: { positional: 'none' } },
  { id: 'learned', label: 'Learned positions', settings: { positional: 'learned' }, note: SLOW },
  { id: 'sinusoidal', label: 'Sinusoidal', settings: { positional: 'sinusoidal' }, note: SLOW },
  { id: 'bidirectional', label: 'ALiBi, bidirectional context', settings: { positional: 'alibi', context: 'prefix' }, note: SLOW },
  { id: 'quick', label: 'Quick: 4 pairs of 8, 300 steps', settings: QUICK },
];

// The settings a preset sets: every setting of a run but the number of seeds.
const PRESET_FIELDS = RUN_FIELDS.filter((name) => name !== 'seeds');

/** The settings of a run the preset describes: the defaults, then the preset's own. */
export function presetRun(preset) {
  const run = Object.fromEntries(PRESET_FIELDS.map((name) => [name, structuredClone(DEFAULTS[name])]));
  return { ...run, ...structuredClone(preset.settings) };
}

/** Whether `settings` are the preset's run (the seeds and what the charts show aside). */
export function isPresetRun(preset, settings) {
  const run = presetRun(preset);
  return PRESET_FIELDS.every((name) => JSON.stringify(settings[name]) === JSON.stringify(run[name]));
}
