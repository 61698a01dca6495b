// Enhancer for the admin forms' role choices (templates/macros/forms.html): "Show codes" and
// "Start from a preset" work in place instead of redrawing the page. Without JavaScript both
// buttons post the form, which the server redraws filled in (app/admin/crud.py, redraw).

/** Check exactly the boxes of `name` whose values are in `values`. */
function checkOnly(form, name, values) {
  const wanted = new Set(values.map(String));
  for (const box of form.querySelectorAll(`input[type="checkbox"][name="${name}"]`)) {
    box.checked = wanted.has(box.value);
  }
}

/** Fill the form from a preset's values (app.admin.users.preset_values; apply_preset there). */
export function applyPreset(form, values) {
  checkOnly(form, 'modules', values.modules);
  checkOnly(form, 'roles', values.roles);
  const every = form.querySelector('input[type="checkbox"][name="all_divisions"]');
  if (every) every.checked = Boolean(values.all_divisions);
  if (values.divisions) checkOnly(form, 'divisions', values.divisions);
}

function enhancePreset(box) {
  if (box.dataset.presetReady) return;
  box.dataset.presetReady = '1';
  const select = box.querySelector('select');
  const apply = box.querySelector('[data-preset-apply]');
  const status = box.querySelector('[data-preset-status]');
  let presets;
  try {
    presets = JSON.parse(box.dataset.presets || '{}');
  } catch {
    return; // the button still redraws the form on the server
  }
  if (apply) apply.hidden = true;
  select.addEventListener('change', () => {
    const values = presets[select.value];
    if (!values) return;
    applyPreset(select.form, values);
    if (status) status.textContent = box.dataset.applied || '';
  });
}

function enhanceCodes(fieldset) {
  const button = fieldset.querySelector('[data-codes-toggle]');
  if (!button || button.dataset.codesReady) return;
  button.dataset.codesReady = '1';
  const state = fieldset.querySelector('[data-codes-state]');
  button.addEventListener('click', (event) => {
    event.preventDefault();
    const show = !fieldset.classList.contains('show-codes');
    fieldset.classList.toggle('show-codes', show);
    button.setAttribute('aria-pressed', String(show));
    button.value = show ? 'codes-off' : 'codes-on';
    if (state) state.value = show ? '1' : '0';
  });
}

export function enhanceRoleForms(root = document) {
  for (const box of root.querySelectorAll('[data-presets]')) enhancePreset(box);
  for (const fieldset of root.querySelectorAll('fieldset.described-choices')) enhanceCodes(fieldset);
}
