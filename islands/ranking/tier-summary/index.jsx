// The ranking tier summary dialog (spec 01 sections 2, 4, 7 and 9). See rules.js for when it
// runs. GET tier-ranking-division-summary/{divisionId}: an answer without divisionData is
// ignored; an empty list is marked viewed without a dialog; an error with retry=false stops
// asking on this page. "Do not show again" marks all the user's divisions; closing marks the
// current one; navigating away closes it. It waits for its turn behind the system-message
// dialogs (lib/modal.js): never two dialogs at once.
import { useEffect, useRef, useState } from 'react';
import { api } from '../../lib/api.js';
import { Dialog } from '../../lib/dialog.js';
import { useGettext } from '../../lib/i18n.js';
import { useModalTurn } from '../../lib/modal.js';
import { DIVISION_KEY, divisionToShow, isViewed, markViewed, seasonOf, WAIT_MS } from './rules.js';

function SummaryDialog({ summary, onClose, onStop }) {
  const gettext = useGettext();
  const [current, ...earlier] = summary.divisionData;
  return (
    <Dialog
      title={gettext('Ranking of %(division)s', { division: current.name })}
      className="tier-summary-modal"
      onEscape={onClose}
      actions={
        <>
          <a className="btn btn-secondary" href="/ranking">
            {gettext('Leaderboard')}
          </a>
          <button type="button" className="btn btn-secondary" onClick={onStop}>
            {gettext('Do not show again')}
          </button>
          <button type="button" className="btn btn-primary" onClick={onClose}>
            {gettext('Close')}
          </button>
        </>
      }
    >
      {[current, ...earlier].map((entry) => (
        <section key={entry.season} className="tier-summary-season">
          <h3>{gettext('Season %(season)s', { season: entry.season })}</h3>
          <p className="tier-summary-tier">
            <span className="ranking-tier">{entry.tier || '–'}</span>{' '}
            {gettext('Position %(position)s in the tier, %(overall)s overall', {
              position: entry.position,
              overall: entry.overallPosition,
            })}
          </p>
          <p>
            {gettext('%(points)s points (%(new)s in the last 7 days)', {
              points: entry.points,
              new: entry.newPoints,
            })}
          </p>
          <div
            className="tier-progress"
            role="progressbar"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={entry.progress}
            aria-label={gettext('Progress to the next tier')}
          >
            <span style={{ width: `${entry.progress}%` }} />
          </div>
        </section>
      ))}
      {summary.globalStatistics?.length > 0 && (
        <section>
          <h3>{gettext('Divisions per tier')}</h3>
          <ul className="ranking-shares">
            {summary.globalStatistics.map((s) => (
              <li key={s.tier}>
                <span className="ranking-tier">{s.tier}</span> <strong>{s.percentage} %</strong>
              </li>
            ))}
          </ul>
        </section>
      )}
    </Dialog>
  );
}

export default function TierSummary({ manageDivisionId = null, divisionIds = [] }) {
  const [open, setOpen] = useState(null); // {divisionId, season, summary}
  const stopped = useRef(false);
  const [divisionValue, setDivisionValue] = useState(() => {
    // The selector on the page mirrors the session; keep the stored value in step with it.
    const select = document.querySelector(`select[data-storage-key="${DIVISION_KEY}"]`);
    if (select?.value) {
      try {
        localStorage.setItem(DIVISION_KEY, select.value);
      } catch {
        // storage disabled
      }
    }
    return undefined; // read from storage
  });

  useEffect(() => {
    const onChange = (event) => {
      const select = event.target;
      if (select instanceof HTMLSelectElement && select.dataset.storageKey === DIVISION_KEY) {
        setDivisionValue(select.value);
      }
    };
    document.addEventListener('change', onChange);
    const close = () => setOpen(null);
    window.addEventListener('popstate', close);
    window.addEventListener('pagehide', close);
    window.addEventListener('hashchange', close);
    return () => {
      document.removeEventListener('change', onChange);
      window.removeEventListener('popstate', close);
      window.removeEventListener('pagehide', close);
      window.removeEventListener('hashchange', close);
    };
  }, []);

  useEffect(() => {
    const divisionId = divisionToShow({
      manageDivisionId,
      ...(divisionValue !== undefined ? { storedValue: divisionValue } : {}),
    });
    if (!divisionId || stopped.current) return undefined;
    let cancelled = false;
    const timer = setTimeout(async () => {
      try {
        const summary = await api.get(`tier-ranking-division-summary/${divisionId}`, {
          handleErrors: false,
        });
        if (cancelled || !summary || !Array.isArray(summary.divisionData)) return;
        const season = seasonOf(summary);
        if (!summary.divisionData.length) {
          markViewed([divisionId], season);
          return;
        }
        if (!isViewed(divisionId, season)) setOpen({ divisionId, season, summary });
      } catch (error) {
        if (error?.body?.retry === false) stopped.current = true;
      }
    }, WAIT_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [manageDivisionId, divisionValue]);

  const myTurn = useModalTurn(Boolean(open));
  if (!open || !myTurn) return null;
  const close = () => {
    markViewed([open.divisionId], open.season);
    setOpen(null);
  };
  const stop = () => {
    markViewed([...new Set([...divisionIds, open.divisionId])], open.season);
    setOpen(null);
  };
  return <SummaryDialog summary={open.summary} onClose={close} onStop={stop} />;
}
