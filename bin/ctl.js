#!/usr/bin/env node
// Thin launcher: everything lives in the build that `npm install` makes (scripts/build.mjs, run by `prepare`).
// A command line runs dist/cli.cjs, the common path as one script compiled from a code cache (cached-script.js),
// unless it names a command kept out of that script (the script's first line lists them), or asks for --debug:
// Node maps no vm.Script's stack traces through a source map, and the ES module build's are mapped.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCachedScript } from './cached-script.js';

const argv = process.argv.slice(2);
const script = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
const modules = new URL('../dist/main.js', import.meta.url);
if (!existsSync(script) || !existsSync(modules)) {
  process.stderr.write(`error: ctl is not built (${fileURLToPath(modules)} is missing)\n` +
    "  run 'npm install' in the ctl package, which builds it\n");
  process.exit(1);
}

/** The commands the script leaves to the ES module build, read from its first line. */
function fullBuildCommands() {
  const firstLine = readFileSync(script, 'utf8').slice(0, 1024).split('\n', 1)[0];
  return new Set(JSON.parse(firstLine.slice(firstLine.indexOf('{'))).fullBuild);
}

// A word naming one of those commands anywhere (an identity called `export` included) is enough: such a line
// runs on the ES module build, which runs every command alike.
const fullBuild = fullBuildCommands();
if (argv.includes('--debug') || argv.some((word) => fullBuild.has(word))) {
  const { main } = await import(modules.href);
  await main(argv);
} else {
  let extras;
  let childProcess;
  const requireFor = (id) => {
    // commander asks for child_process as it loads, for external subcommands ctl has none of; that module brings
    // net and dgram into every start, so it is loaded on first use.
    if (id === 'node:child_process' || id === 'child_process') {
      return new Proxy({}, { get: (_, key) => (childProcess ??= process.getBuiltinModule(id))[key] });
    }
    const builtin = process.getBuiltinModule(id);
    if (builtin !== undefined) return builtin;
    extras ??= runCachedScript(fileURLToPath(new URL('../dist/cli-extras.cjs', import.meta.url)), 'extras', requireFor);
    const load = extras[id];
    if (load === undefined) throw new Error(`the build cannot require '${id}'`);
    return load();
  };
  // Help and completion compile other functions than a command that does something: each kind keeps its cache.
  const helpWords = ['--help', '-h', 'help', '__complete', '--version', '-v'];
  const helpOnly = argv.length === 0 || argv.some((word) => helpWords.includes(word));
  const { main } = runCachedScript(script, helpOnly ? 'cli-help' : 'cli-run', requireFor);
  await main(argv);
}
