// The body of each widget type (spec 02 sections 2 to 4).
import { useRef, useState } from 'react';
import { useGettext } from '../../lib/i18n.js';
import { SeenToggle, useSeenToggle } from '../../preparation/custom-list/index.jsx';
import { ChartWidget } from './chart.jsx';
import {
  colorFor,
  formatValue,
  gaugeArcs,
  gaugeFraction,
  manageLink,
  overviewLink,
  rowClassesOf,
  showGauge,
  skeletonRows,
  summaryLinks,
  unitText,
  viewVehiclesLink,
} from './rules.js';

const locale = () => document.documentElement.lang || undefined;


function Gauge({ options, value, color }) {
  const { min, max, arcs } = gaugeArcs(options);
  // a half circle: angle 180° (min) to 0° (max)
  const point = (fraction, radius) => {
    const angle = Math.PI * (1 - fraction);
    return [100 + radius * Math.cos(angle), 100 - radius * Math.sin(angle)];
  };
  const arcPath = (from, to) => {
    const [x1, y1] = point(gaugeFraction(from, min, max), 80);
    const [x2, y2] = point(gaugeFraction(to, min, max), 80);
    return `M ${x1} ${y1} A 80 80 0 0 1 ${x2} ${y2}`;
  };
  const [nx, ny] = point(gaugeFraction(value, min, max), 64);
  return (
    <svg className="widget-gauge" viewBox="-12 0 224 112" aria-hidden="true" focusable="false">
      {arcs.map((arc) => (
        <g key={`${arc.from}-${arc.to}`}>
          <path d={arcPath(arc.from, arc.to)} stroke={arc.color} strokeWidth="16" fill="none" />
          <text x={point(gaugeFraction(arc.to, min, max), 98)[0]} y={point(gaugeFraction(arc.to, min, max), 98)[1] + 4} className="gauge-arc-label" textAnchor="middle">
            {arc.label}
          </text>
        </g>
      ))}
      <line x1="100" y1="100" x2={nx} y2={ny} stroke={color || '#1f2937'} strokeWidth="4" strokeLinecap="round" />
      <circle cx="100" cy="100" r="6" fill={color || '#1f2937'} />
    </svg>
  );
}

function GoalText({ goal, unit, gettext, currency }) {
  if (!goal) return null;
  if (goal.goalValue === null || goal.goalValue === undefined) {
    return <p className="widget-goal muted">{gettext('No goal set')}</p>;
  }
  return (
    <p className="widget-goal">
      {gettext('Goal: %(value)s %(unit)s', {
        value: formatValue(goal.goalValue, unit, locale()),
        unit: unitText(unit, gettext, currency, goal.goalValue),
      })}
      {goal.goalName ? <span className="muted"> ({goal.goalName})</span> : null}
    </p>
  );
}

export function NumberWidget({ widget, currency }) {
  const gettext = useGettext();
  const { performanceValue: value, performanceUnit: unit } = widget.value || {};
  const text = formatValue(value, unit, locale());
  const gauge = showGauge(widget.options, text);
  const color = colorFor(value, widget.options.colorConditions, { ascending: gauge });
  return (
    <div className="widget-number">
      {gauge && <Gauge options={widget.options} value={value} color={color} />}
      <p className="widget-value" style={color ? { color } : undefined} data-testid="widget-value">
        <span className="widget-value-number">{text}</span>{' '}
        <span className="widget-unit">{unitText(unit, gettext, currency, value)}</span>
      </p>
      <GoalText goal={widget.goal} unit={unit} gettext={gettext} currency={currency} />
    </div>
  );
}

