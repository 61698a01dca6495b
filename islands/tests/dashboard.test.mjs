// The dashboard widgets' rules (spec 02 sections 2, 4, 5 and 9): label, gauge, colours, axis
// labels, skeleton rows, links, loading with auto-update, and the editor's body.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { editorPayload, initialForm, numberOrText } from '../dashboard/dashboard/form.js';
import { startWidgetLoader } from '../dashboard/dashboard/load.js';
import {
  arcLabel,
  autoUpdateDelay,
  axisLabels,
  chartHeight,
  colorFor,
  formatValue,
  gaugeArcs,
  hasMultipleModules,
  manageLink,
  moveId,
  overviewLink,
  rowClassesOf,
  showGauge,
  skeletonRows,
  snapPercent,
  summaryLinks,
  viewVehiclesLink,
  widgetLabel,
} from '../dashboard/dashboard/rules.js';

const gettext = (text) => ({ 'multiple divisions': 'flera divisioner', week: 'vecka' })[text] || text;

test('the label joins custom label, division and module with a bullet, each under its condition', () => {
  const label = { custom: 'Sålda', division: 'Solna', divisionCount: 1, module: 'Begagnat' };
  assert.equal(widgetLabel(label, { gettext }), 'Sålda • Solna');
  assert.equal(widgetLabel(label, { multipleModules: true, gettext }), 'Sålda • Solna • Begagnat');
  assert.equal(
    widgetLabel({ ...label, division: null, divisionCount: 3 }, { gettext }),
    'Sålda • flera divisioner',
  );
  assert.equal(widgetLabel({ custom: '', division: 'Solna', divisionCount: 1 }, { gettext }), 'Solna');
  assert.equal(widgetLabel(null), '');
});

test('the module is named only when the dashboard holds several modules', () => {
  assert.equal(hasMultipleModules([{ label: { moduleKey: 'begcare' } }, { label: { moduleKey: 'begcare' } }]), false);
  assert.equal(hasMultipleModules([{ label: { moduleKey: 'begcare' } }, { label: { moduleKey: 'newcare' } }]), true);
});

test('colour conditions are tested in order and the first match wins', () => {
  const conditions = [
    { operator: 'gt', value: 10, color: 'red' },
    { operator: 'gt', value: 5, color: 'amber' },
    { operator: 'lt', value: 5, color: 'green' },
  ];
  assert.equal(colorFor(12, conditions), 'red');
  assert.equal(colorFor(7, conditions), 'amber');
  assert.equal(colorFor(3, conditions), 'green');
  assert.equal(colorFor(5, conditions), null);
  assert.equal(colorFor(null, conditions), null);
});

test('for a gauge the conditions are sorted ascending before the first match wins', () => {
  const conditions = [
    { operator: 'lt', value: 120, color: 'amber' },
    { operator: 'lt', value: 60, color: 'green' },
  ];
  assert.equal(colorFor(30, conditions), 'amber'); // in the given order 120 matches first
  assert.equal(colorFor(30, conditions, { ascending: true }), 'green');
  assert.equal(colorFor(90, conditions, { ascending: true }), 'amber');
});

test('the gauge shows only under its four conditions', () => {
  const options = { gauge: true, colorConditions: [{ operator: 'lt', value: 60, color: 'g' }], minimum: 0 };
  assert.equal(showGauge(options, '39,4'), true);
  assert.equal(showGauge({ ...options, gauge: false }, '39,4'), false);
  assert.equal(showGauge({ ...options, colorConditions: [] }, '39,4'), false);
  assert.equal(showGauge(options, '1234567'), false); // longer than 6 characters
  assert.equal(showGauge(options, '123456'), true);
  assert.equal(showGauge({ ...options, minimum: 60 }, '1'), false); // no 'lt' above the minimum
  assert.equal(showGauge({ ...options, colorConditions: [{ operator: 'gt', value: 60, color: 'r' }] }, '1'), false);
  assert.equal(showGauge({ ...options, minimum: undefined }, '1'), true); // minimum defaults to 0
});

test('gauge arcs run from the minimum to each lt limit, with labels of at most 3 characters', () => {
  const { min, max, arcs } = gaugeArcs({
    minimum: 0,
    colorConditions: [
      { operator: 'lt', value: 1200, color: 'b' },
      { operator: 'lt', value: 600, color: 'a' },
      { operator: 'gt', value: 1200, color: 'c' },
    ],
  });
  assert.equal(min, 0);
  assert.equal(max, 1200);
  assert.deepEqual(arcs.map((a) => [a.from, a.to, a.color]), [[0, 600, 'a'], [600, 1200, 'b']]);
  assert.deepEqual(arcs.map((a) => a.label), ['600', '1k']);
  assert.ok(arcLabel(123456).length <= 3);
});

