// One statistics chart (Chart.js through react-chartjs-2). The same numbers are in the table the
// server renders beside the chart, so the canvas is only a picture of them: it carries a short
// aria-label and points to the table.
import { Chart } from '../../lib/charts.js';
import { chartDatasets, chartOptions, wholeNumbers } from './chart.js';

export default function StatisticsChart({ type = 'bar', labels = [], datasets = [], unit = '', label = '' }) {
  const chartType = type === 'line' ? 'line' : 'bar';
  const locale = document.documentElement.lang;
  return (
    <div className="statistics-chart">
      <Chart
        type={chartType}
        data={{ labels, datasets: chartDatasets(chartType, datasets) }}
        options={chartOptions(unit, locale, wholeNumbers(datasets))}
        role="img"
        aria-label={label}
      />
    </div>
  );
}
