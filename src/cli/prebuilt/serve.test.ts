import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { createTestIO } from '../../client/testing/test-io.js';
import { EXIT } from '../../console/errors.js';
import { HELP_TOPICS, topicText } from '../help-topics.js';
import { buildProgram, run } from '../main.js';
import { testDeps } from '../testing/test-deps.js';
import { walk } from '../tree.js';
import { prebuiltFiles, printedHelp } from './records.js';
import type { CommandRecord, RootRecord } from './records.js';
import { commandLineWords, helpText, serve } from './serve.js';

// The files are made here from the tree as the build makes them (make.ts) and served against what the full CLI
// prints for the same line, through run(), the entry the binary calls.
const program = await buildProgram(testDeps());
const dir = mkdtempSync(join(tmpdir(), 'ctl-prebuilt-'));
const topics = Object.fromEntries(HELP_TOPICS.map((t) => [t.name, topicText(t.name) ?? '']));
for (const [name, text] of Object.entries(prebuiltFiles(program, topics))) writeFileSync(join(dir, name), text);
after(() => rmSync(dir, { recursive: true, force: true }));

const paths: Array<[string[], CommandUnknownOpts]> = [
  [[], program],
  ...[...walk(program)].map(([path, c]): [string[], CommandUnknownOpts] => [path.split(' '), c]),
];

