// The page's link: the settings in the URL hash (state.js spells them), read on load and when
// the address changes, with a notice naming what the page ignored, and written back after a
// pause in changes; a note under the text box says when the text is too long for a link.
import { formatCount } from '../shared/format.js';
import { LIMITS, formatLink, parseHash } from './state.js';

export const HASH_WRITE_DEBOUNCE_MS = 300;

/** {read() → the state the hash holds, write(state)}; notices: the page's, note: the element under the text box. */
export function createLink({ notices, note }) {
  let timer = 0;
  return {
    read() {
      const { state, problems } = parseHash(location.hash);
      notices.showLinkProblems(problems);
      return state;
    },
    write(state) {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const { hash, textLeftOut } = formatLink(state);
        history.replaceState(null, '', hash ? `#${hash}` : `${location.pathname}${location.search}`);
        note.hidden = !textLeftOut;
        note.textContent = textLeftOut
          ? `This text is not in the page's link: encoded for a URL it takes more than ${formatCount(LIMITS.MAX_LINK_TEXT)} ` +
            'characters, the most a link keeps. The link keeps every other setting; opened, it shows the default sentence.'
          : '';
      }, HASH_WRITE_DEBOUNCE_MS);
    },
  };
}
