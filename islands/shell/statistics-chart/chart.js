// Chart.js options for the statistics charts, free of React and of the canvas so that the
// island tests can check them.

// Colours with at least 3:1 contrast against the white chart background (WCAG 1.4.11).
export const PALETTE = ['#1d4ed8', '#b42318', '#067647', '#93370d', '#6b21a8', '#0e7490'];

/** Datasets with colours; a dataset with `dashed: true` draws as a dashed line (a target). */
export function chartDatasets(type, datasets) {
  return datasets.map((dataset, index) => {
    const colour = dataset.color || PALETTE[index % PALETTE.length];
    const line = type === 'line' || dataset.type === 'line';
    return {
      label: dataset.label,
      data: dataset.data,
      type: dataset.type,
      borderColor: colour,
      backgroundColor: line ? colour : `${colour}cc`,
      borderWidth: line ? 2 : 1,
      borderDash: dataset.dashed ? [6, 4] : undefined,
      pointRadius: line ? 2 : undefined,
      tension: 0.2,
    };
  });
}

/** True when every value is a whole number (counts, whole amounts): no ticks at 0.5 then. */
export function wholeNumbers(datasets) {
  return datasets.every((dataset) => dataset.data.every((value) => value == null || Number.isInteger(value)));
}

/**
 * The options: at most 12 x ticks (spec 02 section 9), the unit on the y axis and tooltips;
 * `whole` keeps the y ticks on whole numbers.
 */
export function chartOptions(unit, locale, whole = false) {
  const number = new Intl.NumberFormat(locale || undefined, { maximumFractionDigits: 1 });
  const format = (value) => `${number.format(value)}${unit ? ` ${unit}` : ''}`;
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    interaction: { mode: 'index', intersect: false },
    plugins: {
      legend: { position: 'bottom' },
      tooltip: {
        callbacks: {
          label: (context) => `${context.dataset.label}: ${format(context.parsed.y)}`,
        },
      },
    },
    scales: {
      x: { ticks: { maxTicksLimit: 12, autoSkip: true } },
      y: { beginAtZero: true, ticks: { callback: (value) => format(value), precision: whole ? 0 : undefined } },
    },
  };
}
