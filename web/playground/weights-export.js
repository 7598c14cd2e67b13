// The attention weights as files, built as text in chunks (the worker calls these, so a
// 4,096-token export never blocks the page):
//
// CSV: a header `head,query_index,query,<key tokens…>`, then one line per head and query
//   with that query's weights over every key; fields as shared/downloads.js quotes them.
// JSON: {format, tokens, settings, shape: [heads, n, m], heads: [{head, scores, weights}]},
//   with rows as arrays; the non-finite numbers JSON cannot hold (masked scores −Infinity,
//   naive-softmax overflow) are the strings "Infinity", "-Infinity" and "NaN".
// Numbers are the shortest decimals that read back to the same float32.
import { csvField, float32Text } from '../shared/downloads.js';

const JSON_FORMAT = 'attention-playground/weights@1';

/** CSV chunks; heads: [{head (1-based), weights: Float32Array n×m}], tokens: n = m strings. */
export function csvChunks({ tokens, heads }) {
  const n = tokens.length;
  const chunks = [`head,query_index,query,${tokens.map(csvField).join(',')}\r\n`];
  for (const { head, weights } of heads) {
    for (let i = 0; i < n; ++i) {
      const cells = new Array(n);
      for (let j = 0; j < n; ++j) cells[j] = float32Text(weights[i * n + j]);
      chunks.push(`${head},${i},${csvField(tokens[i])},${cells.join(',')}\r\n`);
    }
  }
  return chunks;
}

function jsonNumber(value) {
  return Number.isFinite(value) ? float32Text(value) : `"${value}"`;
}

function jsonRows(matrix, n, chunks) {
  for (let i = 0; i < n; ++i) {
    const cells = new Array(n);
    for (let j = 0; j < n; ++j) cells[j] = jsonNumber(matrix[i * n + j]);
    chunks.push(`${i === 0 ? '' : ','}\n[${cells.join(',')}]`);
  }
}

/** JSON chunks; heads: [{head, scores, weights}], settings: the options that produced them. */
export function jsonChunks({ tokens, heads, settings }) {
  const n = tokens.length;
  const chunks = [`{"format":${JSON.stringify(JSON_FORMAT)},"tokens":${JSON.stringify(tokens)},` +
    `"settings":${JSON.stringify(settings)},"shape":[${heads.length},${n},${n}],"heads":[`];
  heads.forEach(({ head, scores, weights }, h) => {
    chunks.push(`${h === 0 ? '' : ','}{"head":${head},"scores":[`);
    jsonRows(scores, n, chunks);
    chunks.push('],"weights":[');
    jsonRows(weights, n, chunks);
    chunks.push(']}');
  });
  chunks.push(']}\n');
  return chunks;
}
