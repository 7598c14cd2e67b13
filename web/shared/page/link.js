// The link of the lab and the Train page: their settings in the URL hash (each page's state.js
// spells them), read on load and when the address changes, with a notice naming what the page
// ignored, and written back as the settings change, to the address bar and to the "Link to
// these settings" anchor (#share-link). The playground's link (playground/link.js) waits for a
// pause in changes and leaves out long texts.

/**
 * {read() → the settings the hash holds, write(settings)}. notices: where the link's problems
 * go (createNotices); parse(hash) → {settings, problems}; toHash(settings) → '#…' or ''.
 */
export function createSettingsLink({ notices, parse, toHash }) {
  return {
    read() {
      const { settings, problems } = parse(window.location.hash);
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
