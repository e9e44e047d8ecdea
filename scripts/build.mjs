// Bundles the CLI into dist/ (run by `npm install` through `prepare`, and by `npm run build`).
// One ESM entry with code splitting, so that every `await import()` (each top-level command and noun, the
// controller, the session manager, undici, conf, the renderers) becomes a chunk loaded only by the commands that
// need it: start-up cost is what `ctl --help` and a TAB pay on every run. Dependencies are bundled too: resolving
// and wrapping hundreds of small CommonJS files (undici, conf's ajv) cost more than running them. Only native
// modules and the one devDependency src/ loads stay external.
//
// The root command lists every catalogue noun but must not load the catalogue: src/cli/nouns/summary.ts is
// replaced in the bundle by its value (names, aliases, descriptions, groups), computed here from the catalogue.
//
// For the start-up bench: `node scripts/build.mjs --outdir DIR --synthetic-nouns N` builds into DIR/dist (with
// DIR/bin/ctl.js) a CLI whose catalogue has N more resources, each the size of `identity`.
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildCommonScript, COMMON_SCRIPT_FILES } from './common-script.mjs';
import { writeIndex } from './controller-modules.mjs';
import { lazyCatalogue } from './lazy-catalogue.mjs';
import { buildPrebuilt } from './prebuilt.mjs';
import { tableTextWidth } from './table-text-width.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: flags } = parseArgs({
  options: { outdir: { type: 'string' }, 'synthetic-nouns': { type: 'string', default: '0' } },
});
const target = flags.outdir ? path.resolve(flags.outdir) : root;
const outdir = path.join(target, 'dist');
// The controller's modules are found, not listed: a module added or removed is in the index before it is bundled.
writeIndex(path.join(root, 'src/controller'));
const syntheticNouns = Number(flags['synthetic-nouns']);
if (!Number.isInteger(syntheticNouns) || syntheticNouns < 0)
  throw new Error(`--synthetic-nouns takes a count, not '${flags['synthetic-nouns']}'`);

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
};
const catalogueIndex = path.join(root, 'src/resources/index.ts');
const summaryModule = path.join(root, 'src/cli/nouns/summary.ts');

/** Bundles one module of the source (TypeScript) on its own and imports it here. */
async function load(entry, plugins = []) {
  const out = await build({ ...common, entryPoints: [entry], write: false, plugins });
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
}

/** With --synthetic-nouns, the catalogue module seen by the bundle appends N copies of `identity`, renamed. */
async function syntheticCatalogue() {
  if (syntheticNouns === 0) return [];
  const { resource } = await load(catalogueIndex);
  const model = resource('identity');
  const groups = ['Services', 'Edge routers', 'Policies', 'Configs', 'Posture checks'];
  const defs = Array.from({ length: syntheticNouns }, (_, i) => {
    const name = `synthetic-${String(i + 1).padStart(2, '0')}`;
    return {
      ...model,
      name,
      plural: `${name}s`,
      label: name,
      table: name.replace('-', '_'),
      cli: { ...model.cli, noun: name, aliases: [`${name}s`], group: groups[i % groups.length] },
    };
  });
  const contents = [
    `import { CATALOGUE as REAL } from ${JSON.stringify(catalogueIndex)};`,
    `export * from ${JSON.stringify(catalogueIndex)};`,
    // Written out in full, as forty resource files would be, rather than shared by reference.
    `export const CATALOGUE = [...REAL, ${defs.map((d) => JSON.stringify(d)).join(',\n')}];`,
    'const byName = new Map(CATALOGUE.map((r) => [r.name, r]));',
    'export function resource(name) { const def = byName.get(name); ' +
      "if (!def) throw new Error(`unknown resource '${name}' in the catalogue`); return def; }",
  ].join('\n');
  return [
    {
      name: 'synthetic-catalogue',
      setup(b) {
        b.onResolve({ filter: /resources[\\/]index\.js$/ }, (args) =>
          args.importer === 'synthetic-catalogue' ? undefined : { path: 'synthetic-catalogue', namespace: 'synthetic' },
        );
        b.onLoad({ filter: /.*/, namespace: 'synthetic' }, () => ({ contents, loader: 'js', resolveDir: root }));
      },
    },
  ];
}

