// SVG elements built with DOM APIs (never markup from strings): the exported figures
// (downloads.js, heatmap/heatmap-svg.js) are made of these.

export const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element `name` with `attributes` (numbers written as text) and, when given, `text` as its text content. */
export function svgElement(name, attributes = {}, text) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}