export function SummaryWidget({ widget }) {
  const gettext = useGettext();
  const value = widget.value || {};
  const module = widget.options.module;
  const sections = value.sections || [];
  if (!sections.length) return <p className="muted">{gettext('no data')}</p>;
  const allItems = sections.flatMap((s) => s.items);
  const links = summaryLinks(module, widget.itemFilters, widget.options, allItems);
  const columns = (value.columnsCount || 0) + 1;
  return (
    <div className="widget-summary">
      <p className="widget-summary-total">
        <a href={links.total} target="_blank" rel="noopener">
          {gettext('%(count)s vehicles in all', { count: value.totalItemsCount })}
        </a>
      </p>
      <div className="summary-grid" style={{ gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}>
        {sections.map((section) => (
          <div className="summary-row" key={section.title} style={{ display: 'contents' }}>
            <div className="summary-section">
              <strong>{section.title}</strong>
              <span className="muted">
                {' '}
                {gettext('%(percent)s %% of all vehicles', { percent: section.percentage }).replace(' %', '\u00a0%')}
              </span>
            </div>
            {section.items.map((item) => (
              <a className="summary-item" key={item.id} href={links.items[item.id]} target="_blank" rel="noopener">
                <span className="summary-item-value">{item.value}</span>
                <span className="summary-item-title">{item.title}</span>
                <span className="muted">
                  {gettext('%(percent)s %% of %(group)s', { percent: item.extraValue, group: section.title }).replace(' %', '\u00a0%')}
                </span>
              </a>
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}

export function ListWidget({ widget }) {
  const gettext = useGettext();
  const values = widget.value?.values || [];
  if (!values.length) return <p className="muted">{gettext('no data')}</p>;
  return (
    <ul className="widget-list">
      {values.map((row) => (
        <li key={row.title}>
          <a href={overviewLink(widget.options.module, widget.itemFilters, row.filters, widget.options)}>
            <span>{row.title}</span>
            <strong>{row.value}</strong>
          </a>
        </li>
      ))}
    </ul>
  );
}

/** The item's state buttons (config.showStateInteractionButtons): one form per allowed move,
 * coming back to this dashboard afterwards. */
function StateButtons({ item }) {
  const gettext = useGettext();
  const token = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') || '';
  if (!item.stateButtons?.length) return null;
  return (
    <div className="state-buttons" role="group" aria-label={gettext('Move the vehicle')}>
      {item.stateButtons.map((button) => (
        <form key={button.toState} method="post" action={`/${item.module}/items/${item.id}/move`}>
          <input type="hidden" name="csrf_token" value={token} />
          <input type="hidden" name="to_state" value={button.toState} />
          <input type="hidden" name="next" value={window.location.pathname} />
          <button type="submit" className="btn btn-secondary btn-small">
            {button.title}
          </button>
        </form>
      ))}
    </div>
  );
}

export function CustomListWidget({ widget }) {
  const gettext = useGettext();
  const value = widget.value || {};
  const [items, setItems] = useState(value.items || []);
  const lastValue = useRef(value);
  if (lastValue.current !== value) {
    lastValue.current = value;
    setItems(value.items || []);
  }
  const listIri = `/preparation-custom-lists/${value.listId}`;
  const stateButtons = Boolean(value.config?.showStateInteractionButtons);
  const { busy, notice, toggle } = useSeenToggle(listIri, (id, seenId) =>
    setItems((current) => current.map((i) => (i.id === id ? { ...i, customListSeenId: seenId } : i))),
  );
  return (
    <div className="widget-custom-list">
      <p className="widget-custom-list-head">
        <strong>{value.title}</strong>{' '}
        <span className="muted">
          {gettext('%(shown)s of %(total)s', { shown: value.itemsCount, total: value.totalItemsCount })}
        </span>{' '}
        <a className="btn btn-secondary btn-small" href={viewVehiclesLink(value.listId)}>
          {gettext('view vehicles')}
        </a>
      </p>
      {items.length === 0 ? (
        <p className="muted">{gettext('no data')}</p>
      ) : (
        <div className="table-wrap">
          <table className="table custom-list-table">
            <caption className="visually-hidden">{value.title}</caption>
            <thead>
              <tr>
                <th scope="col">{gettext('Registration number')}</th>
                <th scope="col">{gettext('Vehicle')}</th>
                <th scope="col">{gettext('State')}</th>
                {stateButtons && <th scope="col">{gettext('State buttons')}</th>}
              </tr>
            </thead>
            <tbody>
              {items.map((item) => {
                const seen = Boolean(item.customListSeenId);
                return (
                  <tr key={item.id} className={rowClassesOf(item)} data-item-id={item.id}>
                    <th scope="row">
                      <SeenToggle
                        regno={item.regno}
                        seen={seen}
                        working={busy.has(item.id)}
                        onToggle={() => toggle(item.id, item.customListSeenId)}
                      />
                    </th>
                    <td>
                      <a href={manageLink(item, value.config)}>{item.fullModelName}</a>
                    </td>
                    <td>{item.stateTitle}</td>
                    {stateButtons && (
                      <td>
                        <StateButtons item={item} />
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {notice}
    </div>
  );
}

/** The tier widget over the ranking division summary {divisionData, seasonData, globalStatistics}. */
export function TierWidget({ widget }) {
  const gettext = useGettext();
  const summary = widget.value?.summary;
  const division = summary?.divisionData?.[0];
  if (!division) return <p className="muted">{gettext('No ranking yet.')}</p>;
  const season = summary.seasonData?.current;
  return (
    <div className="widget-tier">
      <p className="widget-value">
        <span className="widget-value-number">{division.tier}</span>
      </p>
      <p>
        {gettext('%(points)s points (+%(new)s), position %(position)s, overall %(overall)s', {
          points: division.points,
          new: division.newPoints,
          position: division.position,
          overall: division.overallPosition,
        })}
      </p>
      <progress max="100" value={division.progress ?? 0} aria-label={gettext('Progress to the next tier')} />
      {season && <p className="muted">{season.identifier}</p>}
      {(summary.globalStatistics || []).length > 0 && (
        <ul className="widget-tier-stats">
          {summary.globalStatistics.map((s) => (
            <li key={s.tier}>
              {gettext('%(tier)s: %(percent)s %% of all ranked divisions', { tier: s.tier, percent: s.percentage })}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The bookings widget: today's and this week's test drives and deliveries, today's listed. */
export function BookingsWidget({ widget }) {
  const gettext = useGettext();
  const value = widget.value || {};
  return (
    <div className="widget-bookings">
      <p className="widget-value">
        <span className="widget-value-number">{value.today ?? 0}</span>{' '}
        <span className="muted">{gettext('today, %(week)s this week', { week: value.week ?? 0 })}</span>
      </p>
      {(value.items || []).length > 0 ? (
        <ul className="booking-list">
          {value.items.map((b) => (
            <li key={b.href}>
              <time dateTime={b.at}>{b.time}</time> <a href={b.href}>{b.kind}</a>{' '}
              <span className="muted">{b.vehicle}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{gettext('No bookings today.')}</p>
      )}
    </div>
  );
}

/** The reconditioning cost widget: the last thirty days' average cost and overrun per vehicle,
 * how many ran over their estimate (a link to them in the overview) and the estimates waiting. */
export function ReconCostWidget({ widget }) {
  const gettext = useGettext();
  const value = widget.value || {};
  const money = (n) => (n == null ? '–' : `${formatValue(n, '', locale())} ${value.currency || ''}`.trim());
  return (
    <div className="widget-recon">
      <p className="widget-recon-average">
        <strong>{money(value.average)}</strong>{' '}
        <span className="muted">{gettext('average per vehicle, last 30 days')}</span>
      </p>
      <dl className="widget-recon-facts">
        <div>
          <dt>{gettext('Average overrun')}</dt>
          <dd>{money(value.overrun)}</dd>
        </div>
        <div>
          <dt>{gettext('Over estimate')}</dt>
          <dd>
            <a href={value.overEstimateHref}>{gettext('%(over)s of %(vehicles)s vehicles', { over: value.over ?? 0, vehicles: value.vehicles ?? 0 })}</a>
          </dd>
        </div>
        <div>
          <dt>{gettext('Waiting for approval')}</dt>
          <dd>{value.waiting ?? 0}</dd>
        </div>
      </dl>
    </div>
  );
}

export function ErrorWidget({ widget }) {
  const gettext = useGettext();
  return (
    <p className="widget-error" role="note">
      {widget.value?.message || gettext('insufficient permissions to view data')}
    </p>
  );
}

export function WidgetBody({ widget, currency }) {
  switch (widget.type) {
    case 'number':
      return <NumberWidget widget={widget} currency={currency} />;
    case 'chart':
      return <ChartWidget widget={widget} />;
    case 'numberSummary':
      return <SummaryWidget widget={widget} />;
    case 'list':
      return <ListWidget widget={widget} />;
    case 'customList':
      return <CustomListWidget widget={widget} />;
    case 'tier':
      return <TierWidget widget={widget} />;
    case 'bookings':
      return <BookingsWidget widget={widget} />;
    case 'reconCost':
      return <ReconCostWidget widget={widget} />;
    default:
      return <ErrorWidget widget={widget} />;
  }
}

export function Skeleton({ widget }) {
  const rows = ['list', 'customList', 'numberSummary'].includes(widget.type) ? skeletonRows(widget.h) : 1;
  return (
    <div className="widget-skeleton" aria-hidden="true" data-skeleton-rows={rows}>
      {Array.from({ length: rows }, (_, n) => (
        <span className="skeleton-line" key={n} />
      ))}
    </div>
  );
}
