// The chart widget: line or bar (Chart.js through react-chartjs-2), a goal line only with a goal
// value whose label is toggled on hover and sits at 25 % steps, at most 12 x ticks, and the same
// numbers in a table beside or under it.
import { useMemo, useState } from 'react';
import { Chart } from '../../lib/charts.js';
import { useGettext } from '../../lib/i18n.js';
import { axisLabels, chartHeight, formatValue, snapPercent } from './rules.js';

const COLOUR = '#1d4ed8';
const GOAL_COLOUR = '#b42318';

/** Draws the goal label at its snapped place on the goal line while `show` is on. */
const goalLabelPlugin = {
  id: 'goalLabel',
  afterDatasetsDraw(chart, _args, options) {
    if (!options?.show || options.value === null || options.value === undefined) return;
    const { ctx, chartArea, scales } = chart;
    const y = scales.y.getPixelForValue(options.value);
    const x = chartArea.left + ((chartArea.right - chartArea.left) * options.position) / 100;
    ctx.save();
    ctx.font = '600 12px system-ui, sans-serif';
    const width = ctx.measureText(options.text).width + 8;
    const left = Math.min(Math.max(chartArea.left, x - width / 2), chartArea.right - width);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(left, y - 18, width, 16);
    ctx.fillStyle = GOAL_COLOUR;
    ctx.fillText(options.text, left + 4, y - 6);
    ctx.restore();
  },
};

export function ChartWidget({ widget }) {
  const gettext = useGettext();
  const chart = widget.value?.chart || { labels: [], data: [] };
  const locale = document.documentElement.lang || undefined;
  const type = chart.type === 'line' ? 'line' : 'bar';
  const labels = axisLabels(chart.labels, chart.tickSpan, { locale, gettext });
  const goalValue = widget.goal?.goalValue ?? null;
  const hasGoal = goalValue !== null && goalValue !== undefined;
  const [goalLabel, setGoalLabel] = useState({ show: false, position: 50 });
  const goalText = hasGoal ? gettext('Goal: %(value)s', { value: formatValue(goalValue, chart.unit, locale) }) : '';

  const data = useMemo(() => {
    const datasets = [
      {
        type,
        label: widget.title || gettext('Value'),
        data: chart.data,
        borderColor: COLOUR,
        backgroundColor: type === 'line' ? COLOUR : `${COLOUR}cc`,
        borderWidth: type === 'line' ? 2 : 1,
        pointRadius: type === 'line' ? 2 : undefined,
        tension: 0.2,
      },
    ];
    if (hasGoal) {
      datasets.push({
        type: 'line',
        label: gettext('Goal'),
        data: chart.data.map(() => goalValue),
        borderColor: GOAL_COLOUR,
        borderDash: [6, 4],
        borderWidth: 2,
        pointRadius: 0,
      });
    }
    return { labels, datasets };
  }, [chart, type, hasGoal, goalValue, labels.join('|')]);

  const options = {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    plugins: {
      legend: { display: false },
      goalLabel: { show: hasGoal && goalLabel.show, position: goalLabel.position, value: goalValue, text: goalText },
    },
    scales: {
      x: { ticks: { maxTicksLimit: 12, autoSkip: true, maxRotation: 0 } },
      y: { beginAtZero: true, suggestedMax: hasGoal ? goalValue * 1.1 : undefined, ticks: { precision: 0 } },
    },
    onHover: (event, _elements, instance) => {
      if (!hasGoal) return;
      const area = instance.chartArea;
      const x = event.x;
      const y = event.y;
      const goalY = instance.scales.y.getPixelForValue(goalValue);
      const near = x >= area.left && x <= area.right && Math.abs(y - goalY) <= 8;
      const position = snapPercent(((x - area.left) / (area.right - area.left)) * 100);
      setGoalLabel((current) =>
        current.show === near && current.position === position ? current : { show: near, position },
      );
    },
  };

  const tableId = `widget-table-${widget.id}`;
  return (
    <div className={`widget-chart${(widget.w || 1) >= 2 ? ' widget-chart-beside' : ''}`}>
      <div className="widget-chart-canvas" style={{ height: chartHeight(widget.h) }}>
        <Chart
          type={type}
          data={data}
          options={options}
          plugins={[goalLabelPlugin]}
          role="img"
          aria-label={gettext('Chart; the numbers are in the table %(table)s', { table: widget.title || '' })}
          aria-describedby={tableId}
        />
      </div>
      <div className="table-wrap widget-chart-table">
        <table className="table table-compact" id={tableId}>
          <caption className="visually-hidden">{widget.title}</caption>
          <thead>
            <tr>
              <th scope="col">{chart.tickSpan === 'week' ? gettext('Week') : gettext('Month')}</th>
              <th scope="col" className="num">
                {gettext('Value')}
              </th>
            </tr>
          </thead>
          <tbody>
            {labels.map((label, n) => (
              <tr key={chart.labels[n]}>
                <th scope="row">{label}</th>
                <td className="num">{formatValue(chart.data[n], chart.unit, locale)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted widget-period">
          {chart.tickSpan === 'week' ? gettext('The last twelve weeks') : gettext('The last twelve months')}
        </p>
        {hasGoal && <p className="widget-goal">{goalText}</p>}
      </div>
    </div>
  );
}
