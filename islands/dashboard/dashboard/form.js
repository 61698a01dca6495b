// The widget editor's form state and the body it sends: free of React for the tests.

/** The editor's fields for a widget (or a new one). */
export function initialForm(widget, fixedModule, choices = {}) {
  const o = widget?.options || {};
  return {
    type: widget?.type && widget.type !== 'error' ? widget.type : 'number',
    title: widget?.title || '',
    module: fixedModule || o.module || choices.modules?.[0]?.value || '',
    divisions: o.divisions || ['all'],
    metric: o.metric || 'count',
    period: o.period || 'month',
    chartType: o.chartType || 'bar',
    tickSpan: o.tickSpan || 'month',
    groupBy: o.groupBy || 'state',
    customListId: o.customListId ? String(o.customListId) : '',
    manage: widget?.config?.manage || '',
    showStateInteractionButtons: Boolean(widget?.config?.showStateInteractionButtons),
    colorConditions: (o.colorConditions || []).map((c) => ({ ...c, value: String(c.value) })),
    gauge: Boolean(o.gauge),
    minimum: o.minimum === null || o.minimum === undefined ? '' : String(o.minimum),
    showGoals: !widget?.config?.hideGoals,
    autoUpdate: String(widget?.autoUpdate ?? 0),
    h: String(widget?.h || 1),
    w: String(widget?.w || 1),
    itemFilters: { ...(widget?.itemFilters || {}) },
  };
}

/** A typed number, or the text as typed (the server answers with the field's message). */
export function numberOrText(text) {
  const value = String(text ?? '').trim().replace(',', '.');
  if (value === '') return null;
  return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : String(text);
}

/** The body of POST/PUT dashboard-widgets. */
export function editorPayload(form, dashboard) {
  return {
    dashboard,
    type: form.type,
    title: form.title,
    module: form.module || null,
    divisions: form.divisions,
    metric: form.metric,
    period: form.period,
    chartType: form.chartType,
    tickSpan: form.tickSpan,
    groupBy: form.groupBy,
    customListId: form.customListId === '' ? null : numberOrText(form.customListId),
    manage: form.manage || null,
    showStateInteractionButtons: Boolean(form.showStateInteractionButtons),
    colorConditions: form.colorConditions.map((c) => ({
      operator: c.operator,
      value: numberOrText(c.value),
      color: c.color,
    })),
    gauge: form.gauge,
    minimum: numberOrText(form.minimum),
    hideGoals: !form.showGoals,
    autoUpdate: numberOrText(form.autoUpdate) ?? 0,
    h: Number(form.h),
    w: Number(form.w),
    itemFilters: Object.fromEntries(
      Object.entries(form.itemFilters).filter(([, value]) => String(value ?? '').trim() !== ''),
    ),
  };
}
