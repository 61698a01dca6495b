// Bundles the islands and the stylesheet into static/dist and writes static/dist/manifest.json,
// which app/core/islands.py reads to emit the <link> and <script> tags.
// static/dist/i18n/ belongs to the Python build (translation catalogues) and is left alone.
// The service worker is built last, unhashed, as static/dist/sw.js (served at /sw.js).
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'static', 'dist');
const KEEP = new Set(['i18n']);
const ENTRIES = {
  'main.js': 'islands/main.jsx',
  'app.css': 'islands/shell/app.css',
  'print.css': 'islands/shell/print/print.css',
};
// The public market pages load only their own script (no shell): React in one chunk shared by
// every public page (hashed, so cached immutable), the page's entry and what it shares with the
// others. public.html preloads the whole set, so a phone fetches it at once, without a chain.
// A bidder's link loads market-bid.js; a seller's allocate or change-status link the
// seller's entry, which adds the seller's forms.
const PUBLIC_ENTRIES = {
  'market-bid.js': 'islands/market/bid/main.js',
  'market-bid-seller.js': 'islands/market/bid/seller.js',
  'market-invite.js': 'islands/market/invite/main.js',
  'print.js': 'islands/shell/print/print.js',
  'quicktest-fill.js': 'islands/quicktest/fill/main.js',
  'purchase-print.js': 'islands/purchase/print/main.js',
};

async function clean() {
  await mkdir(outdir, { recursive: true });
  for (const name of await readdir(outdir)) {
    if (!KEEP.has(name)) await rm(path.join(outdir, name), { recursive: true, force: true });
  }
}

/** Output path (relative to static/dist, with forward slashes) of an esbuild output key. */
function relative(outputKey) {
  return path.relative(outdir, path.join(root, outputKey)).split(path.sep).join('/');
}

/** Every chunk `start` loads through static imports, directly or through other chunks. */
function staticChunks(outputs, start) {
  const seen = new Set();
  const visit = (key) => {
    for (const imported of outputs[key].imports) {
      if (imported.kind !== 'import-statement' || imported.external || seen.has(imported.path)) {
        continue;
      }
      seen.add(imported.path);
      visit(imported.path);
    }
  };
  visit(start);
  return [...seen];
}

/** Output file of each entry point of an esbuild metafile, by entry path. */
function outputsByEntry(metafile) {
  const byEntry = new Map();
  for (const [key, output] of Object.entries(metafile.outputs)) {
    if (output.entryPoint) byEntry.set(output.entryPoint, key);
  }
  return byEntry;
}

/**
 * Each island's output key, by the island's name: an island lives in
 * islands/<feature>/<island>/index.js(x), the feature being the app/ package that owns its data.
 */
function islandOutputs(byEntry) {
  const found = new Map();
  for (const [entry, key] of byEntry) {
    const match = /^islands\/[^/]+\/([^/]+)\/index\.jsx?$/.exec(entry);
    if (match) found.set(match[1], key);
  }
  return found;
}

function manifestFrom(metafile, publicMetafile) {
  const outputs = metafile.outputs;
  const byEntry = outputsByEntry(metafile);
  const publicByEntry = outputsByEntry(publicMetafile);
  const manifest = {};
  for (const [entries, found] of [
    [ENTRIES, byEntry],
    [PUBLIC_ENTRIES, publicByEntry],
  ]) {
    for (const [logical, entry] of Object.entries(entries)) {
      const key = found.get(entry);
      if (!key) throw new Error(`esbuild produced no output for ${entry}`);
      manifest[logical] = relative(key);
    }
  }
  // Each public page's static chunks (React's shared one among them), for its preload tags.
  manifest.publicChunks = {};
  for (const [logical, entry] of Object.entries(PUBLIC_ENTRIES)) {
    const key = publicByEntry.get(entry);
    manifest.publicChunks[logical] = staticChunks(publicMetafile.outputs, key).map(relative).sort();
  }
  const mainKey = byEntry.get(ENTRIES['main.js']);
  manifest.chunks = staticChunks(outputs, mainKey).map(relative).sort();
  // Each island's own chunk, in case a page wants to preload the islands it is sure to mount.
  manifest.islands = {};
  for (const [name, key] of islandOutputs(byEntry)) manifest.islands[name] = relative(key);
  return manifest;
}

await clean();
const common = {
  absWorkingDir: root,
  outdir,
  bundle: true,
  format: 'esm',
  minify: true,
  sourcemap: false,
  target: 'es2020',
  metafile: true,
  logLevel: 'warning',
};
const result = await esbuild.build({
  ...common,
  entryPoints: Object.values(ENTRIES),
  splitting: true,
  jsx: 'automatic',
  entryNames: '[name]-[hash]',
  chunkNames: 'chunks/[name]-[hash]',
  define: { 'process.env.NODE_ENV': '"production"' },
});
const publicResult = await esbuild.build({
  ...common,
  entryPoints: Object.values(PUBLIC_ENTRIES),
  splitting: true,
  jsx: 'automatic',
  entryNames: 'public/[dir]-[name]-[hash]',
  chunkNames: 'public/chunks/[name]-[hash]',
  define: { 'process.env.NODE_ENV': '"production"' },
});

