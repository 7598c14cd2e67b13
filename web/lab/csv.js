// The numbers of the lab's charts as CSV text, one function per chart, each from the answer
// the chart draws (lab.js `results`): a header row, then one row per point, each number the
// shortest decimal that reads back to it (float32Text for the engine's float32 numbers). The
// last column, `settings`, holds the lab's link to the settings behind the numbers in every
// row, so that files of several settings stay apart when they are read into one table (a
// comment line would stop spreadsheets' and pandas' default readers).
import { csvField, float32Text } from '../shared/downloads.js';

// The shortest text of a number: float32Text for a float32, else JavaScript's own (a float64 ratio).
const numberText = (value) => (Math.fround(value) === value ? float32Text(value) : String(value));

// `link`: settingsLink's 'lab.html#n=256&slope=0.01', the value of every row's settings column.
const csv = (header, rows, link) => [[...header, 'settings'], ...rows.map((row) => [...row, link])]
  .map((row) => row.map((cell) => csvField(String(cell))).join(',')).join('\n') + '\n';

// The name of the retrieval column: the needle's attention mass, or a top-1 rate (0 to 1).
const retrievalColumn = (metric) => (metric === 'mass' ? 'mass' : 'top1_rate');

/** Chart 1: each position's share of the final token's inputs (or of the attention received); the last row is the final token. */
export function positionCsv(curves, measure, link) {
  const { values } = curves.curve;
  return csv(['position', measure === 'final' ? 'share_of_final_token_input' : 'share_of_attention_received'],
    Array.from(values, (value, j) => [j, numberText(value)]), link);
}

/** Chart 2: the model's RoPE weight and RoFormer's bound for each base, each over its value at distance 0. */
export function ropeCsv(rope, link) {
  const { weight, decay } = rope;
  return csv(['distance', `model_weight_base_${weight.base}_s_${weight.strength}`, ...decay.map(({ base }) => `roformer_bound_base_${base}`)],
    weight.distances.map((d, k) => [d, numberText(weight.values[k]), ...decay.map(({ values }) => numberText(values[k]))]), link);
}

/** Chart 3: the needle's retrieval at each depth (its relative depth and its position). */
export function needleCsv(needle, metric, link) {
  const { depths, positions, retrieval } = needle.sweep;
  return csv(['depth', 'position', retrievalColumn(metric)],
    Array.from(retrieval, (value, k) => [numberText(depths[k]), positions[k], numberText(value)]), link);
}

/** Chart 3's grid: the needle's retrieval for each context length and depth (the mass itself, not its multiple of a fair share). */
export function gridCsv(grid, metric, link) {
  const { lengths, depths, values, cols } = grid;
  return csv(['length', 'depth', retrievalColumn(metric)],
    Array.from(values, (value, k) => [lengths[Math.floor(k / cols)], numberText(depths[k % cols]), numberText(value)]), link);
}

/** Chart 4: the needle's retrieval at each depth before and after the mitigation. */
export function mitigationCsv(mitigation, metric, name, link) {
  const { before, after } = mitigation.value;
  const column = retrievalColumn(metric);
  return csv(['depth', `${column}_before`, `${column}_after_${name}`],
    Array.from(before.retrieval, (value, k) => [numberText(before.depths[k]), numberText(value), numberText(after.retrieval[k])]), link);
}
