// The CLI's common path as one CommonJS script, dist/cli.cjs, which bin/ctl.js runs through vm.Script with a V8
// code cache (bin/cached-script.js). Loading the ES module build's forty-odd chunks cost most of a logged-in
// command's own time (each file found, read, compiled and linked); one script compiled from a cache costs a
// fraction of that (docs/performance.md). The modules below a command are still evaluated only when it runs
// (esbuild wraps each module reached by `import()` in a function called on first use), and a code cache holds only
// the functions a run compiled.
//
// What stays out, because size costs even with a cache:
// - the dependencies only some commands use (EXTRAS): dist/cli-extras.cjs, one script holding one copy of each
//   package and of what they share, run through the same loader when a command first needs one of them. They
//   share no class with our code, so their own copies of nothing matter;
// - the commands that start a controller or read network files (FULL_BUILD_COMMANDS): their modules import the
//   CLI's own (errors whose class sets the exit code), so they do not run beside the script but instead of it:
//   bin/ctl.js runs a command line that names one of them on the ES module build, dist/main.js.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';

/** Packages the common path reaches only for some commands: an import of the package or of a file in it. */
const EXTRAS = /^(node-forge|undici|conf|ajv|ajv-formats|yaml|@inquirer\/prompts|ora|qrcode|jose)(\/.*)?$/;

/** Top-level commands run on the ES module build, and the modules that build them (none has an alias). */
export const FULL_BUILD_COMMANDS = {
  controller: 'src/cli/controller/index.ts',
  quickstart: 'src/cli/controller/quickstart.ts',
  export: 'src/cli/ascode/export.ts',
  diff: 'src/cli/ascode/diff.ts',
  apply: 'src/cli/ascode/apply.ts',
};

/**
 * node:fs/promises brings readline, more streams and the fs watchers into a start (about 0.6 ms) for the few
 * commands that read or write a file, while every noun's module imports it: the script imports instead a module
 * whose functions each call through to it, loaded on the first call.
 */
const DEFERRED_BUILTIN = /^(node:)?fs\/promises$/;
const deferredFsPromises = Object.entries(fsPromises)
  .filter(([, value]) => typeof value === 'function')
  .map(([name]) => `export const ${name} = (...args) => require('node:fs/promises').${name}(...args);`)
  .join('\n');

/** What this step writes into dist/. */
export const COMMON_SCRIPT_FILES = ['cli.cjs', 'cli.cjs.map', 'cli-extras.cjs'];

/**
 * The first line of each script names its content: `// ctl-script <hash> <JSON>`. The loader keys its cache by the
 * hash; the JSON tells bin/ctl.js which commands run elsewhere, and the nouns' words (each noun keeps a cache).
 * Written after the build over a placeholder of the same length, so the source map's lines and columns hold.
 */
const PLACEHOLDER = '0'.repeat(16);
const header = (info) => `// ctl-script ${PLACEHOLDER} ${JSON.stringify(info)}`;
function writeNamed(file, text) {
  const hash = createHash('sha256').update(text).digest('hex').slice(0, PLACEHOLDER.length);
  writeFileSync(file, text.replace(PLACEHOLDER, hash));
}

/**
 * Every import of an extra becomes `require(specifier)`, which the loader serves from the extras script, through a
 * module that re-exports it: our sources are ES modules of a `"type": "module"` package, for which esbuild takes a
 * CommonJS module's default export to be the whole module, where an extra built from ES modules marks its real one.
 * Every `import()` of a Node built-in becomes a `require` too: the script then makes no dynamic import, which a
 * vm.Script could only make through a loader option Node 20.19 lacks. The full-build commands' modules fail
 * loudly if ever reached.
 */
function commonPath(specifiers) {
  const fullBuild = new Set(Object.values(FULL_BUILD_COMMANDS));
  return {
    name: 'common-path',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.namespace === 'extra') return { path: args.path, external: true };
        if (EXTRAS.test(args.path)) {
          specifiers.add(args.path);
          return { path: args.path, namespace: 'extra' };
        }
        if (DEFERRED_BUILTIN.test(args.path) && args.kind === 'import-statement') {
          return { path: args.path, namespace: 'deferred-builtin' };
        }
        const importedBuiltin = /^node:/.test(args.path) && args.kind === 'dynamic-import';
        if (importedBuiltin) return { path: args.path, namespace: 'builtin' };
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'extra' }, (args) => {
        const specifier = JSON.stringify(args.path);
        return { contents: `export * from ${specifier};\nexport { default } from ${specifier};\n`, loader: 'js' };
      });
      b.onLoad({ filter: /.*/, namespace: 'deferred-builtin' }, () => ({ contents: deferredFsPromises, loader: 'js' }));
      b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const relative = path.relative(b.initialOptions.absWorkingDir, args.path).split(path.sep).join('/');
        // A command that starts a controller belongs in FULL_BUILD_COMMANDS: reaching the controller from here would
        // put it in the common script, which every command loads.
        if (relative.startsWith('src/controller/')) {
          return {
            errors: [{ text: `${relative} reached from the common path: list its command in FULL_BUILD_COMMANDS` }],
          };
        }
        if (!fullBuild.has(relative)) return undefined;
        const message = `internal error: ${relative} runs on the ES module build, which bin/ctl.js chooses for it`;
        return { contents: `throw new Error(${JSON.stringify(message)});`, loader: 'js' };
      });
    },
  };
}

/** Builds dist/cli.cjs (with its source map) and dist/cli-extras.cjs. `nounWords`: each noun's name and aliases. */
export async function buildCommonScript({ common, outdir, plugins, nounWords }) {
  const specifiers = new Set();
  const options = { ...common, format: 'cjs', write: false, metafile: false };
  const core = await build({
    ...options,
    entryPoints: ['src/cli/main.ts'],
    outfile: path.join(outdir, 'cli.cjs'),
    alias: { '@commander-js/extra-typings': 'commander' },
    plugins: [...plugins, commonPath(specifiers)],
    banner: { js: header({ fullBuild: Object.keys(FULL_BUILD_COMMANDS), nouns: nounWords }) },
    sourcemap: true,
  });
  // The extras script: a table from each specifier the common path imports to a function that loads it.
  const table = [...specifiers].sort().map((s) => `  ${JSON.stringify(s)}: () => require(${JSON.stringify(s)}),`);
  const extras = await build({
    ...options,
    stdin: { contents: `module.exports = {\n${table.join('\n')}\n};\n`, resolveDir: common.absWorkingDir },
    outfile: path.join(outdir, 'cli-extras.cjs'),
    banner: { js: header({}) },
  });
  for (const out of [...core.outputFiles, ...extras.outputFiles]) {
    if (out.path.endsWith('.map')) writeFileSync(out.path, out.contents);
    else writeNamed(out.path, out.text);
  }
}
