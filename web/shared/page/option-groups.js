// A page's groups of settings (fieldsets of class option-group: the playground's attention
// options, the Train page's run) folded on a narrow screen to their legend: a button with the
// group's name and its settings in one line, so that every group's heading fits in little more
// than a screen and a setting can be changed with what it changes in view. The button opens and
// folds its group; a group stays as the user left it, and one in which a problem appears (a
// control marked aria-invalid) opens, so that the problem is in sight. Wider, every group is
// open and the buttons are hidden: option-groups.css folds a group by its data-expanded, on the
// narrow screens each page imports it for.
//
// A group named `name` is the markup
//   <fieldset class="option-group" aria-labelledby="name-group-title">
//     <legend><span id="name-group-title" class="option-group-title">Title</span>
//       <button type="button" id="name-group-toggle" class="option-group-toggle" aria-expanded="false"
//         aria-controls="name-group-controls">Title <span id="name-group-summary" class="option-group-summary"></span></button></legend>
//     <div id="name-group-controls" class="option-group-controls">…the controls…</div>
//   </fieldset>

const $ = (id) => document.getElementById(id);

/**
 * Binds the buttons of the groups `names`; returns {show(summaries)}, which writes each group's
 * line ({name: 'causal · window 8'}) and opens a group a problem appeared in since the last show.
 */
export function bindOptionGroups(names) {
  const groups = names.map((name) => ({
    name,
    toggle: $(`${name}-group-toggle`),
    summary: $(`${name}-group-summary`),
    controls: $(`${name}-group-controls`),
    hadProblem: false,
  }));
  // The button says whether its group is open; the fieldset's data-expanded, which
  // option-groups.css folds by, says the same (no :has(), which older browsers lack).
  const expand = (group, expanded) => {
    group.toggle.setAttribute('aria-expanded', String(expanded));
    group.controls.parentElement.dataset.expanded = String(expanded);
  };
  for (const group of groups) {
    expand(group, group.toggle.getAttribute('aria-expanded') === 'true');
    group.toggle.addEventListener('click', () => expand(group, group.toggle.getAttribute('aria-expanded') !== 'true'));
  }

  function show(summaries) {
    for (const group of groups) {
      // written only when it changes: the playground shows its groups on every recompute
      if (group.summary.textContent !== summaries[group.name]) group.summary.textContent = summaries[group.name];
      const hasProblem = group.controls.querySelector('[aria-invalid="true"]') !== null;
      if (hasProblem && !group.hadProblem) expand(group, true);
      group.hadProblem = hasProblem;
    }
  }

  return { show };
}
