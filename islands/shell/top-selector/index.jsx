// The top selector for ROLE_MANAGER_ADMIN (spec 01 sections 2, 4 and 5): the active company
// (only with more than one) and a user to act as (only with more than one user listed, never
// the current user). The shell renders it hidden; five logo clicks or the user menu reveal it.
import { useEffect, useId, useState } from 'react';
import { api } from '../../lib/api.js';
import { useGettext } from '../../lib/i18n.js';
import { setTopSelectorRevealed } from '../../lib/menu.js';
import { activeInstanceId, instanceChoices, userChoices, userLabel } from './choices.js';

export default function TopSelector({ currentUserId = null }) {
  const gettext = useGettext();
  const ids = useId();
  const [loading, setLoading] = useState(true);
  const [instances, setInstances] = useState([]);
  const [activeId, setActiveId] = useState(null);
  const [users, setUsers] = useState([]);
  const [chosenUser, setChosenUser] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    const loadInstances = api.get('me/instances').then((body) => {
      if (!live) return;
      setInstances(instanceChoices(body));
      setActiveId(activeInstanceId(body));
    });
    // A 403 only means this user may not act as others: no user dropdown, no alert.
    const loadUsers = api
      .get('users/detailed-list', { params: { pagination: 'false' }, handleErrors: false })
      .then((body) => {
        if (live) setUsers(userChoices(body, currentUserId));
      })
      .catch(() => {});
    Promise.allSettled([loadInstances, loadUsers]).then(() => {
      if (live) setLoading(false);
    });
    return () => {
      live = false;
    };
  }, [currentUserId]);

  const changeInstance = async (event) => {
    const id = event.target.value;
    setActiveId(Number(id));
    setBusy(true);
    try {
      await api.patch(`me/change-active-instance/${encodeURIComponent(id)}`);
      window.location.reload();
    } catch {
      setBusy(false); // the api client has shown the alert
    }
  };

  const actAs = async (event) => {
    event.preventDefault();
    if (!chosenUser || busy) return;
    setBusy(true);
    try {
      await api.post(`impersonate/${encodeURIComponent(chosenUser)}`);
      window.location.assign('/');
    } catch {
      setBusy(false);
    }
  };

  const close = () => {
    setTopSelectorRevealed(false);
    document.querySelector('.user-menu > summary')?.focus();
  };

  const instanceId = `${ids}-instance`;
  const userId = `${ids}-user`;
  return (
    <div className="top-selector-body" aria-busy={loading || busy ? 'true' : undefined}>
      {loading && <p className="muted">{gettext('Loading…')}</p>}
      {!loading && instances.length > 0 && (
        <div className="top-selector-field">
          <label htmlFor={instanceId}>{gettext('Company')}</label>
          <select
            id={instanceId}
            value={activeId ?? ''}
            onChange={changeInstance}
            disabled={busy}
          >
            {instances.map((instance) => (
              <option key={instance.id} value={instance.id}>
                {instance.companyName}
              </option>
            ))}
          </select>
        </div>
      )}
      {!loading && users.length > 0 && (
        <form className="top-selector-field" onSubmit={actAs}>
          <label htmlFor={userId}>{gettext('Act as user')}</label>
          <select
            id={userId}
            value={chosenUser}
            onChange={(event) => setChosenUser(event.target.value)}
            disabled={busy}
          >
            <option value="">{gettext('Choose a user')}</option>
            {users.map((user) => (
              <option key={user.id} value={user.id}>
                {userLabel(user)}
              </option>
            ))}
          </select>
          <button type="submit" className="btn btn-primary" disabled={busy || !chosenUser}>
            {gettext('Act as')}
          </button>
        </form>
      )}
      {!loading && instances.length === 0 && users.length === 0 && (
        <p className="muted">{gettext('There is no other company or user to switch to.')}</p>
      )}
      <button type="button" className="btn btn-secondary top-selector-close" onClick={close}>
        {gettext('Close')}
      </button>
    </div>
  );
}
