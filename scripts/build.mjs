// Bundles the CLI into dist/ (run by `npm install` through `prepare`, and by `npm run build`).
// One ESM entry, node_modules left external, and code splitting so that every `await import()` of our own code
// (the controller, session manager, renderers' helpers) becomes a chunk loaded only by the commands that need it:
// start-up cost is what `ctl --help` and a TAB pay on every run.
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist');

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // extra-typings only adds types over commander's classes (its runtime re-exports them): loading commander directly
  // saves a module hop and a CJS wrapper on every start.
  alias: { '@commander-js/extra-typings': 'commander' },
  sourcemap: true,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
});

// Chunk names carry content hashes, so each change leaves old chunks behind: remove what this build did not write.
const written = new Set(Object.keys(result.metafile.outputs).map((file) => path.resolve(root, file)));
for (const entry of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
  const file = path.join(entry.parentPath ?? entry.path, entry.name);
  if (entry.isFile() && !written.has(file)) rmSync(file);
}
