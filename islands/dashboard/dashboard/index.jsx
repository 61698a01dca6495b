// A dashboard (spec 02 sections 2 to 9): a grid of widgets, each loaded by GET
// dashboard-widgets/{id} with a skeleton meanwhile and reloaded every autoUpdate seconds. A user
// with canEdit adds, edits, copies, removes and reorders them by dragging (a drag handle, and the
// keyboard: Space to pick up, arrow keys to move, Space to drop); the order is saved on the server.
import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import { rectSortingStrategy, SortableContext, sortableKeyboardCoordinates, useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { useEffect, useMemo, useRef, useState } from 'react';
import { api, reportApiError } from '../../lib/api.js';
import { useGettext } from '../../lib/i18n.js';
import { WidgetEditor } from './editor.jsx';
import { startWidgetLoader } from './load.js';
import { hasMultipleModules, moveId, widgetLabel } from './rules.js';
import { Skeleton, WidgetBody } from './widgets.jsx';

function WidgetCard({ meta, multipleModules, canEditDashboard, currency, onEdit, onCopy, onRemove, reloadKey }) {
  const gettext = useGettext();
  const [state, setState] = useState({ loading: true, data: null, failed: false });
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: meta.id,
    disabled: !canEditDashboard,
  });

  useEffect(() => {
    const loader = startWidgetLoader(meta.id, meta.autoUpdate, api, {
      onLoading: () => setState((s) => (s.data ? { ...s, loading: true } : { loading: true, data: null, failed: false })),
      onData: (data) => setState({ loading: false, data, failed: false }),
      onError: (error) => {
        reportApiError(error);
        setState((s) => ({ ...s, loading: false, failed: true }));
      },
    });
    return () => loader.stop();
  }, [meta.id, meta.autoUpdate, reloadKey]);

  const widget = state.data ? { ...meta, ...state.data } : meta;
  const label = widgetLabel(widget.label, { multipleModules, gettext });
  const canEdit = Boolean(meta.canEdit && canEditDashboard);
  const style = {
    transform: CSS.Translate.toString(transform),
    transition,
    gridColumn: `span ${Math.min(4, meta.w || 1)}`,
  };
  const showActions = canEditDashboard && (meta.canEdit || meta.type === 'customList');
  return (
    <li
      ref={setNodeRef}
      style={style}
      className={`widget-card widget-type-${widget.type}${isDragging ? ' is-dragging' : ''}`}
      data-widget-id={meta.id}
      data-widget-type={widget.type}
      aria-busy={state.loading}
    >
      <div className="widget-head">
        {canEditDashboard && (
          <button
            type="button"
            className="widget-handle"
            ref={setActivatorNodeRef}
            {...attributes}
            {...listeners}
            aria-label={gettext('Move widget %(label)s', { label })}
          >
            <span aria-hidden="true">⠿</span>
          </button>
        )}
        <h2 className="widget-label">{label || gettext('Widget')}</h2>
        {showActions && (
          <div className="widget-actions">
            <button type="button" className="btn-link" disabled={!canEdit} onClick={() => onEdit(meta)}>
              {gettext('Edit')}
              <span className="visually-hidden"> {label}</span>
            </button>
            <button type="button" className="btn-link" disabled={!canEdit} onClick={() => onCopy(meta)}>
              {gettext('Copy')}
              <span className="visually-hidden"> {label}</span>
            </button>
            <button type="button" className="btn-link" disabled={!canEdit} onClick={() => onRemove(meta)}>
              {gettext('Remove')}
              <span className="visually-hidden"> {label}</span>
            </button>
          </div>
        )}
      </div>
      <div className="widget-body">
        {state.data ? (
          <WidgetBody widget={widget} currency={currency} />
        ) : state.failed ? (
          <p className="muted">{gettext('The widget could not be loaded.')}</p>
        ) : (
          <Skeleton widget={meta} />
        )}
      </div>
    </li>
  );
}

