// The widget editor: every field of a widget, checked by the server (422 with a message per
// field, shown under the field, everything typed kept).
import { useEffect, useRef, useState } from 'react';
import { api } from '../../lib/api.js';
import { Dialog } from '../../lib/dialog.js';
import { described, Field } from '../../lib/field.js';
import { useGettext } from '../../lib/i18n.js';
import { editorPayload, initialForm } from './form.js';

export function WidgetEditor({ dashboard, widget, choices, fixedModule, onClose, onSaved }) {
  const gettext = useGettext();
  const [form, setForm] = useState(() => initialForm(widget, fixedModule, choices));
  const [errors, setErrors] = useState({});
  const [saving, setSaving] = useState(false);
  const firstRef = useRef(null);
  const alertRef = useRef(null);
  const set = (name) => (event) => {
    const target = event.target;
    let value = target.type === 'checkbox' ? target.checked : target.value;
    if (target.multiple) value = [...target.selectedOptions].map((o) => o.value);
    setForm((f) => ({ ...f, [name]: value }));
  };
  const setFilter = (name) => (event) =>
    setForm((f) => ({ ...f, itemFilters: { ...f.itemFilters, [name]: event.target.value } }));
  const setCondition = (index, name) => (event) =>
    setForm((f) => ({
      ...f,
      colorConditions: f.colorConditions.map((c, n) => (n === index ? { ...c, [name]: event.target.value } : c)),
    }));
  const addCondition = () =>
    setForm((f) => ({ ...f, colorConditions: [...f.colorConditions, { operator: 'lt', value: '', color: '#067647' }] }));
  const removeCondition = (index) =>
    setForm((f) => ({ ...f, colorConditions: f.colorConditions.filter((_, n) => n !== index) }));

  const submit = async (event) => {
    event.preventDefault();
    if (saving) return;
    setSaving(true);
    setErrors({});
    const body = editorPayload(form, dashboard);
    try {
      const saved = widget?.id
        ? await api.put(`dashboard-widgets/${widget.id}`, body, { handleErrors: false })
        : await api.post('dashboard-widgets', body, { handleErrors: false });
      onSaved(saved);
    } catch (error) {
      if (error?.status === 422) {
        setErrors(error.body?.errors || { form: error.body?.message });
      } else {
        setErrors({ form: gettext('The widget could not be saved. Try again.') });
      }
    } finally {
      setSaving(false);
    }
  };

  // a refused save: the focus goes to the summary above the fields, which the reader hears
  useEffect(() => {
    if (Object.keys(errors).length) alertRef.current?.focus();
  }, [errors]);

  const type = form.type;
  const e = (name) => errors[name];
  const title = widget?.id ? gettext('Edit widget') : gettext('Add widget');
  const errorCount = Object.keys(errors).length;

  return (
    <Dialog title={title} className="widget-editor" onEscape={onClose} onOpen={() => firstRef.current?.focus()}>
        <form onSubmit={submit} noValidate>
          {errorCount > 0 && (
            <div className="alert alert-danger" role="alert" tabIndex={-1} ref={alertRef}>
              {errors.form || gettext('Check the fields marked below.')}
            </div>
          )}
          <div className="form-grid">
            <Field id="we-type" label={gettext('Kind of widget')} error={e('type')}>
              <select id="we-type" ref={firstRef} value={type} onChange={set('type')} {...described('we-type', e('type'))}>
                <option value="">{gettext('Choose…')}</option>
                <option value="number">{gettext('Number')}</option>
                <option value="chart">{gettext('Chart')}</option>
                <option value="numberSummary">{gettext('Summary')}</option>
                <option value="list">{gettext('List')}</option>
                <option value="customList">{gettext('Custom list')}</option>
                <option value="tier">{gettext('Tier')}</option>
                <option value="bookings">{gettext('Bookings')}</option>
                <option value="reconCost">{gettext('Reconditioning cost')}</option>
              </select>
            </Field>
            <Field id="we-title" label={gettext('Label')} error={e('title')}>
              {/* Empty: the widget reads its default title in each reader's language (shown greyed). */}
              <input id="we-title" type="text" value={form.title} placeholder={widget?.defaultTitle || ''} onChange={set('title')} {...described('we-title', e('title'))} />
            </Field>
            {!fixedModule && (
              <Field id="we-module" label={gettext('Module')} error={e('module')}>
                <select id="we-module" value={form.module} onChange={set('module')} {...described('we-module', e('module'))}>
                  <option value="">{gettext('Choose…')}</option>
                  {choices.modules.map((m) => (
                    <option key={m.value} value={m.value}>
                      {m.label}
                    </option>
                  ))}
                </select>
              </Field>
            )}
            <Field id="we-divisions" label={gettext('Divisions')} error={e('divisions')}>
              <select
                id="we-divisions"
                multiple
                size={Math.min(6, choices.divisions.length || 1)}
                value={form.divisions}
                onChange={set('divisions')}
                {...described('we-divisions', e('divisions'))}
              >
                {choices.divisions.map((d) => (
                  <option key={d.value} value={d.value}>
                    {'\u00a0'.repeat(d.level * 2)}
                    {d.label}
                  </option>
                ))}
              </select>
            </Field>
            {(type === 'number' || type === 'chart') && (
              <Field id="we-metric" label={gettext('Figure')} error={e('metric')}>
                <select id="we-metric" value={form.metric} onChange={set('metric')} {...described('we-metric', e('metric'))}>
                  <option value="">{gettext('Choose…')}</option>
                  {(type === 'chart' ? choices.chartMetrics : choices.metrics).map((m) => (
                    <option key={m.value} value={m.value}>
                      {m.label}
                    </option>
                  ))}
                </select>
              </Field>
            )}
            {type === 'number' && (
              <Field id="we-period" label={gettext('Period')} error={e('period')}>
                <select id="we-period" value={form.period} onChange={set('period')} {...described('we-period', e('period'))}>
                  {choices.periods.map((p) => (
                    <option key={p.value} value={p.value}>
                      {p.label}
                    </option>
                  ))}
                </select>
              </Field>
            )}
            {type === 'chart' && (
              <>
                <Field id="we-chart-type" label={gettext('Chart type')} error={e('chartType')}>
                  <select id="we-chart-type" value={form.chartType} onChange={set('chartType')}>
                    <option value="bar">{gettext('Bars')}</option>
                    <option value="line">{gettext('Line')}</option>
                  </select>
                </Field>
                <Field id="we-tick-span" label={gettext('Per')} error={e('tickSpan')}>
                  <select id="we-tick-span" value={form.tickSpan} onChange={set('tickSpan')}>
                    <option value="month">{gettext('Month')}</option>
                    <option value="week">{gettext('Week')}</option>
                  </select>
                </Field>
              </>
            )}
            {type === 'list' && (
              <Field id="we-group" label={gettext('Group by')} error={e('groupBy')}>
                <select id="we-group" value={form.groupBy} onChange={set('groupBy')}>
                  {choices.groups.map((g) => (
                    <option key={g.value} value={g.value}>
                      {g.label}
                    </option>
                  ))}
                </select>
              </Field>
            )}
            {type === 'customList' && (
              <>
                <Field id="we-list" label={gettext('Custom list')} error={e('customListId')}>
                  <select id="we-list" value={form.customListId} onChange={set('customListId')} {...described('we-list', e('customListId'))}>
                    <option value="">{gettext('Choose…')}</option>
                    {choices.customLists.map((l) => (
                      <option key={l.value} value={l.value}>
                        {l.label}
                      </option>
                    ))}
                  </select>
                </Field>
                <Field id="we-manage" label={gettext('Vehicle links open')} error={e('manage')}>
                  <select id="we-manage" value={form.manage} onChange={set('manage')}>
                    <option value="">{gettext('The vehicle itself')}</option>
                    <option value="hub">{gettext('The hub vehicle')}</option>
                    <option value="central">{gettext('The central vehicle')}</option>
                  </select>
                </Field>
                <div className="form-field form-check">
                  <input
                    id="we-state-buttons"
                    type="checkbox"
                    checked={form.showStateInteractionButtons}
                    onChange={set('showStateInteractionButtons')}
                  />{' '}
                  <label htmlFor="we-state-buttons">{gettext('Show the state buttons')}</label>
                </div>
              </>
            )}
            {type === 'number' && (
              <>
                <div className="form-field form-check">
                  <input id="we-gauge" type="checkbox" checked={form.gauge} onChange={set('gauge')} />{' '}
                  <label htmlFor="we-gauge">{gettext('Show a gauge')}</label>
                  {e('gauge') && <p className="field-error">{e('gauge')}</p>}
                </div>
                <Field
                  id="we-minimum"
                  label={gettext('Gauge minimum')}
                  error={e('minimum')}
                  hint={gettext('The gauge starts here (0 when empty).')}
                >
                  <input id="we-minimum" type="text" inputMode="decimal" value={form.minimum} onChange={set('minimum')} {...described('we-minimum', e('minimum'), true)} />
                </Field>
              </>
            )}
            {(type === 'number' || type === 'chart') && (
              <div className="form-field form-check">
                <input id="we-goals" type="checkbox" checked={form.showGoals} onChange={set('showGoals')} />{' '}
                <label htmlFor="we-goals">{gettext('Show the goal')}</label>
              </div>
            )}
            <Field
              id="we-auto"
              label={gettext('Auto-update (seconds)')}
              error={e('autoUpdate')}
              hint={gettext('0 for none, else 10 to 3600.')}
            >
              <input id="we-auto" type="text" inputMode="numeric" value={form.autoUpdate} onChange={set('autoUpdate')} {...described('we-auto', e('autoUpdate'), true)} />
            </Field>
            <Field id="we-h" label={gettext('Height')} error={e('h')}>
              <select id="we-h" value={form.h} onChange={set('h')}>
                {[1, 2, 3].map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="we-w" label={gettext('Width')} error={e('w')}>
              <select id="we-w" value={form.w} onChange={set('w')}>
                {[1, 2, 3, 4].map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          {(type === 'number' || type === 'chart') && (
            <fieldset className="widget-editor-conditions">
              <legend>{gettext('Colour conditions (the first that matches sets the colour)')}</legend>
              {e('colorConditions') && <p className="field-error">{e('colorConditions')}</p>}
              {form.colorConditions.map((c, n) => (
                <div className="condition-row" key={n}>
                  <label className="visually-hidden" htmlFor={`we-c${n}-op`}>
                    {gettext('Comparison %(n)s', { n: n + 1 })}
                  </label>
                  <select id={`we-c${n}-op`} value={c.operator} onChange={setCondition(n, 'operator')}>
                    <option value="lt">{gettext('less than')}</option>
                    <option value="gt">{gettext('greater than')}</option>
                  </select>
                  <label className="visually-hidden" htmlFor={`we-c${n}-value`}>
                    {gettext('Value %(n)s', { n: n + 1 })}
                  </label>
                  <input
                    id={`we-c${n}-value`}
                    type="text"
                    inputMode="decimal"
                    value={c.value}
                    onChange={setCondition(n, 'value')}
                    {...described(`we-c${n}-value`, e(`colorConditions.${n}.value`))}
                  />
                  <label className="visually-hidden" htmlFor={`we-c${n}-color`}>
                    {gettext('Colour %(n)s', { n: n + 1 })}
                  </label>
                  <input id={`we-c${n}-color`} type="color" value={c.color} onChange={setCondition(n, 'color')} />
                  <button type="button" className="btn btn-secondary btn-small" onClick={() => removeCondition(n)}>
                    {gettext('Remove')}
                  </button>
                  {['operator', 'value', 'color'].map(
                    (k) =>
                      e(`colorConditions.${n}.${k}`) && (
                        <p className="field-error" id={`we-c${n}-${k}-error`} key={k}>
                          {e(`colorConditions.${n}.${k}`)}
                        </p>
                      ),
                  )}
                </div>
              ))}
              <button type="button" className="btn btn-secondary btn-small" onClick={addCondition}>
                {gettext('Add colour condition')}
              </button>
            </fieldset>
          )}
          {type !== 'customList' && type !== 'tier' && type !== 'bookings' && type !== 'reconCost' && (
            <fieldset className="widget-editor-filters">
              <legend>{gettext('Vehicle filters')}</legend>
              <div className="form-grid">
                <Field id="we-f-state" label={gettext('State')} error={e('itemFilters.enum[state]')}>
                  <select id="we-f-state" value={form.itemFilters['enum[state]'] || ''} onChange={setFilter('enum[state]')}>
                    <option value="">{gettext('Every state')}</option>
                    {(choices.states || []).map((s) => (
                      <option key={s.value} value={s.value}>
                        {s.label}
                      </option>
                    ))}
                  </select>
                </Field>
                <Field id="we-f-brand" label={gettext('Brand')} error={e('itemFilters.brand')}>
                  <input id="we-f-brand" type="text" value={form.itemFilters.brand || ''} onChange={setFilter('brand')} />
                </Field>
                <Field id="we-f-fuel" label={gettext('Fuel type')} error={e('itemFilters.fuelType')}>
                  <input id="we-f-fuel" type="text" value={form.itemFilters.fuelType || ''} onChange={setFilter('fuelType')} />
                </Field>
                <Field
                  id="we-f-days"
                  label={gettext('Days in state from')}
                  error={e('itemFilters.advancedFilter[daysInStateFrom]')}
                >
                  <input
                    id="we-f-days"
                    type="text"
                    inputMode="numeric"
                    value={form.itemFilters['advancedFilter[daysInStateFrom]'] || ''}
                    onChange={setFilter('advancedFilter[daysInStateFrom]')}
                    {...described('we-f-days', e('itemFilters.advancedFilter[daysInStateFrom]'))}
                  />
                </Field>
              </div>
            </fieldset>
          )}
          <div className="form-actions">
            <button type="submit" className="btn btn-primary" disabled={saving}>
              {gettext('Save widget')}
            </button>
            <button type="button" className="btn btn-secondary" onClick={onClose}>
              {gettext('Cancel')}
            </button>
          </div>
        </form>
    </Dialog>
  );
}
