// The dashboard widgets' rules (spec 02 sections 2, 4, 5 and 9), free of React so that the island
// tests can check each one.
import { rowClasses } from '../../preparation/custom-list/seen.js';

/** Label parts joined by a bullet: custom label, division (or 'multiple divisions'), module. */
export function widgetLabel(label, { multipleModules = false, gettext = (s) => s } = {}) {
  if (!label) return '';
  const parts = [];
  if (label.custom) parts.push(label.custom);
  if ((label.divisionCount || 0) > 1) parts.push(gettext('multiple divisions'));
  else if (label.division) parts.push(label.division);
  if (multipleModules && label.module) parts.push(label.module);
  return parts.join(' • ');
}

/** True when the dashboard holds widgets of more than one module: the label names the module. */
export function hasMultipleModules(widgets) {
  return new Set(widgets.map((w) => w.label?.moduleKey).filter(Boolean)).size > 1;
}

/** The colour of the first matching condition, tested in order (sorted ascending for a gauge). */
export function colorFor(value, conditions = [], { ascending = false } = {}) {
  if (value === null || value === undefined || Number.isNaN(Number(value))) return null;
  const list = ascending ? sortedConditions(conditions) : conditions;
  for (const condition of list) {
    const limit = Number(condition.value);
    if (condition.operator === 'gt' && Number(value) > limit) return condition.color;
    if (condition.operator === 'lt' && Number(value) < limit) return condition.color;
  }
  return null;
}

export function sortedConditions(conditions = []) {
  return [...conditions].sort((a, b) => Number(a.value) - Number(b.value));
}

/**
 * The gauge shows only when the option is on, colour conditions exist, the value text is at most
 * 6 characters and at least one 'lt' condition lies above the minimum (default 0).
 */
export function showGauge(options = {}, valueText = '') {
  const conditions = options.colorConditions || [];
  const minimum = options.minimum ?? 0;
  return Boolean(
    options.gauge &&
      conditions.length > 0 &&
      String(valueText).length <= 6 &&
      conditions.some((c) => c.operator === 'lt' && Number(c.value) > Number(minimum)),
  );
}

/** The gauge's arcs: from the minimum to each 'lt' limit above it, ascending, with its colour. */
export function gaugeArcs(options = {}) {
  const minimum = Number(options.minimum ?? 0);
  const limits = sortedConditions(options.colorConditions).filter(
    (c) => c.operator === 'lt' && Number(c.value) > minimum,
  );
  const max = limits.length ? Number(limits[limits.length - 1].value) : minimum + 1;
  let from = minimum;
  return {
    min: minimum,
    max,
    arcs: limits.map((c) => {
      const arc = { from, to: Number(c.value), color: c.color, label: arcLabel(c.value) };
      from = Number(c.value);
      return arc;
    }),
  };
}

/** An arc label is at most 3 characters (spec 02 section 9). */
export function arcLabel(value) {
  const text = String(value);
  if (text.length <= 3) return text;
  const n = Number(value);
  if (Math.abs(n) >= 1000) return `${Math.round(n / 1000)}k`.slice(0, 3);
  return text.slice(0, 3);
}

/** Where a value sits between min and max, clamped to 0..1. */
export function gaugeFraction(value, min, max) {
  if (max <= min) return 0;
  return Math.min(1, Math.max(0, (Number(value) - min) / (max - min)));
}

/** The displayed value: a number in the reader's format, a ratio with 'x'. */
export function formatValue(value, unit, locale) {
  if (value === null || value === undefined) return '–';
  const number = new Intl.NumberFormat(locale || undefined, { maximumFractionDigits: unit === 'ratio' ? 2 : 1 });
  const text = number.format(Number(value));
  return unit === 'ratio' ? `${text}x` : text;
}

/** Skeleton rows of a list widget while it loads: 3 for h 1, else 9. */
export function skeletonRows(h) {
  return Number(h) === 1 ? 3 : 9;
}

/** Chart height: 8rem for h 1, otherwise 12rem × h. */
export function chartHeight(h) {
  const n = Number(h) || 1;
  return n === 1 ? '8rem' : `${12 * n}rem`;
}

