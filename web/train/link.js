// The Train page's link: its settings in the URL hash (state.js spells them), read on load and
// when the address changes, with a notice naming what the page ignored, and written back as
// the settings change, to the address bar and to the "Link to these settings" anchor.
import { parseHash, toHash } from './state.js';

/** {read() → the settings the hash holds, write(settings)}; notices: where the link's problems go. */
export function createLink({ notices }) {
  return {
    read() {
      const { settings, problems } = parseHash(window.location.hash);
      notices.showLinkProblems(problems);
      return settings;
    },
    write(settings) {
      const hash = toHash(settings);
      document.getElementById('share-link').href = hash || '#';
      window.history.replaceState(null, '', hash || window.location.pathname + window.location.search);
    },
  };
}
