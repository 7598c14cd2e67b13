// The heatmap's colour map: viridis (perceptually uniform, readable in grey and by most
// colour-blind readers) as a precomputed table, plus fixed colours for what has no place on
// it: masked cells, NaN and ±Infinity.
import { rgb } from 'd3-color';
import { interpolateViridis } from 'd3-scale-chromatic';

export const COLOR_STEPS = 256;

/** RGBA bytes of COLOR_STEPS colours from the low end of the scale to the high end. */
export const COLOR_TABLE = (() => {
  const table = new Uint8ClampedArray(COLOR_STEPS * 4);
  for (let k = 0; k < COLOR_STEPS; ++k) {
    const { r, g, b } = rgb(interpolateViridis(k / (COLOR_STEPS - 1)));
    table.set([r, g, b, 255], k * 4);
  }
  return table;
})();

/** Colours outside the scale, as [r, g, b, a] and as CSS. */
export const SPECIAL_COLORS = {
  masked: { rgba: [128, 128, 128, 64], css: 'rgba(128, 128, 128, 0.25)', label: 'masked' },
  nan: { rgba: [255, 0, 160, 255], css: 'rgb(255, 0, 160)', label: 'NaN' },
  infinity: { rgba: [255, 80, 0, 255], css: 'rgb(255, 80, 0)', label: '±Infinity' },
};
