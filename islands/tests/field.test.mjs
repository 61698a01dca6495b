// The islands' one form field (lib/field.js): a screen reader hears the hint and the error with
// the control, and the control is marked invalid while there is an error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createElement as h } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { described, Field } from '../lib/field.js';

function field(error, hint) {
  return renderToStaticMarkup(
    h(Field, { id: 'f', label: 'Language', error, hint }, h('select', { id: 'f', ...described('f', error, hint) })),
  );
}

test('a field with a hint and an error describes its control by both and marks it invalid', () => {
  const html = field('Choose a language.', 'Every page is in it.');
  assert.match(html, /<label for="f">Language<\/label>/);
  assert.match(html, /<select id="f" aria-describedby="f-hint f-error" aria-invalid="true">/);
  assert.match(html, /<p class="field-hint" id="f-hint">Every page is in it\.<\/p>/);
  assert.match(html, /<p class="field-error" id="f-error">Choose a language\.<\/p>/);
});

test('a field without an error is not invalid, and names only what it shows', () => {
  assert.equal(field(undefined, undefined), '<div class="form-field"><label for="f">Language</label><select id="f"></select></div>');
  assert.match(field(undefined, 'A hint'), /<select id="f" aria-describedby="f-hint">/);
});