test('a ratio is shown with x', () => {
  assert.equal(formatValue(0.25, 'ratio', 'en-GB'), '0.25x');
  assert.equal(formatValue(31, 'vehicles', 'en-GB'), '31');
  assert.equal(formatValue(null, 'days', 'en-GB'), '–');
});

test('month labels are short upper-case month names; week labels are prefixed', () => {
  assert.deepEqual(axisLabels(['2026-01', '2026-11'], 'month', { locale: 'en-GB', gettext }), ['JAN', 'NOV']);
  assert.deepEqual(axisLabels(['2026-W07', '2026-W48'], 'week', { locale: 'sv-SE', gettext }), ['vecka 7', 'vecka 48']);
  assert.deepEqual(axisLabels(['a'], 'other', { gettext }), ['a']);
});

test('the goal label snaps to 25 % steps', () => {
  assert.deepEqual([0, 12, 13, 37, 38, 62, 63, 87.4, 88, 140, -5].map(snapPercent), [0, 0, 25, 25, 50, 50, 75, 75, 100, 100, 0]);
});

test('chart height is 8rem for h 1, else 12rem × h', () => {
  assert.equal(chartHeight(1), '8rem');
  assert.equal(chartHeight(2), '24rem');
  assert.equal(chartHeight(3), '36rem');
});

test('list skeleton rows: 3 for h 1, else 9', () => {
  assert.equal(skeletonRows(1), 3);
  assert.equal(skeletonRows(2), 9);
  assert.equal(skeletonRows(3), 9);
});

test('list values link to the overview with the item filters and advancedFilter', () => {
  const link = overviewLink(
    'begcare',
    { brand: 'Volvo', 'advancedFilter[mileageTo]': '50000' },
    { 'enum[state]': '4' },
    { divisions: ['division-3'] },
  );
  const url = new URL(link, 'http://x');
  assert.equal(url.pathname, '/begcare/overview');
  assert.equal(url.searchParams.get('brand'), 'Volvo');
  assert.equal(url.searchParams.get('enum[state]'), '4');
  assert.equal(url.searchParams.get('advancedFilter[mileageTo]'), '50000');
  assert.equal(url.searchParams.get('division'), 'division-3');
  assert.equal(overviewLink('newcare', {}, {}, { divisions: ['all'] }), '/newcare/overview');
  assert.equal(overviewLink('newcare', {}, {}, { divisions: ['division-1', 'division-2'] }), '/newcare/overview');
});

test('numberSummary links: the total and each item with enum[state]', () => {
  const links = summaryLinks('begcare', { brand: 'BMW' }, { divisions: ['all'] }, [{ id: 4 }, { id: 6 }]);
  assert.equal(links.total, '/begcare/overview?brand=BMW');
  assert.equal(links.items[4], '/begcare/overview?brand=BMW&enum%5Bstate%5D=4');
  assert.equal(links.items[6], '/begcare/overview?brand=BMW&enum%5Bstate%5D=6');
});

test('customList links: view vehicles, and manage by the hub/central and state 3/5/7 rules', () => {
  assert.equal(viewVehiclesLink(7), '/custom-list/7/list');
  const item = { id: 11, module: 'begcare', state: 4, stateSegment: 'list', hubItemId: 20, centralItemId: 30 };
  assert.equal(manageLink(item, {}), '/begcare/items/list/11/stations-manage');
  assert.equal(manageLink({ ...item, state: 3, stateSegment: 'awaiting' }), '/begcare/items/awaiting/11/stations-utilize');
  assert.equal(manageLink({ ...item, state: 5, stateSegment: 'parked' }), '/begcare/items/parked/11/stations-utilize');
  assert.equal(manageLink({ ...item, state: 7, stateSegment: 'sold' }), '/begcare/items/sold/11/stations-utilize');
  assert.equal(manageLink(item, { manage: 'hub' }), '/begcare/20');
  assert.equal(manageLink(item, { manage: 'central' }), '/begcare/30');
  assert.equal(manageLink({ ...item, hubItemId: null }, { manage: 'hub' }), '/begcare/items/list/11/stations-manage');
});

