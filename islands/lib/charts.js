// The one Chart.js set-up of the islands (the dashboard's chart widget and the statistics
// charts): the controllers, elements, scales and plugins they draw with, registered once, and
// react-chartjs-2's <Chart>. Islands import Chart from here, never register their own.
// (The purchase print page's script is a page of its own and registers the few it draws with.)
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart as ChartJS,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';

ChartJS.register(BarController, BarElement, CategoryScale, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip);

export { Chart } from 'react-chartjs-2';
