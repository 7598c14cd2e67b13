// The playground's option groups' one-line summaries (web/playground/option-groups.js), which a
// folded group shows on a narrow screen, for the settings of a link.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupSummaries } from '../../web/playground/option-groups.js';
import { parseHash } from '../../web/playground/state.js';

const summariesOf = (hash) => groupSummaries(parseHash(hash).state);

describe('the option groups\' summaries', () => {
  test('the defaults: no weights, one head, no mask, no positions, scaled softmax', () => {
    assert.deepEqual(summariesOf(''), {
      weights: 'none: q, k, v are the vectors',
      heads: '1 head',
      mask: 'no mask · no positional encoding',
      scores: 'scaled by 1/√d · softmax',
    });
  });

  test('projections with their seed and d_out; grouped key/value heads and a head shown large', () => {
    const summaries = summariesOf('#tw=linear&ts=7&do=16&h=8&kv=2&hv=3');
    assert.equal(summaries.weights, 'nn.Linear · seed 7 · d_out 16');
    assert.equal(summaries.heads, '8 heads · 2 key/value heads · head 3 large');
    assert.equal(summariesOf('#tw=rand').weights, 'torch.rand · seed 123 · d_out 2');
  });

  test('key/value heads are named only when the engine is given fewer than the heads', () => {
    assert.equal(summariesOf('#h=8&kv=2').heads, '8 heads', 'without projections q = k = v: no grouping');
    assert.equal(summariesOf('#tw=linear&do=16&h=8&kv=8').heads, '8 heads');
    assert.equal(summariesOf('#tw=linear&do=16&h=2&kv=1').heads, '2 heads · 1 key/value head');
  });

  test('the mask: causal, a window with its sinks, as the engine is given them', () => {
    assert.equal(summariesOf('#c=1').mask, 'causal · no positional encoding');
    assert.equal(summariesOf('#c=1&w=8').mask, 'causal · window 8 · no positional encoding');
    assert.equal(summariesOf('#w=2048&sk=1').mask, 'window 2,048 + 1 sink · no positional encoding');
    assert.equal(summariesOf('#w=8&sk=4&c=1').mask, 'causal · window 8 + 4 sinks · no positional encoding');
    assert.equal(summariesOf('#gen=1').mask, 'causal · no positional encoding', 'generation step by step is causal');
  });

  test('the positional encodings, with RoPE\'s base and pairing and ALiBi\'s slopes', () => {
    assert.equal(summariesOf('#pe=sinusoidal').mask, 'no mask · sinusoidal positions');
    assert.equal(summariesOf('#pe=rope').mask, 'no mask · RoPE base 10000, interleaved');
    assert.equal(summariesOf('#pe=rope&rb=500000&rp=half').mask, 'no mask · RoPE base 500000, halves');
    assert.equal(summariesOf('#pe=alibi').mask, 'no mask · ALiBi, geometric slopes');
    assert.equal(summariesOf('#pe=alibi&as=0.5,0.25&h=2').mask, 'no mask · ALiBi slopes 0.5, 0.25');
  });

  test('scores and weights: the scaling and each normalisation', () => {
    assert.equal(summariesOf('#sc=0&nm=naive-softmax').scores, 'not scaled · naive softmax');
    assert.equal(summariesOf('#nm=sum').scores, 'scaled by 1/√d · sum-normalised');
  });
});