test('customList rows: warning red, unseen highlighted, active advert blue', () => {
  assert.equal(rowClassesOf({ customListSeenId: 3 }), '');
  assert.equal(rowClassesOf({ customListSeenId: null }), 'row-unseen');
  assert.equal(rowClassesOf({ customListSeenId: 1, warning: true, activeAdvert: true }), 'row-warning row-advert');
});

test('a drop moves the widget to the place it was dropped on', () => {
  assert.deepEqual(moveId([1, 2, 3, 4], 1, 3), [2, 3, 1, 4]);
  assert.deepEqual(moveId([1, 2, 3, 4], 4, 1), [4, 1, 2, 3]);
  assert.deepEqual(moveId([1, 2], 1, 9), [1, 2]);
});

/** Timers run by hand: the test says when time passes. */
function fakeTimers() {
  let next = 1;
  const pending = new Map();
  return {
    pending,
    setTimeout(fn, ms) {
      const id = next++;
      pending.set(id, { fn, ms });
      return id;
    },
    clearTimeout(id) {
      pending.delete(id);
    },
    runAll() {
      const due = [...pending.values()];
      pending.clear();
      for (const { fn } of due) fn();
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('a widget loads with a cancellable request and reloads every autoUpdate seconds', async () => {
  const timers = fakeTimers();
  const calls = [];
  const client = {
    get: async (path, options) => {
      calls.push({ path, signal: options.signal });
      return { n: calls.length };
    },
  };
  const seen = [];
  const loader = startWidgetLoader(5, 30, client, { onData: (d) => seen.push(d.n), timers });
  await tick();
  assert.equal(calls[0].path, 'dashboard-widgets/5');
  assert.ok(calls[0].signal instanceof AbortSignal);
  assert.deepEqual([...timers.pending.values()].map((t) => t.ms), [30000]);
  timers.runAll();
  await tick();
  assert.deepEqual(seen, [1, 2]);
  // a reload restarts the timer: one timer pending, not two
  loader.reload();
  await tick();
  assert.equal(timers.pending.size, 1);
  loader.stop();
  assert.equal(timers.pending.size, 0);
  assert.equal(autoUpdateDelay(0), null);
});

test('a new load cancels the running one; a stopped loader cancels its request', async () => {
  const timers = fakeTimers();
  const signals = [];
  const client = {
    get: (path, { signal }) =>
      new Promise((resolve, reject) => {
        signals.push(signal);
        signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
      }),
  };
  const errors = [];
  const loader = startWidgetLoader(1, 0, client, { onError: (e) => errors.push(e), timers });
  loader.reload();
  assert.equal(signals[0].aborted, true);
  loader.stop();
  assert.equal(signals[1].aborted, true);
  await tick();
  assert.deepEqual(errors, []); // cancellations are not errors
  assert.equal(timers.pending.size, 0); // autoUpdate 0: no timer
});

test('the editor keeps what was typed and sends numbers as numbers', () => {
  const form = initialForm(null, null, { modules: [{ value: 'begcare' }] });
  assert.equal(form.module, 'begcare');
  assert.deepEqual(form.divisions, ['all']);
  const body = editorPayload(
    {
      ...form,
      autoUpdate: 'abc',
      minimum: '2,5',
      colorConditions: [{ operator: 'lt', value: '60', color: '#00ff00' }],
      itemFilters: { brand: 'Volvo', model: '  ' },
    },
    'my',
  );
  assert.equal(body.autoUpdate, 'abc'); // the server answers with the field's message
  assert.equal(body.minimum, 2.5);
  assert.deepEqual(body.colorConditions, [{ operator: 'lt', value: 60, color: '#00ff00' }]);
  assert.deepEqual(body.itemFilters, { brand: 'Volvo' });
  assert.equal(body.hideGoals, false);
  assert.equal(numberOrText(''), null);
});

test('a unit after exactly one is singular', async () => {
  const { unitText } = await import('../dashboard/dashboard/rules.js');
  const gettext = (text) => `«${text}»`;
  assert.equal(unitText('vehicles', gettext, 'SEK', 1), '«vehicle»');
  assert.equal(unitText('vehicles', gettext, 'SEK', 2), '«vehicles»');
  assert.equal(unitText('vehicles', gettext, 'SEK', 0), '«vehicles»');
  assert.equal(unitText('days', gettext, 'SEK', 1), '«day»');
  assert.equal(unitText('days', gettext, 'SEK', 1.5), '«days»');
  assert.equal(unitText('currency', gettext, 'SEK', 1), 'SEK');
  assert.equal(unitText('ratio', gettext, 'SEK', 1), '');
});
