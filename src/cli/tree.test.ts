import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { testDeps } from './generic/testing.js';
import { buildProgram } from './main.js';
import { TREE, assemble, walk } from './tree.js';

const program = buildProgram(testDeps());
const all: Array<[string, CommandUnknownOpts]> = [['', program], ...walk(program)];

function helpOf(command: CommandUnknownOpts): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => void (text += s), writeErr: (s) => void (text += s) });
  command.outputHelp();
  return text;
}

describe('command tree', () => {
  it('declares every path once, each after its parent', () => {
    const seen = new Set<string>(['']);
    for (const entry of TREE) {
      assert.ok(!seen.has(entry.path), `duplicate path '${entry.path}'`);
      assert.ok(seen.has(entry.path.split(' ').slice(0, -1).join(' ')), `'${entry.path}' has no parent before it`);
      seen.add(entry.path);
    }
  });

  it('rejects a duplicate path, a missing parent and a misnamed command when assembling', () => {
    const leaf = (name: string) => () => new Command(name);
    assert.throws(() => assemble(new Command('ctl'), testDeps(), [{ path: 'a', build: leaf('a') }, { path: 'a', build: leaf('a') }]), /'a' is declared twice/);
    assert.throws(() => assemble(new Command('ctl'), testDeps(), [{ path: 'a b', build: leaf('b') }]), /no parent 'a'/);
    assert.throws(() => assemble(new Command('ctl'), testDeps(), [{ path: 'a', build: leaf('b') }]), /built as 'b'/);
    const prebuilt = () => new Command('a').addCommand(new Command('b'));
    assert.throws(() => assemble(new Command('ctl'), testDeps(), [{ path: 'a', build: prebuilt }, { path: 'a b', build: leaf('b') }]), /'a b' is declared twice/);
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
        assert.ok(before === undefined || before === long, `${option.short} means ${before} elsewhere but ${long} in '${path}'`);
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

  it('registers the catalogue nouns with only the verbs their operations allow', () => {
    const paths = new Set(all.map(([p]) => p));
    for (const p of ['identity list', 'identity create', 'identity authenticators', 'auth-policy show', 'api-session delete', 'enrollment delete']) {
      assert.ok(paths.has(p), `missing '${p}'`);
    }
    for (const p of ['auth-policy delete', 'identity-type create', 'enrollment update']) assert.ok(!paths.has(p), `unexpected '${p}'`);
  });

  it('hides the completion machinery from help', () => {
    assert.doesNotMatch(helpOf(program), /__complete/);
  });
});
