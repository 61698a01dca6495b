// "My settings": language, landing page and time zone. A new language or time zone reloads the
// page shortly after saving, so the server-rendered parts switch language and times too.
import { useId, useRef, useState } from 'react';
import { pushAlert } from '../../lib/alerts.js';
import { api, reportApiError } from '../../lib/api.js';
import { described, Field } from '../../lib/field.js';
import { useGettext } from '../../lib/i18n.js';

/** Time for the success alert to be seen before the page reloads in the new language. */
const RELOAD_DELAY_MS = 800;
const FIELDS = ['language', 'landingPage', 'timeZone'];

function Select({ id, name, label, value, options, error, hint, onChange }) {
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      <select
        id={id}
        name={name}
        value={value}
        onChange={(event) => onChange(name, event.target.value)}
        {...described(id, error, hint)}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

export default function UserSettings({
  language = '',
  languages = [],
  landingPage = '',
  landingPages = [],
  timeZone = '',
  timeZones = [],
  countryTimeZone = '',
  saveUrl = 'me/options',
}) {
  const gettext = useGettext();
  const ids = useId();
  const [values, setValues] = useState({ language, landingPage: landingPage ?? '', timeZone });
  const [errors, setErrors] = useState({});
  const [saving, setSaving] = useState(false);
  const saved = useRef({ language, timeZone });
  const formRef = useRef(null);

  const onChange = (name, value) => {
    setValues((current) => ({ ...current, [name]: value }));
    setErrors((current) => ({ ...current, [name]: undefined }));
  };

  const onSubmit = async (event) => {
    event.preventDefault();
    if (saving) return;
    setSaving(true);
    setErrors({});
    try {
      await api.patch(saveUrl, values, { handleErrors: false });
      pushAlert({ type: 'success', message: gettext('Your settings have been saved.') });
      const before = saved.current;
      saved.current = { language: values.language, timeZone: values.timeZone };
      if (values.language !== before.language || values.timeZone !== before.timeZone) {
        setTimeout(() => window.location.reload(), RELOAD_DELAY_MS);
      }
    } catch (failure) {
      const fieldErrors = failure?.status === 422 ? failure.body?.errors : null;
      if (fieldErrors && Object.keys(fieldErrors).length) {
        setErrors(fieldErrors);
        for (const [name, message] of Object.entries(fieldErrors)) {
          if (!FIELDS.includes(name)) pushAlert({ type: 'danger', message });
        }
        const first = FIELDS.find((name) => fieldErrors[name]);
        if (first) formRef.current?.elements.namedItem(first)?.focus();
      } else {
        reportApiError(failure);
      }
    } finally {
      setSaving(false);
    }
  };

  const languageOptions = languages.map(({ code, label }) => ({ value: code, label }));
  return (
    <form
      ref={formRef}
      className="user-settings"
      onSubmit={onSubmit}
      aria-busy={saving || undefined}
    >
      <Select
        id={`${ids}-language`}
        name="language"
        label={gettext('Language')}
        value={values.language}
        options={languageOptions}
        error={errors.language}
        onChange={onChange}
      />
      <Select
        id={`${ids}-landing-page`}
        name="landingPage"
        label={gettext('Landing page')}
        value={values.landingPage}
        options={landingPages}
        error={errors.landingPage}
        onChange={onChange}
      />
      <Select
        id={`${ids}-time-zone`}
        name="timeZone"
        label={gettext('Time zone')}
        value={values.timeZone}
        options={timeZones}
        error={errors.timeZone}
        hint={
          countryTimeZone
            ? gettext("Dates and times on every page and in your e-mails. Your country's time zone: %(zone)s.", {
                zone: countryTimeZone.replaceAll('_', ' '),
              })
            : gettext('Dates and times on every page and in your e-mails.')
        }
        onChange={onChange}
      />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={saving}>
          {saving && <span className="spinner" aria-hidden="true" />}
          {gettext('Save')}
        </button>
      </div>
    </form>
  );
}
