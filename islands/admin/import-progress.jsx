// The live progress bar of a vehicle import: polls the run's progress (stored in the database,
// so any web or worker process answers the same) and reloads the page for the report when done.
import { useEffect, useState } from 'react';
import { useGettext } from '../lib/i18n.js';

const INTERVAL_MS = 700;

export function label(gettext, state) {
  if (state.status === 'done') return gettext('The import is done.');
  if (state.status === 'failed') return gettext('The import failed. Nothing after the last saved step was stored; try again.');
  return gettext('%(processed)s of %(total)s rows', { processed: state.processed, total: state.total });
}

export default function ImportProgress({ url, initial }) {
  const gettext = useGettext();
  const [state, setState] = useState(initial);

  useEffect(() => {
    if (state.status === 'done' || state.status === 'failed') {
      const timer = setTimeout(() => window.location.reload(), 600);
      return () => clearTimeout(timer);
    }
    const timer = setTimeout(async () => {
      try {
        const response = await fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
        if (response.ok) setState(await response.json());
        else setState({ ...state });
      } catch {
        setState({ ...state });
      }
    }, INTERVAL_MS);
    return () => clearTimeout(timer);
  }, [state, url]);

  return (
    <div className="import-progress">
      <label htmlFor="import-progress">{gettext('Progress')}</label>
      <progress id="import-progress" max="100" value={state.percent}>{state.percent} %</progress>
      <p role="status" data-percent={state.percent}>{label(gettext, state)}</p>
    </div>
  );
}
