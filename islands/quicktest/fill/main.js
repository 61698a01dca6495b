// Filling in a quick test on a phone: every field is saved as soon as it changes (a JSON call
// per value, a multipart call per image). A value that cannot be sent (no connection, a server
// hiccup) waits in a queue kept in this page and in sessionStorage, and is sent again every few
// seconds and when the browser is back online, in the order typed; only the newest value of a
// field is kept. Going to another step waits until the queue is empty; without a connection it
// stays on the page and says so, so nothing typed is lost. Without this script the form still
// works: its submit saves the step.

const RETRY_MS = 4000;
const STORE_KEY = 'qt-queue:';

function meta(name) {
  return document.querySelector(`meta[name="${name}"]`)?.content || '';
}

export function createQueue({ send, store, onChange }) {
  // entries: [{key, kind, payload}] where payload is JSON for values, {group, information, file} for images
  let entries = store?.load() || [];

  function persist() {
    store?.save(entries.filter((e) => e.kind === 'value'));
    onChange?.(entries);
  }

  function put(entry) {
    if (entry.kind === 'value') entries = entries.filter((e) => e.key !== entry.key);
    entries.push(entry);
    persist();
    return flush();
  }

  let current = null;

  /** Send what waits, in order; resolves true when the queue is empty, false when a value must
   * wait for the connection. A call while a run is going waits for it and runs again. */
  function flush() {
    if (current) return current.then(() => (entries.length ? flush() : true));
    current = (async () => {
      try {
        while (entries.length) {
          const entry = entries[0];
          const result = await send(entry);
          if (result === 'retry') return false;
          entries = entries.filter((e) => e !== entry);
          persist();
        }
        return true;
      } finally {
        current = null;
      }
    })();
    return current;
  }

  return { put, flush, pending: () => entries.length, entries: () => entries };
}

function start() {
  const form = document.querySelector('[data-qt-fill]');
  if (!form) return;
  const api = form.dataset.api;
  let texts = {};
  try {
    texts = JSON.parse(form.dataset.texts || '{}');
  } catch {
    texts = {};
  }
  const offline = document.querySelector('[data-offline]');
  const status = (key, text, isError) => {
    const node = form.querySelector(`[data-status-for="${key}"]`);
    const error = form.querySelector(`[data-error-for="${key}"]`);
    for (const input of form.querySelectorAll(`[name="${key}"]`)) {
      if (isError) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    }
    if (isError) {
      if (error) {
        error.textContent = text;
        error.hidden = false;
      }
      if (node) node.textContent = '';
    } else {
      if (error) error.hidden = true;
      if (node) node.textContent = text;
    }
  };

  async function send(entry) {
    status(entry.key, texts.saving || '');
    let response;
    try {
      if (entry.kind === 'value') {
        response = await fetch(`${api}/values`, {
          method: 'PUT',
          credentials: 'same-origin',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRFToken': meta('csrf-token') },
          body: JSON.stringify(entry.payload),
        });
      } else {
        const body = new FormData();
        body.append('group', entry.payload.group);
        if (entry.payload.information) body.append('information', entry.payload.information);
        body.append('file', entry.payload.file, entry.payload.file.name || 'photo.jpg');
        response = await fetch(`${api}/images`, {
          method: 'POST',
          credentials: 'same-origin',
          headers: { Accept: 'application/json', 'X-CSRFToken': meta('csrf-token') },
          body,
        });
      }
    } catch {
      status(entry.key, texts.queued || '');
      if (offline) offline.hidden = false;
      return 'retry';
    }
    if (offline) offline.hidden = true;
    if (response.status >= 500 || response.status === 429 || response.status === 401) {
      status(entry.key, texts.queued || '');
      return 'retry';
    }
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      status(entry.key, data.message || texts.failed || '', true);
      return 'done';
    }
    status(entry.key, texts.saved || '');
    if (entry.kind === 'image') showImage(entry, data);
    return 'done';
  }

  function showImage(entry, data) {
    const preview = form.querySelector(`[data-preview="${entry.key}"]`);
    const url = data.fileObject?.smallUrl;
    if (!preview || !url) return;
    const img = document.createElement('img');
    img.src = url;
    img.alt = '';
    if (entry.payload.information) preview.replaceChildren(img);
    else preview.append(img);
  }

  const storageKey = STORE_KEY + api;
  const store = {
    load() {
      try {
        return JSON.parse(sessionStorage.getItem(storageKey) || '[]');
      } catch {
        return [];
      }
    },
    save(values) {
      try {
        if (values.length) sessionStorage.setItem(storageKey, JSON.stringify(values));
        else sessionStorage.removeItem(storageKey);
      } catch {
        /* private mode: the page's own queue still holds them */
      }
    },
  };
  const queue = createQueue({ send, store });
  form.dataset.qtReady = '1';
  window.__qtQueue = queue; // for the browser test

  form.addEventListener('change', (event) => {
    const input = event.target;
    const group = input.dataset.group;
    if (!group) return;
    const key = input.name;
    if (input.type === 'file') {
      for (const file of input.files) {
        queue.put({ key, kind: 'image', payload: { group, information: input.dataset.information || null, file } });
      }
      input.value = '';
      return;
    }
    queue.put({
      key,
      kind: 'value',
      payload: { group: Number(group), information: Number(input.dataset.information), value: input.value },
    });
  });

  // Going to another step: send what waits first; without a connection, stay.
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const submitter = event.submitter;
    if (await queue.flush()) {
      // The images are sent already; the form must not send them again.
      for (const input of form.querySelectorAll('input[type=file]')) input.disabled = true;
      if (submitter?.name) {
        const go = document.createElement('input');
        go.type = 'hidden';
        go.name = submitter.name;
        go.value = submitter.value;
        form.append(go);
      }
      form.submit();
    } else if (offline) {
      offline.hidden = false;
    }
  });

  setInterval(() => {
    if (queue.pending()) queue.flush();
  }, RETRY_MS);
  window.addEventListener('online', () => queue.flush());
  if (queue.pending()) queue.flush();
}

if (typeof document !== 'undefined') start();
