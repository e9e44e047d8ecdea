import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCRIPT_FILES, SHELLS, completionScript } from './scripts.js';
import { IDENTITY_VERBS } from '../testing/identity-verbs.js';

const root = resolve(fileURLToPath(import.meta.url), '../../../..');
const bin = join(root, 'bin/ctl.js');

describe('completion scripts', () => {
  for (const shell of SHELLS) {
    it(`completions/ for ${shell} is what ctl completion ${shell} prints`, () => {
      const checkedIn = readFileSync(join(root, SCRIPT_FILES[shell]), 'utf8');
      assert.equal(
        checkedIn,
        completionScript(shell),
        `${SCRIPT_FILES[shell]} is stale: run  node bin/ctl.js completion ${shell} > ${SCRIPT_FILES[shell]}`,
      );
    });
  }
});

describe('bash completion, for real', () => {
  const configDir = mkdtempSync(join(tmpdir(), 'ctl-completion-'));
  before(() => {
    // `npm test` builds first; a lone run of this file builds if it has to.
    if (!existsSync(join(root, 'dist/main.js')))
      spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
  });
  after(() => rmSync(configDir, { recursive: true, force: true }));

  /**
   * Sources completions/ctl.bash in a real bash, sets up the words as readline would, calls _ctl and returns COMPREPLY.
   */
  function tab(line: string): string[] {
    const script = [
      `ctl() { "${process.execPath}" "${bin}" "$@"; }`,
      `source "${join(root, SCRIPT_FILES.bash)}"`,
      'read -r -a COMP_WORDS <<< "$LINE"',
      '[[ "$LINE" == *" " ]] && COMP_WORDS+=("")',
      'COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))',
      'COMP_LINE="$LINE"; COMP_POINT=${#LINE}',
      '_ctl',
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    const result = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
      env: { PATH: process.env.PATH, HOME: configDir, CTL_CONFIG_DIR: configDir, LINE: line },
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.split('\n').filter((s) => s !== '');
  }

  it('registers _ctl for ctl, falling back to file names', () => {
    const result = spawnSync('bash', ['--norc', '-c', `source "${join(root, SCRIPT_FILES.bash)}"; complete -p ctl`], {
      encoding: 'utf8',
    });
    assert.equal(result.stdout.trim(), 'complete -o default -F _ctl ctl');
  });

  it('completes ctl ident<TAB>', () => {
    assert.deepEqual(tab('ctl ident'), ['identity', 'identity-type']);
  });

  it('completes ctl identity <TAB>', () => {
    assert.deepEqual(tab('ctl identity '), IDENTITY_VERBS);
  });

  it('completes ctl -o <TAB>', () => {
    assert.deepEqual(tab('ctl -o '), ['table', 'wide', 'json', 'yaml']);
  });

  it('completes what follows an unknown option: ctl --bogus identity sh<TAB>, ctl --bogus x apply --<TAB>', () => {
    assert.deepEqual(tab('ctl --bogus identity sh'), ['show']);
    // apply runs on the ES module build, which the binary chooses by the command the words name.
    assert.ok(tab('ctl --bogus x apply --').includes('--dry-run'));
  });

  it('stays silent where the controller cannot be asked', () => {
    assert.deepEqual(tab('ctl identity show '), []);
  });
  // bash splits `--type=` at the = (COMP_WORDBREAKS): COMP_WORDS ends `--type` `=`, and
  // only the text after = is replaced.
  it('completes ctl service-policy create p --type=<TAB> as bash splits it', () => {
    assert.deepEqual(tab('ctl service-policy create p --type ='), ['Dial', 'Bind']);
    assert.deepEqual(tab('ctl service-policy create p --type = B'), ['Bind']);
  });

  // COMP_WORDS keeps a word's quotes; the line editor replaces only what follows an open quote.
  it("completes ctl service-policy create p --type 'Di<TAB> and \\Di<TAB>", () => {
    assert.deepEqual(tab("ctl service-policy create p --type 'Di"), ['Dial']);
    assert.deepEqual(tab('ctl service-policy create p --type "B'), ['Bind']);
    assert.deepEqual(tab('ctl service-policy create p --type \\Di'), ['Dial']);
  });
});

describe('fish completion, for real', () => {
  const configDir = mkdtempSync(join(tmpdir(), 'ctl-completion-fish-'));
  const hasFish = spawnSync('fish', ['--version']).status === 0;
  after(() => rmSync(configDir, { recursive: true, force: true }));

  /** Loads completions/ctl.fish in a real fish and asks it what TAB offers after `line` (fish sorts the list). */
  function tab(line: string): string[] {
    const script = [
      `function ctl; "${process.execPath}" "${bin}" $argv; end`,
      `source "${join(root, SCRIPT_FILES.fish)}"`,
      `complete -C '${line}'`,
    ].join('\n');
    const result = spawnSync('fish', ['--no-config', '-c', script], {
      env: { PATH: process.env.PATH, HOME: configDir, CTL_CONFIG_DIR: configDir },
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.split('\n').filter((s) => s !== '');
  }

  // .ci/run installs fish; a developer machine without it skips these, saying why.
  it('completes ctl ident<TAB>, each command with its description', {
    skip: !hasFish && 'fish is not installed',
  }, () => {
    assert.deepEqual(tab('ctl ident'), [
      'identity\tA user, device or service that authenticates to the network',
      'identity-type\tBuilt-in identity types (Default, Router)',
    ]);
  });

  it('completes ctl identity list --li<TAB> with the description of the flag', {
    skip: !hasFish && 'fish is not installed',
  }, () => {
    assert.deepEqual(tab('ctl identity list --li'), ['--limit\trows per page (server default 10, at most 500)']);
  });

  it('completes ctl identity <TAB>', { skip: !hasFish && 'fish is not installed' }, () => {
    const lines = tab('ctl identity ');
    assert.ok(
      lines.every((l) => /^[a-z-]+\t\S/.test(l)),
      'every verb has its description',
    );
    // fish sorts candidates in its own order (it weighs punctuation differently from a plain sort): compare sets.
    assert.deepEqual(lines.map((l) => l.split('\t')[0]).sort(), [...IDENTITY_VERBS].sort());
  });

  it('completes ctl -o <TAB>', { skip: !hasFish && 'fish is not installed' }, () => {
    assert.deepEqual(tab('ctl -o '), ['json', 'table', 'wide', 'yaml']);
  });

  it('completes ctl service-policy create p --type "Di<TAB>', { skip: !hasFish && 'fish is not installed' }, () => {
    assert.deepEqual(tab('ctl service-policy create p --type "Di'), ['Dial']);
  });
});

describe('zsh completion, in a real zsh', () => {
  const configDir = mkdtempSync(join(tmpdir(), 'ctl-completion-zsh-'));
  const hasZsh = spawnSync('zsh', ['--version']).status === 0;
  const skip = !hasZsh && 'zsh is not installed';
  after(() => rmSync(configDir, { recursive: true, force: true }));

  /**
   * Sources completions/_ctl in a real zsh and calls _ctl with `words` and `CURRENT` set as the completion system
   * sets them. compadd works only inside a live completion widget, so a stand-in prints what _ctl offers it.
   */
  function tab(words: string[]): string[] {
    return shown(words).filter((line) => !line.startsWith('shown: '));
  }

  /** What _ctl offers compadd, each candidate, then each line it gives compadd to display (-d), as `shown: LINE`. */
  function shown(words: string[]): string[] {
    const quoted = words.map((w) => `'${w}'`).join(' ');
    const script = [
      `ctl() { "${process.execPath}" "${bin}" "$@"; }`,
      'compdef() { :; }',
      `source "${join(root, SCRIPT_FILES.zsh)}"`,
      'compadd() {',
      '  local -a displayed',
      '  while [[ $1 != -- ]]; do [[ $1 == -d ]] && { displayed=("${(@P)2}"); shift; }; shift; done',
      '  shift; print -l -- "$@"',
      '  if (( ${#displayed} )); then print -l -- "${displayed[@]/#/shown: }"; fi',
      '}',
      '_files() { print -- "(files)"; }',
      `words=(${quoted}); CURRENT=${words.length}`,
      '_ctl',
    ].join('\n');
    const result = spawnSync('zsh', ['-f', '-c', script], {
      env: { PATH: process.env.PATH, HOME: configDir, CTL_CONFIG_DIR: configDir },
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.split('\n').filter((s) => s !== '');
  }

  // .ci/run installs zsh; a developer machine without it skips these, saying why.
  it('completes ctl ident<TAB>', { skip }, () => {
    assert.deepEqual(tab(['ctl', 'ident']), ['identity', 'identity-type']);
  });

  it('lists ctl ident<TAB> with descriptions, one per line, and values without', { skip }, () => {
    assert.deepEqual(shown(['ctl', 'ident']), [
      'identity',
      'identity-type',
      'shown: identity       -- A user, device or service that authenticates to the network',
      'shown: identity-type  -- Built-in identity types (Default, Router)',
    ]);
    assert.deepEqual(shown(['ctl', '-o', '']), ['table', 'wide', 'json', 'yaml']);
  });

  it('completes ctl identity <TAB>', { skip }, () => {
    assert.deepEqual(tab(['ctl', 'identity', '']), IDENTITY_VERBS);
  });

  it("completes ctl service-policy create p --type 'Di<TAB>", { skip }, () => {
    assert.deepEqual(tab(['ctl', 'service-policy', 'create', 'p', '--type', "'\\''Di"]), ['Dial']);
  });

  it('falls back to file names where ctl has nothing to offer', { skip }, () => {
    assert.deepEqual(tab(['ctl', 'identity', 'show', '']), ['(files)']);
  });
});
