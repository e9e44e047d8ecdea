#!/usr/bin/env node
// Thin launcher: everything lives in the build that `npm install` makes (scripts/build.mjs, run by `prepare`).
// A command line runs dist/cli.cjs, the common path as one script compiled from a code cache (cached-script.js),
// unless it names a command kept out of that script (the script's first line lists them), or asks for --debug:
// Node maps no vm.Script's stack traces through a source map, and the ES module build's are mapped.
// CommonJS (bin/package.json), as Node's ES module loader would cost this start a few milliseconds more.
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { runCachedScript } = require('./cached-script.js');

const argv = process.argv.slice(2);
const dist = path.join(__dirname, '..', 'dist');
const script = path.join(dist, 'cli.cjs');
const modules = path.join(dist, 'main.js');
if (!existsSync(script) || !existsSync(modules)) {
  process.stderr.write(
    `error: ctl is not built (${modules} is missing)\n  run 'npm install' in the ctl package, which builds it\n`,
  );
  process.exit(1);
}

const source = readFileSync(script, 'utf8');
const firstLine = source.slice(0, source.indexOf('\n'));
/** The script's first line: the commands it leaves to the ES module build, and the nouns' words. */
const about = JSON.parse(firstLine.slice(firstLine.indexOf('{')));

// A word naming one of those commands anywhere (an identity called `export` included) is enough: such a line
// runs on the ES module build, which runs every command alike.
const fullBuild = new Set(about.fullBuild);
if (argv.includes('--debug') || argv.some((word) => fullBuild.has(word))) {
  import(pathToFileURL(modules).href).then(({ main }) => main(argv));
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
    extras ??= runCachedScript(path.join(dist, 'cli-extras.cjs'), 'extras', requireFor);
    const load = extras[id];
    if (load === undefined) throw new Error(`the build cannot require '${id}'`);
    return load();
  };
  // A cache holds what the run that made it compiled: help and completion keep one, each noun's commands one
  // (a list, a show), and the other commands one.
  const helpWords = ['--help', '-h', 'help', '__complete', '--version', '-v'];
  const noun = argv.find((word) => about.nouns.includes(word));
  const helpOnly = argv.length === 0 || argv.some((word) => helpWords.includes(word));
  const cache = helpOnly ? 'cli-help' : noun ? `cli-noun-${noun}` : 'cli-run';
  runCachedScript(script, cache, requireFor, source).main(argv);
}
