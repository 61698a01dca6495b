// Bundles the islands and the stylesheet into static/dist and writes static/dist/manifest.json,
// which app/core/islands.py reads to emit the <link> and <script> tags.
// static/dist/i18n/ belongs to the Python build (translation catalogues) and is left alone.
// The service worker is built last, unhashed, as static/dist/sw.js (served at /sw.js).
import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'static', 'dist');
const KEEP = new Set(['i18n']);
const ENTRIES = {
  'main.js': 'islands/main.jsx',
  'app.css': 'islands/styles/app.css',
  'print.css': 'islands/print/print.css',
};
// The public market pages load only their own script (no shell): React in one chunk shared by
// every public page (hashed, so cached immutable), the page's entry and what it shares with the
// others. public.html preloads the whole set, so a phone fetches it at once, without a chain.
// A bidder's link loads market-bid.js; a seller's allocate or change-status link the
// seller's entry, which adds the seller's forms.
const PUBLIC_ENTRIES = {
  'market-bid.js': 'islands/market-bid/main.js',
  'market-bid-seller.js': 'islands/market-bid/seller.js',
  'market-invite.js': 'islands/market-invite/main.js',
  'print.js': 'islands/print/print.js',
  'quicktest-fill.js': 'islands/quicktest/fill.js',
  'purchase-print.js': 'islands/purchase-print/main.js',
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
  for (const [entry, key] of byEntry) {
    const match = /^islands\/([^/]+)\/index\.jsx?$/.exec(entry);
    if (match) manifest.islands[match[1]] = relative(key);
  }
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

const manifest = manifestFrom(result.metafile, publicResult.metafile);
const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
await writeFile(path.join(outdir, 'manifest.json'), manifestText);
console.log(`static/dist/manifest.json: ${JSON.stringify(manifest)}`);
const swVersion = await buildServiceWorker(manifestText, manifest);
console.log(`static/dist/sw.js: bundle version ${swVersion}`);
