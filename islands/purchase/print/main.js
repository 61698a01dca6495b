// The purchase analysis print view (templates/purchase/print.html): draws the model-analysis
// chart with the axis the server worked out (spec 02: suggested max 1.5 x the first value,
// suggested min the first value / 1.5 above 10) and makes the PDF in the browser with
// html2pdf.js (A4 portrait, top margin 30 mm, image quality 0.8, scale 1.8). After saving, the
// window closes by itself: 1 s later, 10 s in Firefox, never on a mobile browser.
import {
  CategoryScale,
  Chart,
  Filler,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
} from 'chart.js';
import { keepScrollersFocusable } from '../../lib/scrollers.js';
import { closeDelay } from './close.js';

Chart.register(CategoryScale, LinearScale, LineController, LineElement, PointElement, Filler);

function drawChart() {
  const canvas = document.getElementById('pa-chart');
  if (!canvas) return;
  const chart = JSON.parse(canvas.dataset.chart);
  const format = chart.currency
    ? new Intl.NumberFormat(chart.locale, {
        style: 'currency',
        currency: chart.currency,
        maximumFractionDigits: 0,
      })
    : new Intl.NumberFormat(chart.locale, { maximumFractionDigits: 1 });
  new Chart(canvas, {
    type: 'line',
    data: {
      labels: chart.labels,
      datasets: [
        {
          data: chart.values,
          borderColor: '#1d4ed8',
          backgroundColor: 'rgba(29, 78, 216, 0.12)',
          fill: true,
          pointRadius: 3,
          tension: 0.2,
        },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: { legend: { display: false }, tooltip: { enabled: false } },
      scales: {
        x: { ticks: { maxTicksLimit: 12, autoSkip: true } },
        y: { ...chart.axis, ticks: { callback: (value) => format.format(value) } },
      },
    },
  });
}

// Never cut across a page: table rows, images, figures, facts, comments, headings.
const AVOID = ['tr', 'img', 'figure', '.avoid', '.pa-facts > div', '.pa-comment', 'h2', 'h3', 'thead'];

async function savePdf(button) {
  const status = document.querySelector('.pa-status');
  const options = JSON.parse(button.dataset.pdf);
  button.disabled = true;
  status.textContent = status.dataset.saving;
  document.body.classList.add('pa-making-pdf');
  try {
    const { default: html2pdf } = await import('html2pdf.js');
    await html2pdf()
      .set({
        margin: options.margin,
        filename: button.dataset.filename,
        image: { type: 'jpeg', quality: options.imageQuality },
        html2canvas: { scale: options.scale, useCORS: true },
        jsPDF: { unit: 'mm', format: 'a4', orientation: 'portrait' },
        pagebreak: { mode: ['css', 'legacy'], avoid: AVOID },
      })
      .from(document.getElementById('pa-document'))
      .save();
    status.textContent = '';
    const delay = closeDelay(navigator.userAgent);
    if (delay !== null) setTimeout(() => window.close(), delay);
  } catch (error) {
    status.textContent = status.dataset.failed;
    console.error(error);
  } finally {
    document.body.classList.remove('pa-making-pdf');
    button.disabled = false;
  }
}

drawChart();
keepScrollersFocusable();
const button = document.getElementById('pa-save-pdf');
if (button) button.addEventListener('click', () => savePdf(button));
document.body.dataset.ready = 'true';
