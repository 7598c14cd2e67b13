// The attention graph that onnxruntime-web runs in the peers benchmark, written as ONNX
// protobuf bytes by a minimal encoder (the few messages and fields of onnx.proto it needs, by
// their field numbers there), so that no ONNX tooling is needed to build it.
//
// Letters: n queries and keys, H heads, d one head's width; q, k and v are n×(H·d), heads
// side by side in column blocks, as the engine takes them.
//
// The graph (opset 17, plain ONNX operators), for one head:
//   q·(1/√d) → MatMul with Transpose(k) → [+ mask] → Softmax over keys → MatMul with v
// and for H > 1 each input is first reshaped to n×H×d and transposed to H×n×d (k to H×d×n),
// the products are batched over heads, and the context goes back to n×(H·d). The causal mask
// is an n×n initializer (causal_mask.mjs) added to the scores.
import { causalMask } from './causal_mask.mjs';

const IR_VERSION = 8;      // the IR version that goes with opset 17
const OPSET_VERSION = 17;
const FLOAT = 1;           // TensorProto.DataType
const INT64 = 7;
const ATTRIBUTE_INT = 2;   // AttributeProto.AttributeType
const ATTRIBUTE_INTS = 7;

// ---- protobuf wire format ----------------------------------------------------------------
// A message is a list of encoded fields (Uint8Arrays) that `message` joins.

const VARINT = 0;
const LENGTH_DELIMITED = 2;
const text = new TextEncoder();

// A varint: 7 bits a byte, low bits first; negative int64 values as their 64-bit two's complement.
function varint(value) {
  let rest = BigInt.asUintN(64, BigInt(value));
  const bytes = [];
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return Uint8Array.from(bytes);
}

const key = (field, wireType) => varint((field << 3) | wireType);

function concat(parts) {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const message = (fields) => concat(fields.flat());
const intField = (field, value) => [key(field, VARINT), varint(value)];
const bytesField = (field, bytes) => [key(field, LENGTH_DELIMITED), varint(bytes.length), bytes];
const stringField = (field, value) => bytesField(field, text.encode(value));
const messageField = (field, fields) => bytesField(field, message(fields));

// ---- onnx.proto messages -----------------------------------------------------------------

// TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian values).
function tensor(name, dims, dataType, values) {
  const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  return [...dims.map((dim) => intField(1, dim)), intField(2, dataType), stringField(8, name), bytesField(9, raw)];
}

// ValueInfoProto {name 1, type 2: TypeProto {tensor_type 1: {elem_type 1, shape 2: {dim 1: {dim_value 1}}}}}.
function floatValue(name, dims) {
  const shape = dims.map((dim) => messageField(1, [intField(1, dim)]));
  return [stringField(1, name), messageField(2, [messageField(1, [intField(1, FLOAT), messageField(2, shape)])])];
}

// AttributeProto: name 1, i 3, ints 8, type 20.
const intAttribute = (name, value) => [stringField(1, name), intField(3, value), intField(20, ATTRIBUTE_INT)];
const intsAttribute = (name, values) =>
  [stringField(1, name), ...values.map((value) => intField(8, value)), intField(20, ATTRIBUTE_INTS)];

// NodeProto: input 1, output 2, op_type 4, attribute 5.
const node = (opType, inputs, output, attributes = []) => [
  ...inputs.map((input) => stringField(1, input)), stringField(2, output), stringField(4, opType),
  ...attributes.map((attribute) => messageField(5, attribute)),
];

// ModelProto {ir_version 1, producer_name 2, graph 7: GraphProto {node 1, name 2, initializer 5,
// input 11, output 12}, opset_import 8: {domain 1, version 2}}.
function model({ nodes, initializers, inputs, outputs }) {
  const graph = [
    ...nodes.map((n) => messageField(1, n)), stringField(2, 'attention'),
    ...initializers.map((t) => messageField(5, t)),
    ...inputs.map((v) => messageField(11, v)), ...outputs.map((v) => messageField(12, v)),
  ];
  return message([
    intField(1, IR_VERSION), stringField(2, 'attention-playground bench'), messageField(7, graph),
    messageField(8, [stringField(1, ''), intField(2, OPSET_VERSION)]),
  ]);
}

// ---- the attention graph -----------------------------------------------------------------

// Uint8Array: an ONNX model with inputs q, k, v (n×(H·d), float) and output context (n×(H·d)).
export function attentionGraph({ n, heads, d, causal }) {
  const width = heads * d;
  const nodes = [];
  const initializers = [tensor('scale', [], FLOAT, Float32Array.of(1 / Math.sqrt(d)))];
  let [q, k, v] = ['q', 'k', 'v'];
  if (heads > 1) {
    initializers.push(tensor('split_heads', [3], INT64, BigInt64Array.of(BigInt(n), BigInt(heads), BigInt(d))));
    initializers.push(tensor('join_heads', [2], INT64, BigInt64Array.of(BigInt(n), BigInt(width))));
    for (const name of ['q', 'k', 'v']) nodes.push(node('Reshape', [name, 'split_heads'], `${name}_nhd`));
    nodes.push(node('Transpose', ['q_nhd'], 'q_heads', [intsAttribute('perm', [1, 0, 2])]));      // H×n×d
    nodes.push(node('Transpose', ['k_nhd'], 'k_transposed', [intsAttribute('perm', [1, 2, 0])])); // H×d×n
    nodes.push(node('Transpose', ['v_nhd'], 'v_heads', [intsAttribute('perm', [1, 0, 2])]));      // H×n×d
    [q, k, v] = ['q_heads', 'k_transposed', 'v_heads'];
  } else {
    nodes.push(node('Transpose', ['k'], 'k_transposed', [intsAttribute('perm', [1, 0])]));         // d×n
    k = 'k_transposed';
  }
  nodes.push(node('Mul', [q, 'scale'], 'q_scaled'));
  nodes.push(node('MatMul', ['q_scaled', k], 'scores'));                                          // (H×)n×n
  let scores = 'scores';
  if (causal) {
    initializers.push(tensor('mask', [n, n], FLOAT, causalMask(n)));
    nodes.push(node('Add', ['scores', 'mask'], 'masked_scores'));
    scores = 'masked_scores';
  }
  nodes.push(node('Softmax', [scores], 'weights', [intAttribute('axis', -1)]));
  if (heads > 1) {
    nodes.push(node('MatMul', ['weights', v], 'context_heads'));                                  // H×n×d
    nodes.push(node('Transpose', ['context_heads'], 'context_nhd', [intsAttribute('perm', [1, 0, 2])]));
    nodes.push(node('Reshape', ['context_nhd', 'join_heads'], 'context'));
  } else {
    nodes.push(node('MatMul', ['weights', v], 'context'));
  }
  return model({
    nodes, initializers,
    inputs: ['q', 'k', 'v'].map((name) => floatValue(name, [n, width])),
    outputs: [floatValue('context', [n, width])],
  });
}