const catalogue = await syntheticCatalogue();
const { NOUNS } = await load(summaryModule, catalogue);
/** The first line of the module that stands in for src/cli/nouns/summary.ts in the bundle. */
const GENERATED = '// Computed from the catalogue by scripts/build.mjs.';
const nounSummaries = {
  name: 'noun-summaries',
  setup(b) {
    b.onLoad({ filter: /src[\\/]cli[\\/]nouns[\\/]summary\.ts$/ }, () => ({
      contents: `${GENERATED}\nexport const NOUNS = ${JSON.stringify(NOUNS)};\n`,
      loader: 'js',
    }));
  },
};

/**
 * commander requires node:child_process when it loads, for running external subcommands, which ctl has none of;
 * that module brings net, dgram and their bindings into every start. commander gets it on first use instead.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
        ? { path: 'child_process', namespace: 'lazy-builtin' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, () => ({
      contents:
        "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

/** The ES module build's options: the CLI's own, and (scripts/prebuilt.mjs) the tree's for the prebuilt files. */
const esm = {
  ...common,
  // light-my-request is a devDependency, loaded only by the controller's inject() for tests: bundled, it would ship
  // a test tool in every install (test/package/runtime-dependencies.test.ts).
  external: ['better-sqlite3', 'light-my-request'],
  // Bundled CommonJS code calls require() for Node built-ins (and nothing else), which ESM output lacks.
  // process.getBuiltinModule serves them without loading node:module on every start, as createRequire would.
  banner: {
    js:
      'const require = (id) => { const m = process.getBuiltinModule(id); ' +
      "if (m === undefined) throw new Error(`the bundle cannot require '${id}'`); return m; };",
  },
  // extra-typings only adds types over commander's classes (its runtime re-exports them): loading commander directly
  // saves a module hop and a CJS wrapper on every start.
  alias: { '@commander-js/extra-typings': 'commander' },
  plugins: [nounSummaries, lazyChildProcess, tableTextWidth, ...catalogue],
};

const result = await build({
  ...esm,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir,
  splitting: true,
  sourcemap: true,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
});

// The common path as one script (see scripts/common-script.mjs): what --help, a TAB and a noun's commands load.
const nounWords = NOUNS.flatMap((noun) => [noun.noun, ...noun.aliases]);
// Each resource evaluated on first use; a build with synthetic nouns keeps its catalogue, evaluated whole.
const scriptCatalogue = catalogue.length > 0 ? catalogue : [await lazyCatalogue(root, common)];
await buildCommonScript({ common, outdir, plugins: [nounSummaries, tableTextWidth, ...scriptCatalogue], nounWords });
// What --help and a TAB on command words print, and the script that serves it (see scripts/prebuilt.mjs).
const prebuilt = await buildPrebuilt({ root, outdir, common, esm });

// Chunk names carry content hashes, so each change leaves old chunks behind: remove what this build did not write.
const written = new Set(Object.keys(result.metafile.outputs).map((file) => path.resolve(root, file)));
for (const file of [...COMMON_SCRIPT_FILES, ...prebuilt]) written.add(path.join(outdir, file));
for (const entry of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
  const file = path.join(entry.parentPath ?? entry.path, entry.name);
  if (entry.isFile() && !written.has(file)) rmSync(file);
}
if (target !== root) {
  mkdirSync(path.join(target, 'bin'), { recursive: true });
  for (const file of readdirSync(path.join(root, 'bin'))) {
    copyFileSync(path.join(root, 'bin', file), path.join(target, 'bin', file));
  }
  // As in the package: without it Node would first try each .js file as CommonJS, and time that too.
  writeFileSync(path.join(target, 'package.json'), `${JSON.stringify({ type: 'module', private: true })}\n`);
}
