// The link of the lab and the Train page: their settings in the URL hash (each page's state.js
// spells them), read on load and when the address changes, with a notice naming what the page
// ignored (and, on the Train page, how it read an old link), and written back as the settings
// change, to the address bar and to the "Link to these settings" anchor (#share-link), which a
// click copies (the page stays where it is). The playground's link (playground/link.js) waits
// for a pause in changes and leaves out long texts.

const COPIED_MS = 2000;  // how long the anchor says the link was copied

// A click on the anchor copies its link instead of following it (at the defaults, '#' would
// scroll to the top), and the anchor says so for a moment; where the clipboard is refused, it
// says where to copy it from.
function copyOnClick(anchor) {
  const label = anchor.textContent;
  let timer = 0;
  anchor.parentElement.setAttribute('aria-live', 'polite');
  anchor.addEventListener('click', async (event) => {
    event.preventDefault();
    let copied = true;
    try {
      await navigator.clipboard.writeText(anchor.href);
    } catch {
      copied = false;
    }
    clearTimeout(timer);  // after the copy: of two quick clicks, the last one's timer restores the label
    anchor.textContent = copied ? 'Link copied' : 'Copy the link from the address bar';
    timer = setTimeout(() => { anchor.textContent = label; }, COPIED_MS);
  });
}

/**
 * {read() → the settings the hash holds, write(settings)}. notices: where the link's problems
 * and notes go (createNotices); parse(hash) → {settings, problems, notes (optional): how the
 * page read the link}; toHash(settings) → '#…' or ''.
 */
export function createSettingsLink({ notices, parse, toHash }) {
  copyOnClick(document.getElementById('share-link'));
  return {
    read() {
      const { settings, problems, notes = [] } = parse(window.location.hash);
      notices.showLinkProblems(problems, notes);
      return settings;
    },
    write(settings) {
      const hash = toHash(settings);
      document.getElementById('share-link').href = hash || '#';
      window.history.replaceState(null, '', hash || window.location.pathname + window.location.search);
    },
  };
}
