// The only page script. It loads the translations, mounts every [data-island] element and
// enhances plain server-rendered markup. Each island is its own chunk, loaded on demand, from
// islands/<feature>/<island>/ (the feature: the app/ package that owns the island's data).
import { createRoot } from 'react-dom/client';
import { rememberVersion } from './lib/api.js';
import { enhanceForms } from './lib/form-guard.js';
import { enhanceInPlace, IN_PLACE_EVENT } from './lib/in-place.js';
import { loadCatalogue } from './lib/i18n.js';
import { enhanceMenus } from './lib/menu.js';
import { enhanceRoleForms } from './lib/role-form.js';
import { keepScrollersFocusable } from './lib/scrollers.js';
import { enhanceShell } from './lib/shell.js';

const islands = {
  'admin-import-progress': () => import('./admin/import-progress/index.jsx'),
  alerts: () => import('./shell/alerts/index.jsx'),
  'custom-list': () => import('./preparation/custom-list/index.jsx'),
  dashboard: () => import('./dashboard/dashboard/index.jsx'),
  'login-modal': () => import('./auth/login-modal/index.jsx'),
  'statistics-chart': () => import('./shell/statistics-chart/index.jsx'),
  'system-messages': () => import('./messages/system-messages/index.jsx'),
  'tier-summary': () => import('./ranking/tier-summary/index.jsx'),
  'top-selector': () => import('./shell/top-selector/index.jsx'),
  'user-settings': () => import('./account/user-settings/index.jsx'),
};

function readProps(el) {
  try {
    return JSON.parse(el.dataset.islandProps || '{}');
  } catch (error) {
    console.error(`Island "${el.dataset.island}" has unreadable props`, error);
    return null;
  }
}

async function mount(el) {
  const name = el.dataset.island;
  const load = islands[name];
  if (!load) {
    console.error(`Unknown island "${name}"`);
    return;
  }
  const props = readProps(el);
  if (props === null) return;
  el.dataset.islandMounted = 'true';
  try {
    const { default: Component } = await load();
    createRoot(el).render(<Component {...props} />);
  } catch (error) {
    // The server-rendered fallback stays in place.
    delete el.dataset.islandMounted;
    console.error(`Island "${name}" failed to load`, error);
  }
}

/** Mount every island under `root` that is not mounted yet. */
export function mountIslands(root = document) {
  const pending = [];
  for (const el of root.querySelectorAll('[data-island]')) {
    if (!el.dataset.islandMounted) pending.push(mount(el));
  }
  return Promise.all(pending);
}

async function start() {
  rememberVersion(document.documentElement.dataset.version);
  enhanceMenus(); // first: its cc:new-version listener must run before shell.js's
  enhanceShell();
  enhanceForms();
  enhanceInPlace();
  document.addEventListener(IN_PLACE_EVENT, ({ detail }) => {
    enhanceForms(detail.region);
    mountIslands(detail.region);
  });
  enhanceRoleForms();
  keepScrollersFocusable();
  // The menu tree needs no catalogue (its texts come with its props): hydrate it first.
  const menus = document.getElementById('menu-tree-props')
    ? import('./shell/menu-tree/index.js').then(({ hydrateMenus }) => hydrateMenus())
    : null;
  menus?.catch((error) => console.error('The menu tree failed to load', error));
  try {
    await loadCatalogue();
  } catch (error) {
    console.error('Translations could not be loaded; showing untranslated text', error);
  }
  await mountIslands();
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', start, { once: true });
} else {
  start();
}
