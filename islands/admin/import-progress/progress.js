// What the import's progress bar says, and whether polling is over.

export function finished(state) {
  return state.status === 'done' || state.status === 'failed';
}

export function label(gettext, state) {
  if (state.status === 'done') return gettext('The import is done.');
  if (state.status === 'failed') {
    return gettext('The import failed. Nothing after the last saved step was stored; try again.');
  }
  return gettext('%(processed)s of %(total)s rows', {
    processed: state.processed,
    total: state.total,
  });
}
