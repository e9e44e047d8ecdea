import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { CATALOGUE } from '../resources/index.js';
import { testDeps } from './testing/test-deps.js';
import { buildProgram } from './main.js';
import { NOUNS } from './nouns/summary.js';
import { rootOperands } from './command-words.js';
import { NOUN_COMMANDS, assemble, nounCommands, selected, topCommands, walk } from './tree.js';
import type { TopCommand } from './tree.js';
import { IDENTITY_VERBS } from './testing/identity-verbs.js';

const program = await buildProgram(testDeps());
const all: Array<[string, CommandUnknownOpts]> = [['', program], ...walk(program)];

function helpOf(command: CommandUnknownOpts): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => void (text += s), writeErr: (s) => void (text += s) });
  command.outputHelp();
  return text;
}

const leaf = (name: string, aliases: string[] = []): TopCommand => ({
  name,
  aliases,
  summary: name,
  load: async () => new Command(name).aliases(aliases),
});

describe('command tree', () => {
  it('rejects a duplicate name or alias, a misnamed command and own verbs of no noun when assembling', async () => {
    const root = () => new Command('ctl');
    await assert.rejects(assemble(root(), testDeps(), undefined, [leaf('a'), leaf('a')], []), /'a' is declared twice/);
    await assert.rejects(
      assemble(root(), testDeps(), undefined, [leaf('a', ['x']), leaf('b', ['x'])], []),
      /'x' is declared twice/,
    );
    await assert.rejects(
      assemble(root(), testDeps(), undefined, [{ ...leaf('a'), load: async () => new Command('b') }], []),
      /'a' is built as 'b'/,
    );
    await assert.rejects(
      assemble(root(), testDeps(), undefined, [{ ...leaf('a'), load: async () => new Command('a').alias('z') }], []),
      /built with aliases \[z\]/,
    );
    const own = [nounCommands('nosuch', async () => ({ verbs: {} }))];
    await assert.rejects(assemble(root(), testDeps(), undefined, [leaf('a')], own), /'nosuch', which is no noun/);
  });

  it('registers its own verbs only for nouns of the catalogue', () => {
    for (const o of NOUN_COMMANDS)
      assert.ok(
        NOUNS.some((n) => n.noun === o.noun),
        o.noun,
      );
  });

  it('gives no two siblings the same name or alias', () => {
    for (const [path, command] of all) {
      const words = command.commands.flatMap((c) => [c.name(), ...c.aliases()]);
      const clashes = words.filter((w, i) => words.indexOf(w) !== i);
      assert.deepEqual(clashes, [], `clashing names or aliases under '${path || 'ctl'}'`);
    }
  });

  it('never gives a short flag two meanings, nor redefines a global flag', () => {
    const meaning = new Map<string, string>();
    const globals = new Set(program.options.map((o) => o.long));
    for (const [path, command] of all) {
      for (const option of command.options) {
        if (command !== program) assert.ok(!globals.has(option.long), `'${path}' redefines the global ${option.long}`);
        if (!option.short) continue;
        const long = option.long ?? option.short;
        const before = meaning.get(option.short);
        assert.ok(
          before === undefined || before === long,
          `${option.short} means ${before} elsewhere but ${long} in '${path}'`,
        );
        meaning.set(option.short, long);
      }
    }
  });

  it('gives every command a description and at least one example', () => {
    for (const [path, command] of all) {
      assert.notEqual(command.description(), '', `'${path}' has no description`);
      assert.match(helpOf(command), /^ {2}\$ ctl /m, `'${path || 'ctl'}' has no '$ ctl ...' example in its help`);
    }
  });

  it('gives every catalogue resource with a cli entry its noun, with the verbs its operations allow', () => {
    const paths = new Set(all.map(([p]) => p));
    const verbs: Array<[string, string]> = [
      ['list', 'list'],
      ['get', 'show'],
      ['patch', 'update'],
      ['delete', 'delete'],
    ];
    for (const def of CATALOGUE) {
      if (!def.cli) continue;
      const noun = def.cli.noun;
      assert.ok(paths.has(noun), `missing noun '${noun}'`);
      for (const [op, verb] of verbs)
        assert.equal(
          paths.has(`${noun} ${verb}`),
          def.operations.includes(op as never),
          `'${noun} ${verb}' against operations [${def.operations}]`,
        );
      for (const relation of Object.keys(def.relations ?? {}))
        assert.ok(paths.has(`${noun} ${relation}`), `missing '${noun} ${relation}'`);
    }
    for (const p of ['identity create', 'identity enable', 'identity disable'])
      assert.ok(paths.has(p), `missing '${p}'`);
    for (const p of ['api-session create', 'identity-type create', 'enrollment update'])
      assert.ok(!paths.has(p), `unexpected '${p}'`);
  });

  it("lists generic verbs first, then the noun's own, then relation lists", () => {
    const identity = program.commands.find((c) => c.name() === 'identity')!;
    assert.deepEqual(
      identity.commands.map((c) => c.name()),
      IDENTITY_VERBS,
    );
  });

  it('hides the completion machinery from help', () => {
    assert.doesNotMatch(helpOf(program), /__complete/);
  });
});

