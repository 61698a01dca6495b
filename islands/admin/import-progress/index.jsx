// The live progress bar of a vehicle import: polls the run's progress (stored in the database,
// so any web or worker process answers the same) and reloads the page for the report when done.
import { useEffect, useState } from 'react';
import { useGettext } from '../../lib/i18n.js';
import { finished, label } from './progress.js';

const INTERVAL_MS = 700;

export default function ImportProgress({ url, initial }) {
  const gettext = useGettext();
  const [state, setState] = useState(initial);

  useEffect(() => {
    if (finished(state)) {
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
