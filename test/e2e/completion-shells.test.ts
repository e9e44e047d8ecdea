// TAB in real interactive bash, zsh and fish, under a pseudo-terminal (util-linux `script`), with completions/ loaded
// as a user loads them and the built ctl answering from a real controller: what ends up on the command line after
// one TAB, for words typed with quotes, backslashes and commas. Each shell's line editor decides how a quote is
// closed; these tests hold ctl and the scripts to giving it what it needs.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { CTL_BIN, ctlEnv } from '../helpers/cli.js';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus, createIdentity } from '../helpers/controller.js';
import { REPO_ROOT } from '../helpers/spec.js';

const f = useCliFixture('completion-shells');
const hasScript = spawnSync('script', ['--version']).status === 0;
const has = (shell: string) => spawnSync(shell, ['--version']).status === 0;

type Shell = 'bash' | 'zsh' | 'fish';

/** How each shell starts, with completions/ loaded and Ctrl-X bound to write the command line to a file. */
function shellSetup(shell: Shell, dir: string, out: string): string[] {
  const script = (name: string) => path.join(REPO_ROOT, 'completions', name);
  switch (shell) {
    case 'bash':
      writeFileSync(
        path.join(dir, 'bashrc'),
        [
          "PS1='READY> '",
          `source '${script('ctl.bash')}'`,
          `bind -x '"\\C-x": printf "%s" "$READLINE_LINE" > ${out}'`,
        ].join('\n'),
      );
      return ['bash', '--noprofile', '--rcfile', path.join(dir, 'bashrc'), '-i'];
    case 'zsh':
      writeFileSync(
        path.join(dir, '.zshrc'),
        [
          "PS1='READY> '",
          'autoload -U compinit && compinit -u -D',
          `source '${script('_ctl')}'`,
          `dump() { print -rn -- "$BUFFER" > ${out} }`,
          'zle -N dump && bindkey "^X" dump',
        ].join('\n'),
      );
      return ['zsh', '-d', '-i'];
    case 'fish':
      writeFileSync(
        path.join(dir, 'config.fish'),
        [
          "function fish_prompt; echo -n 'READY> '; end",
          `source '${script('ctl.fish')}'`,
          `bind \\cx 'commandline > ${out}'`,
        ].join('\n'),
      );
      return ['fish', '--no-config', '-i', '-C', `source ${path.join(dir, 'config.fish')}`];
  }
}

let runs = 0;

/** Types `line` and one TAB into an interactive `shell`; returns the command line as the shell then holds it. */
async function tab(shell: Shell, line: string): Promise<string> {
  const dir = path.join(f.tmp, `${shell}-${++runs}`);
  mkdirSync(dir);
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'ctl'), `#!/bin/sh\nexec "${process.execPath}" "${CTL_BIN}" "$@"\n`);
  chmodSync(path.join(bin, 'ctl'), 0o755);
  const out = path.join(dir, 'line');
  const argv = shellSetup(shell, dir, out);
  const env = {
    ...ctlEnv({ configDir: f.cli.configDir }),
    PATH: `${bin}:${process.env.PATH}`,
    HOME: dir,
    ZDOTDIR: dir,
    XDG_CONFIG_HOME: dir,
    TERM: 'xterm',
  };
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', quoted, '/dev/null'], { env, cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.on('data', (d: Buffer) => (screen += d.toString('utf8')));
  const waitFor = async (what: string, ready: () => boolean) => {
    for (const end = Date.now() + 30_000; !ready(); await new Promise((r) => setTimeout(r, 50))) {
      if (Date.now() > end) throw new Error(`${shell}: no ${what} within 30 s; the terminal showed:\n${screen}`);
    }
  };
  try {
    await waitFor('prompt', () => screen.includes('READY> '));
    // Typed at once: the line editor takes keys in order, so Ctrl-X writes the line once the TAB's completion is in.
    child.stdin.write(`${line}\t\x18`);
    await waitFor('command line written', () => existsSync(out) && readFileSync(out, 'utf8').length > 0);
    // fish ends what `commandline` prints with a newline.
    const written = readFileSync(out, 'utf8');
    return shell === 'fish' ? written.replace(/\n$/, '') : written;
  } finally {
    child.kill('SIGKILL');
  }
}

describe('TAB in real shells, with quoted words', { skip: !hasScript && 'util-linux script is not installed' }, () => {
  let enrollmentId: string;
  before(async () => {
    await createIdentity(f.admin, { name: 'laptop-7', roleAttributes: ['sales'] });
    await createIdentity(f.admin, { name: 'laptop-8', roleAttributes: ['sales'] });
    const server = await createIdentity(f.admin, { name: 'db server' });
    const expiresAt = '2099-01-01T00:00:00Z';
    const enrollment = await f.admin.post('/enrollments', { identityId: server, method: 'ott', expiresAt });
    assertStatus(enrollment, 201);
    enrollmentId = enrollment.body.data.id;
    assertStatus(await f.admin.post('/services', { name: 'crm', encryptionRequired: true }), 201);
    assertStatus(await f.admin.post('/service-policies', { name: 'sales-crm', type: 'Dial', semantic: 'AllOf' }), 201);
  });

  const create = 'ctl policy create dial p';
  // [what is typed, the command line after one TAB], the same in every shell.
  const cases: [string, string][] = [
    [`${create} --identities '#sa`, `${create} --identities '#sales' `],
    [`${create} --identities "#sa`, `${create} --identities "#sales" `],
    [`${create} --identities '#sales,@db`, `${create} --identities '#sales,@db server' `],
    [`${create} --identities '#sales,@lap`, `${create} --identities '#sales,@laptop-`],
    [`${create} --services '@crm,#al`, `${create} --services '@crm,#all' `],
    [`${create} --identities \\#sa`, `${create} --identities \\#sales `],
    ['ctl identity show db', 'ctl identity show db\\ server '],
    ["ctl identity show 'db", "ctl identity show 'db server' "],
    ['ctl policy show sal', 'ctl policy show sales-crm '],
    ['ctl as laptop-7.json ses', 'ctl as laptop-7.json session '],
    // A value from a fixed list; a name or a switch the line has already is not offered again.
    ['ctl posture-check create os win --os Li', 'ctl posture-check create os win --os Linux '],
    ['ctl service create web --terminator-strategy st', 'ctl service create web --terminator-strategy sticky '],
    ['ctl auth-policy create p --primary cert,pa', 'ctl auth-policy create p --primary cert,password '],
    ['ctl identity delete laptop-7 lap', 'ctl identity delete laptop-7 laptop-8 '],
    ['ctl identity create x --admin --adm', 'ctl identity create x --admin --adm'],
    // fish and zsh are given descriptions with the candidates: only the candidate goes on the line.
    ['ctl identity-t', 'ctl identity-type '],
    ['ctl ident', 'ctl identity'],
    ['ctl identity list --li', 'ctl identity list --limit '],
  ];

  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    describe(shell, { skip: !has(shell) && `${shell} is not installed` }, () => {
      for (const [typed, expected] of cases) {
        it(`${typed}<TAB>`, async () => {
          assert.equal(await tab(shell, typed), expected);
        });
      }

      it('ctl enrollment refresh <TAB> (an id)', async () => {
        assert.equal(await tab(shell, 'ctl enrollment refresh '), `ctl enrollment refresh ${enrollmentId} `);
      });
    });
  }
});
