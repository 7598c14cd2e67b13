// What a screen reader hears of text that changes often: a visually hidden live region that
// speaks a reading once it has settled (a slider's drag rewrites it at every step, a training
// run's progress line at every chunk), and a page's milestones at once.

// How long a reading must stay unchanged before it is spoken.
const QUIET_MS = 800;

/**
 * Speaks through `region` (a visually hidden element with aria-live="polite" or role="status"):
 * settled(text) once no other text has come for QUIET_MS, and not again while it stays the
 * same (a redraw rewrites it); now(text) at once (and drops a settled text still waiting).
 */
export function createAnnouncer(region) {
  let timer = null;
  return {
    settled(text) {
      clearTimeout(timer);
      if (text === region.textContent) return;
      timer = setTimeout(() => { region.textContent = text; }, QUIET_MS);
    },
    now(text) {
      clearTimeout(timer);
      region.textContent = text;
    },
  };
}