/** X-axis labels: months as short upper-case month names, weeks prefixed with the 'week' text. */
export function axisLabels(labels = [], tickSpan, { locale, gettext = (s) => s } = {}) {
  if (tickSpan === 'month') {
    const format = new Intl.DateTimeFormat(locale || undefined, { month: 'short', timeZone: 'UTC' });
    return labels.map((label) => {
      const match = /^(\d{4})-(\d{2})/.exec(label);
      if (!match) return String(label);
      const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1));
      return format.format(date).replace('.', '').toLocaleUpperCase(locale || undefined);
    });
  }
  if (tickSpan === 'week') {
    return labels.map((label) => {
      const match = /W(\d{1,2})$/.exec(label);
      return `${gettext('week')} ${match ? Number(match[1]) : label}`;
    });
  }
  return labels.map(String);
}

/** The goal line's label position snapped to 25 % steps (0, 25, 50, 75 or 100). */
export function snapPercent(percent) {
  const p = Math.min(100, Math.max(0, Number(percent) || 0));
  return Math.round(p / 25) * 25;
}

function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.append(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The division filter a link carries: only for exactly one division value other than 'all'. */
function divisionParam(options = {}) {
  const values = options.divisions || [];
  return values.length === 1 && values[0] !== 'all' ? { division: values[0] } : {};
}

/**
 * A list widget value's link: /{module}/overview with the widget's item filters as parameters,
 * the value's own filter, and advancedFilter[...] taken from the advancedFilter filters.
 */
export function overviewLink(module, itemFilters = {}, extra = {}, options = {}) {
  const plain = {};
  const advanced = {};
  for (const [name, value] of Object.entries(itemFilters)) {
    if (name.startsWith('advancedFilter[')) advanced[name] = value;
    else plain[name] = value;
  }
  return `/${module}/overview${query({ ...divisionParam(options), ...plain, ...extra, ...advanced })}`;
}

/** numberSummary links: the total, and each item with enum[state]={state id}. */
export function summaryLinks(module, itemFilters, options, items = []) {
  return {
    total: overviewLink(module, itemFilters, {}, options),
    items: Object.fromEntries(
      items.map((item) => [item.id, overviewLink(module, itemFilters, { 'enum[state]': item.id }, options)]),
    ),
  };
}

/** customList 'view vehicles': /custom-list/{listId}/list. */
export function viewVehiclesLink(listId) {
  return `/custom-list/${listId}/list`;
}

/**
 * A customList row's manage link: /{module}/{id} of the hub or central item when the widget
 * manages that one and the row has it; else the item's stations-manage page, or stations-utilize
 * in states 3, 5 and 7.
 */
export function manageLink(item, config = {}) {
  if (config.manage === 'hub' && item.hubItemId) return `/${item.module}/${item.hubItemId}`;
  if (config.manage === 'central' && item.centralItemId) return `/${item.module}/${item.centralItemId}`;
  const view = [3, 5, 7].includes(Number(item.state)) ? 'stations-utilize' : 'stations-manage';
  return `/${item.module}/items/${item.stateSegment}/${item.id}/${view}`;
}

/** Row classes of a customList row, as the custom list's own page gives them (its seen marker is
 * customListSeenId here). */
export function rowClassesOf(item) {
  return rowClasses({ ...item, seenId: item.customListSeenId });
}

/** Move `id` to the place of `overId` in a list of ids (the drop of a drag). */
export function moveId(ids, id, overId) {
  const from = ids.indexOf(id);
  const to = ids.indexOf(overId);
  if (from < 0 || to < 0 || from === to) return ids;
  const next = [...ids];
  next.splice(from, 1);
  next.splice(to, 0, id);
  return next;
}

/** Auto-update interval in ms: autoUpdate × 1000; 0 or less is none. */
export function autoUpdateDelay(autoUpdate) {
  const seconds = Number(autoUpdate) || 0;
  return seconds > 0 ? seconds * 1000 : null;
}

/** The unit after a value: singular for exactly one ("1 vehicle", "1 day"). */
export function unitText(unit, gettext, currency, value) {
  if (unit === 'days') return value === 1 ? gettext('day') : gettext('days');
  if (unit === 'vehicles') return value === 1 ? gettext('vehicle') : gettext('vehicles');
  if (unit === 'currency') return currency || '';
  return '';
}