/** Every hashed file the manifest names: what the service worker pre-caches. */
function manifestFiles(manifest) {
  const files = [manifest['main.js'], manifest['app.css'], ...manifest.chunks];
  files.push(...Object.values(manifest.islands));
  return [...new Set(files)].sort();
}

/**
 * static/dist/sw.js, with the bundle version and file list written in: every build that changes
 * a bundle changes this file, which is how the browser notices an update. The version is the
 * first 12 hex digits of the manifest's SHA-256, as app/core/islands.py computes it.
 */
async function buildServiceWorker(manifestText, manifest) {
  const version = createHash('sha256').update(manifestText).digest('hex').slice(0, 12);
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['islands/sw.js'],
    outfile: path.join(outdir, 'sw.js'),
    bundle: true,
    format: 'iife',
    minify: true,
    target: 'es2020',
    logLevel: 'warning',
    define: {
      __SW_VERSION__: JSON.stringify(version),
      __SW_FILES__: JSON.stringify(manifestFiles(manifest)),
    },
  });
  return version;
}

/**
 * Bytes of a built file, raw and gzipped (level 9), by its static/dist path. The gzipped copy is
 * written beside it (`.gz`): app/core/islands.py sends it to browsers that accept gzip.
 */
async function fileSizes(files) {
  const sizes = {};
  for (const file of [...new Set(files)].sort()) {
    const bytes = await readFile(path.join(outdir, file));
    const gzipped = gzipSync(bytes, { level: 9 });
    await writeFile(path.join(outdir, `${file}.gz`), gzipped);
    sizes[file] = { bytes: bytes.length, gzip: gzipped.length };
  }
  return sizes;
}

/** One page's files (the entry or island and every chunk it loads through static imports). */
function bundleOf(files, sizes) {
  const js = files.filter((f) => f.endsWith('.js'));
  const css = files.filter((f) => f.endsWith('.css'));
  const sum = (list) => list.reduce((total, f) => total + sizes[f].gzip, 0);
  return { js, css, jsGzip: sum(js), cssGzip: sum(css) };
}

/**
 * static/dist/sizes.json, the budgets' report: every built file's size (raw and gzip), and what
 * each kind of page loads. A staff page loads the stylesheet, main.js with its static chunks and,
 * on demand, the chunks of the islands on it (`islands`: an island's own chunk and the chunks it
 * loads that main.js does not). A public page loads the stylesheet and its entry with its static
 * chunks (`public`). tests/browser/test_budgets.py holds each page of the walk to its budget.
 */
async function writeSizes(manifest) {
  const outputs = Object.keys(result.metafile.outputs).map(relative);
  const publicOutputs = Object.keys(publicResult.metafile.outputs).map(relative);
  const sizes = await fileSizes([...outputs, ...publicOutputs]);
  const css = [manifest['app.css']];
  const shell = [manifest['main.js'], ...manifest.chunks];
  const report = { files: sizes, staff: bundleOf([...css, ...shell], sizes), islands: {}, public: {} };
  const byEntry = outputsByEntry(result.metafile);
  for (const [name, key] of islandOutputs(byEntry)) {
    const file = manifest.islands[name];
    const own = [file, ...staticChunks(result.metafile.outputs, key).map(relative)];
    report.islands[name] = bundleOf(own.filter((f) => !shell.includes(f)), sizes);
  }
  for (const logical of Object.keys(PUBLIC_ENTRIES)) {
    const files = [...css, manifest[logical], ...manifest.publicChunks[logical]];
    report.public[logical] = bundleOf(files, sizes);
  }
  await writeFile(path.join(outdir, 'sizes.json'), `${JSON.stringify(report, null, 2)}\n`);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  const lines = [`staff shell: JS ${kb(report.staff.jsGzip)}, CSS ${kb(report.staff.cssGzip)}`];
  for (const [name, b] of Object.entries(report.islands)) lines.push(`  + ${name}: JS ${kb(b.jsGzip)}`);
  for (const [name, b] of Object.entries(report.public)) {
    lines.push(`public ${name}: JS ${kb(b.jsGzip)}, CSS ${kb(b.cssGzip)}`);
  }
  console.log(`static/dist/sizes.json (gzip):\n${lines.join('\n')}`);
}

const manifest = manifestFrom(result.metafile, publicResult.metafile);
const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
await writeFile(path.join(outdir, 'manifest.json'), manifestText);
console.log(`static/dist/manifest.json: ${JSON.stringify(manifest)}`);
const swVersion = await buildServiceWorker(manifestText, manifest);
await writeSizes(manifest);
console.log(`static/dist/sw.js: bundle version ${swVersion}`);
