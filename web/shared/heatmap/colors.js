// The heatmap's colour maps as precomputed tables: viridis (perceptually uniform, readable in
// grey and by most colour-blind readers) for values, and red–blue (blue below 0, white at 0,
// red above, symmetric) for the difference of two settings; plus what has no place on them: masked cells
// are left transparent over a hatching (so they can never read as a low value, in either
// colour scheme), NaN and ±Infinity get fixed colours.
import { rgb } from 'd3-color';
import { interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';

export const COLOR_STEPS = 256;

// RGBA bytes of COLOR_STEPS colours of `interpolate` from its low end (0) to its high end (1).
function colorTable(interpolate) {
  const table = new Uint8ClampedArray(COLOR_STEPS * 4);
  for (let k = 0; k < COLOR_STEPS; ++k) {
    const { r, g, b } = rgb(interpolate(k / (COLOR_STEPS - 1)));
    table.set([r, g, b, 255], k * 4);
  }
  return table;
}

/** RGBA bytes of COLOR_STEPS colours from the low end of the scale to the high end. */
export const COLOR_TABLE = colorTable(interpolateViridis);

/** The same for differences: RdBu reversed, so that negative is blue and positive red. */
const DIVERGING_TABLE = colorTable((t) => interpolateRdBu(1 - t));

/**
 * The step of the colour table (0 … COLOR_STEPS − 1) for a finite value v on the domain
 * [lo, hi], ends included; values beyond the domain take its end's colour.
 */
export function colorStep(v, lo, hi) {
  const top = COLOR_STEPS - 1;
  const step = Math.round((v - lo) * (top / (hi - lo)));
  return step < 0 ? 0 : step > top ? top : step;
}

/**
 * The steps of finite values on the domain [lo, hi]: a function v → step. Linear, colorStep's;
 * with `log` (0 < lo < hi), log10(v) placed linearly between log10(lo) and log10(hi), so that
 * each decade takes as many colours, and the geometric midpoint √(lo·hi) the middle one; v ≤ lo
 * (0 and negative weights too, which have no logarithm) take lo's colour, the lowest. The
 * logarithms of the ends are taken once, the value's once per cell: the cell images call this for
 * every cell.
 */
export function colorSteps([lo, hi], log = false) {
  if (!log) return (v) => colorStep(v, lo, hi);
  const logLo = Math.log10(lo);
  const logHi = Math.log10(hi);
  return (v) => (v > lo ? colorStep(Math.log10(v), logLo, logHi) : 0);
}

// One 32-bit word per colour, in the byte order of the platform, so that a Uint32Array over
// an ImageData's pixels takes a whole pixel in one write.
const word = (rgba) => new Uint32Array(Uint8ClampedArray.from(rgba).buffer)[0];

/** COLOR_TABLE as one word per colour. */
const COLOR_WORDS = new Uint32Array(COLOR_TABLE.buffer);

/** The colour scales a heatmap panel takes: {table, words}. */
export const COLOR_SCALES = {
  sequential: { table: COLOR_TABLE, words: COLOR_WORDS },
  diverging: { table: DIVERGING_TABLE, words: new Uint32Array(DIVERGING_TABLE.buffer) },
};

const special = ([r, g, b], label) => ({ word: word([r, g, b, 255]), css: `rgb(${r}, ${g}, ${b})`, label });

/** Colours outside the scale, as a word and as CSS. */
export const SPECIAL_COLORS = {
  nan: special([255, 0, 160], 'NaN'),
  infinity: special([255, 80, 0], '±Infinity'),
};

/**
 * Masked cells: transparent in the cell image, over diagonal lines of --masked-line on
 * --masked-back (shared/page/style.css, light and dark); the legend's swatch is the same hatching in CSS.
 */
export const MASKED = { word: 0, className: 'swatch-masked', label: 'masked' };
export const HATCH_PX = 6;        // the hatching's period
export const HATCH_LINE_PX = 1.5;

/**
 * Which colours outside the scale `panels` show (their `value`, 'scores' or 'weights', and
 * their `masked` flags, cell by cell): {masked, nan, infinity, below}, each true when some cell is
 * masked, NaN, ±Infinity or a finite value under `lowEnd` (an unmasked one: a log scale gives
 * those its low end's colour). For legends that list only what is drawn.
 */
export function specialsIn(panels, value, lowEnd = -Infinity) {
  const found = { masked: false, nan: false, infinity: false, below: false };
  for (const panel of panels) {
    const values = panel[value];
    const { masked } = panel;
    for (let k = 0; k < values.length; ++k) {
      if (masked[k]) found.masked = true;
      else if (Number.isNaN(values[k])) found.nan = true;
      else if (values[k] === Infinity || values[k] === -Infinity) found.infinity = true;
      else if (values[k] < lowEnd) found.below = true;
    }
  }
  return found;
}
