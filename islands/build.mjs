// Bundles the islands and the stylesheet into static/dist and writes static/dist/manifest.json,
// which app/core/islands.py reads to emit the <link> and <script> tags.
// static/dist/i18n/ belongs to the Python build (translation catalogues) and is left alone.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'static', 'dist');
const KEEP = new Set(['i18n']);
const ENTRIES = { 'main.js': 'islands/main.jsx', 'app.css': 'islands/styles/app.css' };

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

function manifestFrom(metafile) {
  const outputs = metafile.outputs;
  const byEntry = new Map();
  for (const [key, output] of Object.entries(outputs)) {
    if (output.entryPoint) byEntry.set(output.entryPoint, key);
  }
  const manifest = {};
  for (const [logical, entry] of Object.entries(ENTRIES)) {
    const key = byEntry.get(entry);
    if (!key) throw new Error(`esbuild produced no output for ${entry}`);
    manifest[logical] = relative(key);
  }
  const mainKey = byEntry.get(ENTRIES['main.js']);
  manifest.chunks = staticChunks(outputs, mainKey).map(relative).sort();
  // Each island's own chunk, in case a page wants to preload the islands it is sure to mount.
  manifest.islands = {};
  for (const [entry, key] of byEntry) {
    const match = /^islands\/([^/]+)\/index\.jsx$/.exec(entry);
    if (match) manifest.islands[match[1]] = relative(key);
  }
  return manifest;
}

await clean();
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: Object.values(ENTRIES),
  outdir,
  bundle: true,
  format: 'esm',
  splitting: true,
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  target: 'es2020',
  entryNames: '[name]-[hash]',
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
});

const manifest = manifestFrom(result.metafile);
await writeFile(path.join(outdir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`static/dist/manifest.json: ${JSON.stringify(manifest)}`);