async function full(argv: string[]) {
  const io = createTestIO();
  const code = await run(argv, { env: { CTL_CONFIG_DIR: join(dir, 'no-config') }, io });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

/** What bin/ctl.js prints for `argv` from the files, or undefined where it leaves the line to the full CLI. */
function served(argv: string[], width?: number): string | undefined {
  let text = '';
  return serve(dir, argv, (s) => void (text += s), width) ? text : undefined;
}

describe('prebuilt help and completion', () => {
  it("serves every command's help byte for byte as the full CLI prints it, for --help, -h and ctl help", async () => {
    let servedLines = 0;
    for (const [path, command] of paths) {
      const forms = [[...path, '--help'], ['help', ...path], ...(path.length <= 1 ? [[...path, '-h']] : [])];
      for (const argv of forms) {
        const text = served(argv);
        if (command.name() === '__complete') {
          assert.equal(text, undefined, 'a command without a help option is left to the full CLI');
          continue;
        }
        const expected = await full(argv);
        assert.equal(expected.code, EXIT.ok, `ctl ${argv.join(' ')}: ${expected.stderr}`);
        assert.equal(text, expected.stdout, `ctl ${argv.join(' ')}`);
        servedLines++;
      }
    }
    assert.ok(servedLines > 300, `${servedLines} lines served`);
  });

  it("lays the help out at the terminal's width as commander does", () => {
    const byPath = (path: string[]) => {
      const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as RootRecord;
      let record = index.command;
      for (const [i, word] of path.entries()) {
        record =
          i === 0
            ? (JSON.parse(readFileSync(join(dir, `${word}.json`), 'utf8')) as CommandRecord)
            : record.children[word];
      }
      return record;
    };
    for (const [path, command] of paths) {
      const record = byPath(path).help;
      if (record === null) continue;
      for (const width of [30, 60, 80, 132, 250])
        assert.equal(helpText(record, width), printedHelp(command, width), `ctl ${path.join(' ')} at ${width}`);
    }
  });

  it('serves the help topics as ctl help prints them', async () => {
    for (const topic of HELP_TOPICS) {
      const argv = ['help', topic.name];
      assert.equal(served(argv), (await full(argv)).stdout, topic.name);
    }
  });

  it('completes command words, flags and fixed values as the full CLI does, in each shell', async () => {
    const lines: string[][] = [
      [],
      [''],
      ['ident'],
      ['identity', ''],
      ['identities', 'li'],
      ['identity', 'create', '--'],
      ['identity', 'create', '--jwt'],
      ['identity', 'list', '-'],
      ['policy', ''],
      ['policy', 'cre'],
      ['profile', 'u'],
      ['mfa', ''],
      ['controller', 's'],
      ['auth-policy', 'show', '--o'],
      ['-o', 'json', 'identity', ''],
      ['-o', 'json', 'identity', 'list', '--o'],
      ['identity', 'list', '-o', ''],
      ['identity', 'list', '--output', 'y'],
      ['identity', 'list', '--role-semantic', 'AllOf', '--role-'],
      ['identity', 'create', '--admin', '--'],
      ['identity', 'create', '--tag', 'a=b', '--t'],
      ['service', 'create', '--terminator-strategy', ''],
      ['posture-check', 'create', 'os', '--os', ''],
      ['posture-check', 'create', 'os', '--os', 'Linux', '--os', 'W'],
      ['posture-check', 'create', 'os', '--os', 'Windows:10.0', '--os', 'W'],
      ['auth-policy', 'create', '--primary', 'cert,'],
      ['service-policy', 'create', '--type', 'Dial', '--semantic', ''],
      ['service-policy', 'create', '--type', 'Dial', '-'],
      ['identity', 'update', 'laptop-7', '--a'],
      ['identity', 'list', '--limit', '5', '--'],
      ['identity', 'delete', 'a', 'b', '--'],
      ['policy', 'list', ''],
      ['policy', 'list', 'dial', '-'],
      ['policy', 'create', 'd'],
      ['api', 'P'],
      ['completion', ''],
      ['help', '-'],
      ['nosuch', ''],
      ['zzz'],
    ];
    let servedLines = 0;
    for (const words of lines) {
      for (const shell of [undefined, 'bash', 'zsh', 'fish']) {
        const argv = ['__complete', ...(shell ? ['--shell', shell] : []), '--', ...words];
        const text = served(argv);
        const expected = await full(argv);
        assert.equal(expected.code, EXIT.ok);
        if (words[0] === 'nosuch') {
          assert.equal(text, undefined, 'a word naming no command is left to the full CLI');
          continue;
        }
        assert.equal(text, expected.stdout, `ctl ${argv.join(' ')}`);
        servedLines++;
      }
    }
    const quoted = ['__complete', '--shell', 'bash', '--', "'identity'", "'cr"];
    assert.equal(served(quoted), (await full(quoted)).stdout);
    assert.equal(served(['__complete', 'ident']), 'identity\nidentity-type\n');
    // fish and zsh are given each command's and flag's description after a tab; bash, never.
    assert.match(served(['__complete', '--shell', 'fish', '--', 'ident']) ?? '', /^identity\t\S.*\nidentity-type\t\S/);
    assert.match(served(['__complete', '--shell', 'zsh', '--', 'identity', 'list', '--li']) ?? '', /^--limit\trows /);
    assert.equal(served(['__complete', '--shell', 'bash', '--', 'identity', 'list', '--li']), '--limit\n');
    assert.ok(servedLines > 40);
  });

  it('leaves to the full CLI what needs a profile, the controller, free text or an option before help', () => {
    for (const argv of [
      ['__complete', '--', 'identity', 'show', ''],
      ['__complete', '--', '--profile', ''],
      ['__complete', '--', 'identity', 'list', '--role-filter', ''],
      ['__complete', '--', 'identity', 'list', '--offset', ''],
      ['__complete', '--', 'identity', 'list', '--nosuch', ''],
      ['__complete', '--', 'policy', 'list', 'dial', ''],
      ['__complete', '--', 'help', ''],
      ['__complete', '--', 'identity', 'delete', 'a', ''],
      ['__complete', '--', 'as', ''],
      ['__complete', '--', 'identity', 'list', '--output='],
      ['__complete', '--shell', 'bash', '--', 'identity', 'list', '--output', '=', ''],
      ['__complete', '--', 'as', 'file.json', ''],
      ['__complete', '--shell', 'tcsh', '--', ''],
      ['__complete', '--bogus'],
      ['__complete', '--', '--bogus', 'identity', 'sh'],
      ['__complete', '--', 'identity', '--help', '--'],
      ['-o', 'json', '--help'],
      ['identity', '--help', 'list'],
      ['identity', 'nosuch', '--help'],
      ['help', 'nosuch'],
      ['help', 'identity', '--help'],
      ['identity', 'list'],
      [],
    ]) {
      assert.equal(served(argv), undefined, `ctl ${argv.join(' ')}`);
    }
  });

  it('reads the command a line runs by its position, as commander dispatches it', () => {
    assert.deepEqual(commandLineWords(dir, ['identity', 'show', 'export']), ['identity']);
    assert.deepEqual(commandLineWords(dir, ['-o', 'json', '--profile', 'export', 'identity', 'list']), ['identity']);
    assert.deepEqual(commandLineWords(dir, ['--output=json', 'export', '-f', 'x']), ['export']);
    assert.deepEqual(commandLineWords(dir, ['help', 'controller', 'start']), ['help', 'controller']);
    assert.deepEqual(commandLineWords(dir, ['__complete', '--', 'apply', '-']), ['__complete', 'apply']);
    // A TAB after an unknown option completes what follows (candidates.ts), on the build of the command it names.
    assert.deepEqual(commandLineWords(dir, ['__complete', '--', '--bogus', 'x', 'apply', '-']), [
      '__complete',
      'apply',
    ]);
  });
});
