// The Train page's groups' one-line summaries (web/train/option-groups.js), which a folded group
// shows on a narrow screen, for the settings of a link and of the presets.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupSummaries } from '../../web/train/option-groups.js';
import { PRESETS, presetRun } from '../../web/train/presets.js';
import { defaultSettings, parseHash } from '../../web/train/state.js';

const summariesOf = (hash) => groupSummaries(parseHash(hash).settings);

describe('the Train page\'s groups\' summaries', () => {
  test('the defaults: the task, the model, the training and the evaluation of the default run', () => {
    assert.deepEqual(summariesOf(''), {
      task: '16 pairs · 32 keys · 32 values · uniform',
      model: '2 layers, dModel 32, 2 heads · ALiBi · causal',
      training: '1,400 steps × 64 · lr 0.01 · seed 0',
      evaluation: 'every 100 · 2,048 held out · at 16, 24, 32',
    });
  });

  test('the quick preset and the bidirectional one', () => {
    const quick = groupSummaries({ ...defaultSettings(), ...presetRun(PRESETS.find((p) => p.id === 'quick')) });
    assert.deepEqual(quick, {
      task: '4 pairs · 8 keys · 8 values · uniform',
      model: '2 layers, dModel 16, 2 heads · ALiBi · causal',
      training: '300 steps × 32 · lr 0.01 · seed 0',
      evaluation: 'every 50 · 512 held out · at 4, 6, 8',
    });
    const bidirectional = groupSummaries({ ...defaultSettings(), ...presetRun(PRESETS.find((p) => p.id === 'bidirectional')) });
    assert.equal(bidirectional.model, '2 layers, dModel 32, 2 heads · ALiBi · bidirectional');
  });

  test('one of each in the singular; the answers near the ends', () => {
    const summaries = summariesOf('#pe=alibi&pairs=1&keys=1&values=1&answers=ends&layers=1&heads=1&evalAt=1');
    assert.equal(summaries.task, '1 pair · 1 key · 1 value · near the ends');
    assert.equal(summaries.model, '1 layer, dModel 32, 1 head · ALiBi · causal');
    assert.equal(summaries.evaluation, 'every 100 · 2,048 held out · at 1');
  });

  test('every positional encoding by the name the page gives it, an MLP with the sizes', () => {
    const names = ['alibi', 'rope', 'none', 'learned', 'sinusoidal'].map((pe) => summariesOf(`#pe=${pe}`).model.split(' · ')[1]);
    assert.deepEqual(names, ['ALiBi', 'RoPE', 'no positions', 'learned', 'sinusoidal']);
    assert.equal(summariesOf('#pe=rope&mlp=1&layers=4&dModel=64&heads=8').model, '4 layers, dModel 64, 8 heads, MLP · RoPE · causal');
  });

  test('the objectives only when the mix is not retrieval alone, a running span with its items', () => {
    assert.equal(summariesOf('#pe=alibi&retrieval=2').task, '16 pairs · 32 keys · 32 values · uniform', 'retrieval alone, weighted');
    assert.equal(summariesOf('#pe=alibi&span=0.5&spanItems=3').task,
      '16 pairs · 32 keys · 32 values · uniform · retrieval 1 + span 0.5 (3 items)');
    assert.equal(summariesOf('#pe=alibi&retrieval=0&recall=1').task, '16 pairs · 32 keys · 32 values · uniform · recall 1');
    assert.equal(summariesOf('#pe=alibi&retrieval=0').task, '16 pairs · 32 keys · 32 values · uniform · no objective');
  });

  test('the training: thousands grouped, the seeds side by side as their numbers', () => {
    assert.equal(summariesOf('#pe=alibi&steps=12000&batch=1024&lr=0.003&seed=7').training, '12,000 steps × 1,024 · lr 0.003 · seed 7');
    assert.equal(summariesOf('#pe=alibi&seed=5&seeds=3').training, '1,400 steps × 64 · lr 0.01 · seeds 5–7');
    assert.equal(summariesOf('#pe=alibi&every=1000&heldOut=16384&evalAt=8,64,128').evaluation, 'every 1,000 · 16,384 held out · at 8, 64, 128');
  });
});
