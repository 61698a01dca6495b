// The dropdown rules of the top selector (spec 01 section 5), kept apart for the node tests.

/** The instances to offer: only when there is more than one to choose between. */
export function instanceChoices(body) {
  const instances = Array.isArray(body?.['hydra:member']) ? body['hydra:member'] : [];
  return instances.length > 1 ? instances : [];
}

/** The active instance's id: the answer's activeInstanceId, else the one marked active. */
export function activeInstanceId(body) {
  if (body?.activeInstanceId !== undefined && body.activeInstanceId !== null) {
    return body.activeInstanceId;
  }
  const active = (body?.['hydra:member'] || []).find((instance) => instance.active);
  return active ? active.id : null;
}

/** The users to act as: everyone but the current user, when more than one user is listed. */
export function userChoices(body, currentUserId) {
  const users = Array.isArray(body?.['hydra:member']) ? body['hydra:member'] : [];
  if (users.length <= 1) return [];
  const me = body?.currentUserId ?? currentUserId;
  return users.filter((user) => user.id !== me);
}

/** How a user is named in the dropdown: the full name, with the username to tell twins apart. */
export function userLabel(user) {
  const name =
    user.fullName || [user.firstname, user.lastname].filter(Boolean).join(' ') || user.username;
  return user.username && user.username !== name ? `${name} (${user.username})` : name;
}
