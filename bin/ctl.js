#!/usr/bin/env node
// Thin launcher: everything lives in the build that `npm install` makes (scripts/build.mjs, run by `prepare`).
// Help of a command named by its words and a TAB on command words, flags and fixed values are answered from files
// the build wrote (dist/prebuilt/, served by dist/prebuilt.cjs) without compiling the CLI. Any other line runs
// dist/cli.cjs, the common path as one script compiled from a code cache (cached-script.js), unless the command it
// runs is kept out of that script (the script's first line lists them), or it asks for --debug: Node maps no
// vm.Script's stack traces through a source map, and the ES module build's are mapped.
// CommonJS (bin/package.json), as Node's ES module loader would cost this start a few milliseconds more.
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const argv = process.argv.slice(2);
const dist = path.join(__dirname, '..', 'dist');
const script = path.join(dist, 'cli.cjs');
const modules = path.join(dist, 'main.js');
const prebuiltScript = path.join(dist, 'prebuilt.cjs');
if (![script, modules, prebuiltScript].every(existsSync)) {
  process.stderr.write(
    `error: ctl is not built (${modules} is missing)\n  run 'npm install' in the ctl package, which builds it\n`,
  );
  process.exit(1);
}

const prebuiltFiles = path.join(dist, 'prebuilt');
const helpFlags = ['--help', '-h'];
const mayBeServed =
  !argv.includes('--debug') && (['help', '__complete'].includes(argv[0]) || helpFlags.includes(argv.at(-1)));
if (!(mayBeServed && require(prebuiltScript).serveProcess(prebuiltFiles, argv))) runCli();

function runCli() {
  const { runCachedScript } = require('./cached-script.js');
  const source = readFileSync(script, 'utf8');
  const firstLine = source.slice(0, source.indexOf('\n'));
  /** The script's first line: the commands it leaves to the ES module build, and the nouns' words. */
  const about = JSON.parse(firstLine.slice(firstLine.indexOf('{')));
  // The commands the line runs, read as commander dispatches it (an identity named `export` is no export command);
  // a line where no word names one of those commands runs here whatever its words, without reading them.
  const fullBuild = () =>
    argv.some((word) => about.fullBuild.includes(word)) &&
    require(prebuiltScript)
      .commandLineWords(prebuiltFiles, argv)
      .some((word) => about.fullBuild.includes(word));
  if (argv.includes('--debug') || fullBuild()) {
    import(pathToFileURL(modules).href).then(({ main }) => main(argv));
    return;
  }
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