describe('loading only what a command line uses', () => {
  const lazily = (argv: string[]) => buildProgram(testDeps(), argv);
  const verbsOf = (root: CommandUnknownOpts, name: string) =>
    root.commands.find((c) => c.name() === name)!.commands.length;

  it('lists every command in the root help without loading any, word for word as the full tree does', async () => {
    const root = await lazily(['--help']);
    assert.deepEqual(
      root.commands.map((c) => c.name()),
      program.commands.map((c) => c.name()),
    );
    for (const noun of NOUNS) assert.equal(verbsOf(root, noun.noun), 0, `'${noun.noun}' was loaded for --help`);
    assert.equal(verbsOf(root, 'controller'), 0);
    assert.equal(helpOf(root), helpOf(program));
  });

  it('loads the noun argv selects, by name or alias, and no other', async () => {
    const root = await lazily(['-o', 'json', 'identities', 'ls']);
    assert.ok(verbsOf(root, 'identity') > 0);
    assert.equal(verbsOf(root, 'auth-policy'), 0);
  });

  it('builds only the verb a line runs, and every verb for an alias, a typo, help or completion', async () => {
    const verbs = async (...argv: string[]) =>
      (await lazily(argv)).commands.find((c) => c.name() === 'identity')!.commands.map((c) => c.name());
    const full = program.commands.find((c) => c.name() === 'identity')!.commands.map((c) => c.name());
    assert.deepEqual(await verbs('-o', 'json', 'identity', 'list', '--limit', '5'), ['list']);
    assert.deepEqual(await verbs('id', 'create', 'laptop'), ['create']);
    assert.deepEqual(await verbs('identity', 'authenticators', 'x'), ['authenticators']);
    assert.deepEqual(await verbs('identity', 'ls'), full, 'an alias is found among all verbs');
    assert.deepEqual(await verbs('identity', 'lst'), full, 'a typo is suggested for among all verbs');
    assert.deepEqual(await verbs('identity', '--bogus', 'list'), full, 'an unknown option ends the operands');
    assert.deepEqual(await verbs('help', 'identity', 'list'), full);
    assert.deepEqual(await verbs('__complete', '--', 'identity', 'list', ''), full);
  });

  it('selects as commander dispatches', () => {
    const byWord = new Map(topCommands().flatMap((e) => [e.name, ...e.aliases].map((w) => [w, e] as const)));
    const names = (...argv: string[]) => [...selected(program, argv, byWord)].map((e) => e.name).sort();
    assert.deepEqual(names('identity', 'list'), ['identity']);
    assert.deepEqual(names('--output=json', 'id', 'list'), ['identity']);
    assert.deepEqual(names('-ojson', '--no-color', 'auth-policy'), ['auth-policy']);
    assert.deepEqual(names('--profile', 'identity', 'list'), [], '--profile takes identity as its value');
    assert.deepEqual(names('--', 'enrollment', 'list'), ['enrollment']);
    assert.deepEqual(names('--help', 'identity'), [], 'commander shows the root help');
    assert.deepEqual(names('identity', '--help'), ['identity']);
    assert.deepEqual(names('nosuch', 'identity'), []);
    assert.deepEqual(names('help', 'identity', 'create'), ['help', 'identity']);
    assert.deepEqual(names('help', 'exit-codes'), ['help']);
    assert.deepEqual(names('__complete', '--', '-o', 'json', 'auth-policy', 'sh'), ['__complete', 'auth-policy']);
    // Completion reads on past an unknown option (running the line would fail on it); a word after it that names no
    // command is its value.
    assert.deepEqual(names('__complete', '--', '--bogus', 'identity', 'sh'), ['__complete', 'identity']);
    assert.deepEqual(names('__complete', '--', '--bogus', 'x', 'identity', 'sh'), ['__complete', 'identity']);
    assert.deepEqual(names('__complete', '--', '--bogus', 'x', 'y', 'identity', 'sh'), ['__complete']);
    assert.deepEqual(names('--bogus', 'identity', 'list'), [], 'a line run stops at an unknown option, as commander');
    assert.deepEqual(
      names('__complete', 'ident'),
      ['__complete'],
      'the word under the cursor is completed among the top-level names',
    );
    const fromScript = names('__complete', '--shell', 'bash', '--', 'policy', "'#sa");
    assert.deepEqual(fromScript, ['__complete', 'policy'], 'the shell scripts name their shell');
    const quoted = names('__complete', '--shell', 'bash', '--', "'identity'", 'cr');
    assert.deepEqual(quoted, ['__complete', 'identity'], 'a command word quoted on the line');
    assert.deepEqual(rootOperands(program.options, ['-o', 'json', 'identity', '--limit', '5', 'x']), ['identity']);
  });

  it('fails loudly, never silently, if a command that was not loaded is run', async () => {
    const root = await lazily([]);
    await assert.rejects(
      root.parseAsync(['identity', 'list'], { from: 'user' }),
      /'identity' was run without being loaded/,
    );
  });
});
