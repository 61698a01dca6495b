// The options of the statistics charts (spec 02 section 9: at most 12 x ticks).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PALETTE, chartDatasets, chartOptions, wholeNumbers } from '../shell/statistics-chart/chart.js';

test('datasets get distinct colours; a target dataset is a dashed line', () => {
  const [first, second, target] = chartDatasets('bar', [
    { label: 'Entered', data: [1, 2] },
    { label: 'Sold', data: [0, 1] },
    { label: 'Target', data: [45, 45], type: 'line', dashed: true },
  ]);
  assert.equal(first.borderColor, PALETTE[0]);
  assert.equal(second.borderColor, PALETTE[1]);
  assert.notEqual(first.backgroundColor, second.backgroundColor);
  assert.deepEqual(target.borderDash, [6, 4]);
  assert.equal(target.type, 'line');
  assert.deepEqual(first.data, [1, 2]);
});

test('the x axis shows at most 12 ticks and values carry the unit', () => {
  const options = chartOptions('min', 'en-GB');
  assert.equal(options.scales.x.ticks.maxTicksLimit, 12);
  assert.equal(options.scales.y.ticks.callback(1234.56), '1,234.6 min');
  const label = options.plugins.tooltip.callbacks.label({
    dataset: { label: 'Average minutes' },
    parsed: { y: 45 },
  });
  assert.equal(label, 'Average minutes: 45 min');
});

test('a chart without a unit shows bare numbers', () => {
  assert.equal(chartOptions('', 'en-GB').scales.y.ticks.callback(7), '7');
});

test('counts get whole-number ticks; averages keep their fractions', () => {
  const counts = [{ label: 'Published', data: [0, 1, 4, null] }];
  const averages = [{ label: 'Days', data: [1.5, 2] }];
  assert.equal(wholeNumbers(counts), true);
  assert.equal(wholeNumbers(averages), false);
  assert.equal(chartOptions('', 'en-GB', true).scales.y.ticks.precision, 0);
  assert.equal(chartOptions('', 'en-GB', false).scales.y.ticks.precision, undefined);
});
