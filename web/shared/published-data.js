// Published data: Liu et al., "Lost in the Middle" (TACL 2024), multi-document QA accuracy
// by the position of the document that holds the answer, transcribed from the paper's tables
// into the JSON beside this file (bundled by esbuild).
import liu2023 from './lost-in-the-middle-liu2023.json';

export const SOURCE = liu2023.source;

/** The document counts the paper reports (10, 20, 30). */
export const DOCUMENT_COUNTS = [...new Set(liu2023.models.flatMap((m) => m.curves.map((c) => c.documents)))].sort((a, b) => a - b);

/**
 * For k documents: [{model, closedBook, oracle, positions, accuracy}] of the models that report k
 * (closedBook: the accuracy with no documents; oracle: with only the document that holds the answer;
 * a curve of an extended-context variant, which the paper reports at 30 documents, has its own,
 * from the paper's Table 1).
 */
export function curvesFor(documents) {
  return liu2023.models.flatMap((model) => model.curves
    .filter((curve) => curve.documents === documents)
    .map((curve) => ({
      model: curve.variant ?? model.model,
      closedBook: curve.closed_book ?? model.closed_book,
      oracle: curve.oracle ?? model.oracle,
      positions: curve.positions,
      accuracy: curve.accuracy,
    })));
}