export default function Dashboard({ dashboard, canEdit = true, fixedModule = null, widgets: initial = [], choices, currency }) {
  const gettext = useGettext();
  const [widgets, setWidgets] = useState(initial);
  const [editing, setEditing] = useState(null); // null, {} for a new widget, or a widget
  const [reloadKeys, setReloadKeys] = useState({});
  const [status, setStatus] = useState('');
  const saving = useRef(Promise.resolve());
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const multipleModules = hasMultipleModules(widgets);
  const ids = useMemo(() => widgets.map((w) => w.id), [widgets]);
  const titleOf = (id) => {
    const w = widgets.find((x) => x.id === id);
    return widgetLabel(w?.label, { multipleModules, gettext }) || gettext('Widget');
  };
  const position = (id) => ids.indexOf(id) + 1;

  const saveLayout = (order) => {
    saving.current = saving.current.then(() =>
      api.put(`dashboards/${dashboard}/layout`, { ids: order }).catch(() => {
        setStatus(gettext('The order could not be saved.'));
      }),
    );
  };

  const onDragEnd = ({ active, over }) => {
    if (!over || active.id === over.id) return;
    const order = moveId(ids, active.id, over.id);
    setWidgets((current) => order.map((id) => current.find((w) => w.id === id)));
    saveLayout(order);
  };

  const onSaved = (saved) => {
    setWidgets((current) => {
      const index = current.findIndex((w) => w.id === saved.id);
      if (index < 0) return [...current, saved];
      return current.map((w) => (w.id === saved.id ? saved : w));
    });
    setReloadKeys((keys) => ({ ...keys, [saved.id]: (keys[saved.id] || 0) + 1 }));
    setEditing(null);
    setStatus(gettext('The widget is saved.'));
  };

  const onCopy = async (meta) => {
    try {
      const copy = await api.post(`dashboard-widgets/${meta.id}/copy`);
      setWidgets((current) => {
        const index = current.findIndex((w) => w.id === meta.id);
        const next = [...current];
        next.splice(index + 1, 0, copy);
        return next;
      });
      setStatus(gettext('The widget is copied.'));
    } catch {
      /* the client has shown the alert */
    }
  };

  const onRemove = async (meta) => {
    const label = widgetLabel(meta.label, { multipleModules, gettext });
    if (!window.confirm(gettext('Remove the widget %(label)s?', { label }))) return;
    try {
      await api.delete(`dashboard-widgets/${meta.id}`);
      setWidgets((current) => current.filter((w) => w.id !== meta.id));
      setStatus(gettext('The widget is removed.'));
    } catch {
      /* the client has shown the alert */
    }
  };

  const announcements = {
    onDragStart: ({ active }) => gettext('Picked up %(label)s.', { label: titleOf(active.id) }),
    onDragOver: ({ active, over }) =>
      over
        ? gettext('%(label)s is over place %(place)s.', { label: titleOf(active.id), place: position(over.id) })
        : undefined,
    onDragEnd: ({ active, over }) =>
      over
        ? gettext('%(label)s was dropped at place %(place)s.', { label: titleOf(active.id), place: position(over.id) })
        : undefined,
    onDragCancel: ({ active }) => gettext('Moving %(label)s was cancelled.', { label: titleOf(active.id) }),
  };

  const canAdd = canEdit && choices.modules.length > 0;
  return (
    <div className="dashboard">
      {canEdit && (
        <div className="dashboard-toolbar">
          <p className="muted">
            {gettext('Drag a widget by its handle to move it; with the keyboard, press Space on the handle, move it with the arrow keys and press Space again.')}
          </p>
          {canAdd && (
            <button type="button" className="btn btn-primary" onClick={() => setEditing({})}>
              {gettext('Add widget')}
            </button>
          )}
        </div>
      )}
      <p className="visually-hidden" role="status" aria-live="polite">
        {status}
      </p>
      {widgets.length === 0 ? (
        <p className="card muted">
          {canAdd
            ? gettext('Your dashboard has no widgets yet. Add one to see your figures here.')
            : gettext('There are no widgets for the modules you work in.')}
        </p>
      ) : (
        <DndContext
          sensors={sensors}
          collisionDetection={closestCenter}
          onDragEnd={onDragEnd}
          accessibility={{
            announcements,
            screenReaderInstructions: {
              draggable: gettext('To move a widget, press Space, use the arrow keys, and press Space again to drop it or Escape to cancel.'),
            },
          }}
        >
          <SortableContext items={ids} strategy={rectSortingStrategy}>
            <ul className="dashboard-grid">
              {widgets.map((meta) => (
                <WidgetCard
                  key={meta.id}
                  meta={meta}
                  multipleModules={multipleModules}
                  canEditDashboard={canEdit}
                  currency={currency}
                  onEdit={setEditing}
                  onCopy={onCopy}
                  onRemove={onRemove}
                  reloadKey={reloadKeys[meta.id] || 0}
                />
              ))}
            </ul>
          </SortableContext>
        </DndContext>
      )}
      {editing !== null && (
        <WidgetEditor
          dashboard={dashboard}
          widget={editing.id ? editing : null}
          choices={choices}
          fixedModule={fixedModule}
          onClose={() => setEditing(null)}
          onSaved={onSaved}
        />
      )}
    </div>
  );
}
