// A custom list's vehicles with their seen markers (spec 02 sections 4, 7 and 8). The vehicle
// cell is a button: it marks an unseen vehicle as seen and a seen one as unseen again, one
// request per vehicle at a time. A refused change opens the info modal with the server's text.
import { useRef, useState } from 'react';
import { api, reportApiError } from '../../lib/api.js';
import { Dialog } from '../../lib/dialog.js';
import { useGettext } from '../../lib/i18n.js';
import { rowClasses, toggleSeen } from './seen.js';

function InfoModal({ text, onClose }) {
  const gettext = useGettext();
  const closeRef = useRef(null);
  // The cancel button is the only thing to reach; the focus returns to the vehicle button that
  // was activated. A static backdrop: a click beside the dialog does not close it.
  return (
    <Dialog
      title={gettext('Notification')}
      description={text}
      onEscape={onClose}
      onOpen={() => closeRef.current?.focus()}
      trapFocus
      actions={
        <button type="button" className="btn btn-secondary" ref={closeRef} onClick={onClose}>
          {gettext('Cancel')}
        </button>
      }
    />
  );
}

function days(gettext, n) {
  return n === 1 ? gettext('%(num)s day', { num: n }) : gettext('%(num)s days', { num: n });
}

function Stations({ row }) {
  const gettext = useGettext();
  if (!row.stationsTotal) return <span className="muted">{gettext('No stations')}</span>;
  return (
    <>
      <span className="station-progress">
        {gettext('%(done)s of %(total)s done', { done: row.stationsDone, total: row.stationsTotal })}
      </span>
      {row.activeStation && (
        <>
          <br />
          <span className="muted">{gettext('Now: %(station)s', { station: row.activeStation })}</span>
        </>
      )}
    </>
  );
}

/**
 * The seen markers' toggling, one request per vehicle at a time (this list and the dashboard's
 * custom-list widget): `toggle(id, seenId)` asks the server (toggleSeen) and hands the vehicle's
 * new marker to `onSeen(id, seenId)`; a refused change's text shows in `notice` (the info
 * dialog to render) until it is closed.
 */
export function useSeenToggle(listIri, onSeen) {
  const [busy, setBusy] = useState(() => new Set());
  const [modal, setModal] = useState(null);
  const running = useRef(new Set());
  const toggle = async (id, seenId) => {
    if (running.current.has(id)) return;
    running.current.add(id);
    setBusy(new Set(running.current));
    try {
      const result = await toggleSeen({ id, seenId }, listIri, api, reportApiError);
      onSeen(id, result.seenId);
      if (result.modal) setModal(result.modal);
    } finally {
      running.current.delete(id);
      setBusy(new Set(running.current));
    }
  };
  const notice = modal === null ? null : <InfoModal text={modal} onClose={() => setModal(null)} />;
  return { busy, notice, toggle };
}

/** A vehicle's registration number as the button that marks it seen, or not seen again. */
export function SeenToggle({ regno, seen, working, onToggle }) {
  const gettext = useGettext();
  return (
    <button
      type="button"
      className="seen-toggle"
      aria-pressed={seen}
      aria-busy={working}
      aria-disabled={working}
      title={seen ? gettext('Mark as not seen') : gettext('Mark as seen')}
      onClick={onToggle}
    >
      {regno}
      <span className="visually-hidden">
        {' '}
        {seen ? gettext('Seen') : gettext('Not seen')}
      </span>
    </button>
  );
}

export default function CustomList({ listIri, caption, rows: initialRows = [] }) {
  const gettext = useGettext();
  const [rows, setRows] = useState(initialRows);
  const { busy, notice, toggle } = useSeenToggle(listIri, (id, seenId) =>
    setRows((current) => current.map((r) => (r.id === id ? { ...r, seenId } : r))),
  );

  return (
    <>
      <div className="table-wrap">
        <table className="table custom-list-table">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">{gettext('Registration number')}</th>
              <th scope="col">{gettext('Vehicle')}</th>
              <th scope="col">{gettext('State')}</th>
              <th scope="col">{gettext('Division')}</th>
              <th scope="col">{gettext('Days in state')}</th>
              <th scope="col">{gettext('Stations')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const seen = Boolean(row.seenId);
              const working = busy.has(row.id);
              return (
                <tr key={row.id} className={rowClasses(row)} data-item-id={row.id}>
                  <th scope="row">
                    <SeenToggle regno={row.regno} seen={seen} working={working} onToggle={() => toggle(row.id, row.seenId)} />
                    {!seen && (
                      <span className="badge badge-unseen" aria-hidden="true">
                        {gettext('Not seen')}
                      </span>
                    )}
                    {row.warning && <span className="badge badge-warning-row">{gettext('Warning')}</span>}
                  </th>
                  <td>
                    <a href={row.manageUrl}>{row.model}</a>
                  </td>
                  <td>{row.state}</td>
                  <td>{row.division}</td>
                  <td>{days(gettext, row.daysInState)}</td>
                  <td>
                    <Stations row={row} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {notice}
    </>
  );
}
