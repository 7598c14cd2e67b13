// The sentence box and its tokens: what is typed goes to the state (after a pause in typing),
// the long-sample button replaces it with a text of LONG_SAMPLE_TOKENS tokens (which the box's
// Ctrl+Z undoes), and the engine's tokens show as chips, with a count (unknown words dashed),
// which a screen reader hears once typing stops; choosing a chip makes it the query
// (generation.js selectQuery).
import { formatCount } from '../../shared/format.js';
import { createAnnouncer } from '../../shared/page/announcer.js';
import { Superseded } from '../../shared/worker/client.js';
import { selectQuery } from '../generation.js';
import { longSample } from '../presets.js';
import { MAX_TOKENS } from './vectors.js';

const LONG_SAMPLE_TOKENS = 4096;
const TOKEN_CHIPS_MAX = 256;

const $ = (id) => document.getElementById(id);

/**
 * Binds the sentence box to `state` (client: the engine worker, which tokenizes the long
 * sample; onChange(settings, {debounce}); onError(message)). Returns {sync(), showTokens(input),
 * markQuery()}.
 */
export function createSentence({ client, state, onChange, onError }) {
  const box = $('sentence');
  const chips = $('tokens');
  const tokenCount = createAnnouncer($('token-count-spoken'));

  // The UTF-16 offsets where the first `limit` tokens of `text` end, from the engine in the worker.
  async function tokenEnds(text, limit) {
    const { value } = await client.request('tokenize', { text, limit }, { lane: 'sample' });
    return value.tokens.map((token) => token.end);
  }

  // The sample goes into the box as typing would, in place of all of its text, so that the
  // box's undo (Ctrl+Z) brings the typed text back: setting its value instead empties its undo
  // history. Where insertText is not supported, the value is set.
  async function showLongSample() {
    try {
      const text = await longSample(LONG_SAMPLE_TOKENS, tokenEnds);
      box.focus();
      box.select();
      if (!document.execCommand('insertText', false, text)) box.value = text;
      onChange({ text, zoom: null, query: 0 });
    } catch (error) {
      if (!(error instanceof Superseded)) onError(error.message);
    }
  }

  function sync() {
    if (box.value !== state.text) box.value = state.text;
  }

  // Only the chips whose state changes are written: setting all 512 of them restyled each.
  function markQuery() {
    chips.querySelectorAll('button.token').forEach((button, i) => {
      const pressed = String(i === state.query);
      if (button.getAttribute('aria-pressed') !== pressed) button.setAttribute('aria-pressed', pressed);
    });
  }

  function showTokens({ labels, truncated }) {
    const unknownCount = labels.filter((token) => token.unknown).length;
    const parts = [`${formatCount(labels.length)} token${labels.length === 1 ? '' : 's'}`];
    if (unknownCount > 0) parts.push(`${formatCount(unknownCount)} with a hashed vector (dashed)`);
    if (truncated) parts.push(`text cut at ${formatCount(MAX_TOKENS)} tokens`);
    $('token-count').textContent = parts.join(' · ');
    tokenCount.settled(parts.join(' · '));
    chips.replaceChildren(...labels.slice(0, TOKEN_CHIPS_MAX).map((token) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = `token${token.unknown ? ' unknown' : ''}`;
      button.textContent = token.text;
      // the whole token, which a long one's chip cuts with an ellipsis
      button.title = `#${token.index} ${token.text}${token.unknown ? ': not in the vocabulary, hashed vector' : ''}`;
      button.addEventListener('click', () => onChange(selectQuery(state, token.index)));
      item.append(button);
      return item;
    }));
    if (labels.length > TOKEN_CHIPS_MAX) {
      const more = document.createElement('li');
      more.className = 'muted';
      more.textContent = `… ${formatCount(labels.length - TOKEN_CHIPS_MAX)} more`;
      chips.append(more);
    }
    markQuery();
  }

  box.addEventListener('input', () => onChange({ text: box.value, zoom: null }, { debounce: true }));
  $('long-sample').addEventListener('click', showLongSample);

  return { sync, showTokens, markQuery };
}
