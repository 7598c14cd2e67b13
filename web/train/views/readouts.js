// How the Train page's read-outs write their numbers, and the series every chart of a run
// draws: a mean over seeds with its spread as a band, and a thin line per seed beside it (a
// mean of seeds that either learn or do not runs where no seed is).
import { format } from 'd3-format';
import { KEY_COLOR, seriesColor } from '../../shared/line-chart.js';

export const percent = format('.0%');
export const percentFine = format('.1%');
export const lossFormat = format('.3~f');
export const weightFormat = format('.2~f');
export const countFormat = format(',');

/** What charts 1 and 2 say under them for a run without checkpoints: a model loaded from a file without curves. */
export const noCheckpointsSummary = (run) => (run.source === 'loaded' ? [['checkpoints', 'none: its file holds no training curves']] : []);


// The line style of a single seed's line (train.css): thin, beside the mean's.
const SEED_STYLE = 'seed';

/**
 * The chart series of a spread {mean, low, high, each: [{seed, values}]} at xs: when there is
 * more than one seed, a thin line per seed (id `${id}-seed-${seed}`, unlabelled: the legend's
 * entry is seedLinesLegend's), then the mean as the line with the band from the lowest to the
 * highest seed (unless seedsBand is false: a chart of several spreads shows one band at a time).
 * With one seed, its line alone, with `band` when given ({lows, highs}).
 */
export function spreadSeries({
  id, label, xs, curve, seeds, colorIndex = seriesColor(0), points = false, band, pointTitles, seedsBand = true,
}) {
  const several = seeds > 1;
  const seedLines = several ? curve.each.map(({ seed, values }) => ({
    id: `${id}-seed-${seed}`, label: '', xs: xs.slice(0, values.length), ys: values, colorIndex, style: SEED_STYLE,
  })) : [];
  return [...seedLines, {
    id, label, xs, ys: curve.mean, colorIndex, points, pointTitles,
    band: several ? (seedsBand ? { lows: curve.low, highs: curve.high } : undefined) : band,
  }];
}

/**
 * The legend entry of the thin lines, one per seed, when there is more than one seed; else none.
 * Its swatch has the lines' colour where they all have one (colorIndex), else the key's grey.
 */
export function seedLinesLegend(seeds, colorIndex = KEY_COLOR) {
  return seeds > 1 ? [{ id: 'seed-lines', label: `thin lines: each of the ${seeds} seeds`, xs: [], ys: [], colorIndex, style: SEED_STYLE }] : [];
}

/** The dashed line of chance, 1 / value symbols, across [x0, x1]. */
export function chanceSeries(level, [x0, x1]) {
  return { id: 'chance', label: `chance (${percentFine(level)})`, xs: [x0, x1], ys: [level, level], colorIndex: KEY_COLOR, style: 'dashed' };
}

/**
 * For a chart of several lengths: a legend entry (no line) saying that lines are means over
 * seeds and the band their range at the one length `banded` names ('16 pairs (trained)'), when
 * there is more than one seed; else none.
 */
export function seedsLegend(seeds, banded) {
  return seeds > 1 ? [{
    id: 'seeds-note', label: `lines: mean of ${seeds} seeds; band: lowest to highest seed, at ${banded} only`,
    xs: [], ys: [], colorIndex: KEY_COLOR, style: 'faint',
  }] : [];
}
