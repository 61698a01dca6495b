// The seen-marker rules of a custom list (spec 02 sections 4 and 8), free of React so that the
// island tests can drive them with a fake client.

/** The row classes of spec 02 section 4: warning red, unseen highlighted, active advert blue. */
export function rowClasses(row) {
  const classes = [];
  if (row.warning) classes.push('row-warning');
  if (!row.seenId) classes.push('row-unseen');
  if (row.activeAdvert) classes.push('row-advert');
  return classes.join(' ');
}

function errorText(error) {
  const body = error && typeof error.body === 'object' ? error.body : null;
  return (body && (body.error || body.message)) || (error && error.message) || '';
}

/**
 * Toggle the marker of `row` on the list `listIri` through `client` ({post, delete} as in
 * lib/api.js). Resolves with { seenId, modal }: the row's new marker id (null when unseen) and
 * the text for the info modal, or null. Errors other than the spec's 422 answers go to `report`
 * and leave the row as it was.
 */
export async function toggleSeen(row, listIri, client, report = () => {}) {
  if (row.seenId) {
    try {
      await client.delete(`preparation-custom-list-seen/${row.seenId}`, { handleErrors: false });
      return { seenId: null, modal: null };
    } catch (error) {
      if (error?.status === 422) return { seenId: null, modal: errorText(error) };
      report(error);
      return { seenId: row.seenId, modal: null };
    }
  }
  try {
    const created = await client.post(
      'preparation-custom-list-seen',
      { customList: listIri, item: `/preparation-items/${row.id}` },
      { handleErrors: false },
    );
    return { seenId: created?.id ?? null, modal: null };
  } catch (error) {
    const seenId = Number(error?.body?.seenId);
    if (error?.status === 422 && seenId > 0) return { seenId, modal: errorText(error) };
    report(error);
    return { seenId: null, modal: null };
  }
}
