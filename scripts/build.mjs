// Bundles the CLI into dist/ (run by `npm install` through `prepare`, and by `npm run build`).
// One ESM entry with code splitting, so that every `await import()` (the controller, the session manager, undici,
// conf, the renderers) becomes a chunk loaded only by the commands that need it: start-up cost is what
// `ctl --help` and a TAB pay on every run. Dependencies are bundled too: resolving and wrapping hundreds of small
// CommonJS files (undici, conf's ajv) cost more than running them. Only native modules stay external.
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
  external: ['better-sqlite3'],
  // Bundled CommonJS code calls require() for Node built-ins, which ESM output lacks.
  banner: { js: "import { createRequire as __ctlCreateRequire } from 'node:module'; const require = __ctlCreateRequire(import.meta.url);" },
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
