// engine.torchGenerator: PyTorch's CPU generator after torch.manual_seed(seed).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { assertArrayClose, assertMatrixClose, bytesOf } from './reference.mjs';

const engine = await createAttention();

// nn.Linear(in, out): weight ~ U(−1/√in, 1/√in) (kaiming_uniform_ with a = √5), bias the
// same bound; PyTorch turns each 24-bit uniform u of the stream into u·(to − from) + from.
function uniformToLinear(u, bound) {
  return u.map((x) => Math.fround(Math.fround(x * Math.fround(2 * bound)) - bound));
}

test('torch.rand after manual_seed matches PyTorch printouts (seeds 123, 0, 42)', () => {
  assertMatrixClose(engine.torchGenerator(123).rand(3, 2),
    [[0.2961, 0.5166], [0.2517, 0.6886], [0.0740, 0.8665]], { atol: 1e-4, label: 'seed 123' });
  assertMatrixClose(engine.torchGenerator(0).rand(2, 3),
    [[0.4963, 0.7682, 0.0885], [0.1320, 0.3074, 0.6341]], { atol: 1e-4, label: 'seed 0' });
  assertMatrixClose(engine.torchGenerator(42).rand(1, 5),
    [[0.8823, 0.9150, 0.3829, 0.9593, 0.3904]], { atol: 1e-4, label: 'seed 42' });
});

test('rand values lie in [0, 1) on a 24-bit grid, with the requested shape', () => {
  const m = engine.torchGenerator(7).rand(20, 50);
  assert.deepEqual([m.rows, m.cols, m.data.length], [20, 50, 1000]);
  assert.ok(m.data instanceof Float32Array);
  for (const x of m.data) {
    assert.ok(x >= 0 && x < 1, `${x} out of [0, 1)`);
    assert.ok(Number.isInteger(x * 2 ** 24), `${x} is not a multiple of 2^-24`);
  }
  assert.ok(new Set(m.data).size > 990, 'values should not repeat');
});

test('calls consume the stream in order: rand(2,3) then rand(1,4) equals rand(1,10)', () => {
  const g = engine.torchGenerator(123);
  assert.equal(g.seed, 123);
  assert.equal(g.draws, 0);
  const a = g.rand(2, 3);
  assert.equal(g.draws, 6);
  const b = g.rand(1, 4);
  assert.equal(g.draws, 10);
  const all = engine.torchGenerator(123).rand(1, 10);
  assert.deepEqual([...a.data, ...b.data], Array.from(all.data));
});

test('the same seed gives the same stream; generators are independent of each other', () => {
  const g = engine.torchGenerator(2024), h = engine.torchGenerator(2024);
  const g1 = g.rand(3, 3);
  engine.torchGenerator(2024).rand(100, 10);   // another generator's draws do not interfere
  const h1 = h.rand(3, 3);
  assert.ok(bytesOf(g1.data).equals(bytesOf(h1.data)));
  assert.ok(bytesOf(g.rand(2, 2).data).equals(bytesOf(h.rand(2, 2).data)));
  assert.notDeepEqual(Array.from(engine.torchGenerator(2025).rand(3, 3).data), Array.from(g1.data));
});

test('linear: weight is out×in from U(−1/√in, 1/√in), bias drawn after the weight', () => {
  const inF = 4, outF = 3;
  const { weight, bias } = engine.torchGenerator(11).linear(inF, outF);
  assert.deepEqual([weight.rows, weight.cols], [outF, inF]);
  assert.ok(bias instanceof Float32Array);
  assert.equal(bias.length, outF);
  const u = Array.from(engine.torchGenerator(11).rand(1, inF * outF + outF).data);
  const bound = 1 / Math.sqrt(inF);
  assertArrayClose(weight.data, uniformToLinear(u.slice(0, inF * outF), bound), { atol: 1e-6, label: 'weight' });
  assertArrayClose(bias, uniformToLinear(u.slice(inF * outF), bound), { atol: 1e-6, label: 'bias' });
  for (const x of [...weight.data, ...bias]) assert.ok(Math.abs(x) <= bound);
});

test('linear with bias false: bias is null and only the weight is drawn', () => {
  const g = engine.torchGenerator(5);
  const layer = g.linear(3, 2, false);
  assert.equal(layer.bias, null);
  assert.equal(g.draws, 6);
  const next = g.rand(1, 2);
  const u = Array.from(engine.torchGenerator(5).rand(1, 8).data);
  assertArrayClose(layer.weight.data, uniformToLinear(u.slice(0, 6), 1 / Math.sqrt(3)), { atol: 1e-6, label: 'weight' });
  assert.deepEqual(Array.from(next.data), u.slice(6));
});

test('rand then linear then rand continue one generator state', () => {
  const g = engine.torchGenerator(99);
  const first = g.rand(1, 3);
  const { weight, bias } = g.linear(5, 2);
  const last = g.rand(2, 1);
  assert.equal(g.draws, 3 + 10 + 2 + 2);
  const u = Array.from(engine.torchGenerator(99).rand(1, 17).data);
  assert.deepEqual(Array.from(first.data), u.slice(0, 3));
  assertArrayClose(weight.data, uniformToLinear(u.slice(3, 13), 1 / Math.sqrt(5)), { atol: 1e-6, label: 'weight' });
  assertArrayClose(bias, uniformToLinear(u.slice(13, 15), 1 / Math.sqrt(5)), { atol: 1e-6, label: 'bias' });
  assert.deepEqual(Array.from(last.data), u.slice(15));
});

test('three nn.Linear(3, 2, bias=False) from one generator (trainable_v2) take 6 draws each, in order', () => {
  // These weights reproduce the fixture's context in tutorial.test.mjs; here their shape
  // and order: three layers from one generator differ from one another.
  const g = engine.torchGenerator(789);
  const layers = [g.linear(3, 2, false), g.linear(3, 2, false), g.linear(3, 2, false)];
  assert.equal(g.draws, 18);
  assert.notDeepEqual(Array.from(layers[0].weight.data), Array.from(layers[1].weight.data));
  const again = engine.torchGenerator(789);
  again.linear(3, 2, false);
  assert.deepEqual(Array.from(again.linear(3, 2, false).weight.data), Array.from(layers[1].weight.data));
});
