import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestIO } from '../client/testing/test-io.js';
import { EXIT } from '../console/errors.js';
import { run } from './main.js';

async function ctl(argv: string[]) {
  const io = createTestIO();
  const code = await run(argv, { env: { CTL_CONFIG_DIR: '/nonexistent/ctl-test' }, io });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('main', () => {
  it('prints help on stdout and exits 0', async () => {
    const r = await ctl(['--help']);
    assert.equal(r.code, EXIT.ok);
    assert.match(r.stdout, /^Usage: ctl /);
    assert.match(r.stdout, /Help topics \(ctl help TOPIC\):/);
  });

  it('prints the version with --version or -v, on stdout, exit 0', async () => {
    const { clientVersion } = await import('./package-version.js');
    for (const flag of ['--version', '-v']) {
      assert.deepEqual(await ctl([flag]), { code: EXIT.ok, stdout: `${await clientVersion()}\n`, stderr: '' }, flag);
    }
  });

  it('turns commander usage errors into exit 2, with a pointer to help', async () => {
    const unknown = await ctl(['identity', 'list', '--bogus']);
    assert.equal(unknown.code, EXIT.usage);
    assert.match(unknown.stderr, /^error: unknown option '--bogus'/m);
    assert.match(unknown.stderr, /\(see 'ctl identity list --help'\)/);
    assert.equal((await ctl(['nosuchcommand'])).code, EXIT.usage);
    assert.equal((await ctl(['identity'])).code, EXIT.usage);
  });

  it('validates -o and CTL_OUTPUT against the formats', async () => {
    const flag = await ctl(['-o', 'xml', 'help', 'filters']);
    assert.equal(flag.code, EXIT.usage);
    assert.match(flag.stderr, /Allowed choices are table, wide, json, yaml/);
    // The environment of the run, not the process's: run() is what the binary and embedding programs call.
    const env = async (CTL_OUTPUT: string) => {
      const io = createTestIO();
      const code = await run(['help', 'filters'], { env: { CTL_CONFIG_DIR: '/nonexistent/ctl-test', CTL_OUTPUT }, io });
      return { code, stderr: io.stderrText() };
    };
    const bad = await env('xml');
    assert.equal(bad.code, EXIT.usage);
    const invalid =
      "error: option '-o, --output <format>' value 'xml' from env 'CTL_OUTPUT' is invalid. " +
      'Allowed choices are table, wide, json, yaml.';
    assert.ok(bad.stderr.startsWith(invalid), bad.stderr);
    assert.equal((await env('yaml')).code, EXIT.ok);
  });

  it('prints typed errors as error: message on stderr with their exit code', async () => {
    const r = await ctl(['identity', 'delete', 'laptop-7']);
    assert.equal(r.code, EXIT.declined);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'error: not deleting without confirmation\n  pass --yes (-y) to delete without a prompt\n');
  });

  it('prints an unexpected error with its stack only with --debug or CTL_ERROR_STACK', async () => {
    const failing = async (argv: string[], env: Record<string, string> = {}) => {
      const io = createTestIO();
      io.out = () => {
        throw new Error('boom');
      };
      const code = await run(argv, { env: { CTL_CONFIG_DIR: '/nonexistent/ctl-test', ...env }, io });
      return { code, stderr: io.stderrText() };
    };
    const plain = await failing(['help', 'filters']);
    assert.equal(plain.code, EXIT.failure);
    assert.match(plain.stderr, /^error: unexpected error: boom\n/);
    assert.doesNotMatch(plain.stderr, /\n +at /);
    for (const [argv, env] of [
      [['help', 'filters'], { CTL_ERROR_STACK: '1' }],
      [['help', 'filters', '--debug'], {}],
    ] as const) {
      const traced = await failing([...argv], env);
      assert.equal(traced.code, EXIT.failure);
      assert.match(traced.stderr, /^error: unexpected error: boom\n/);
      assert.match(traced.stderr, /\n +at .*main\.test\.ts/, traced.stderr);
    }
  });

  it('adds the command help pointer to usage errors raised by commands', async () => {
    const r = await ctl(['identity', 'update', 'laptop-7', '-o', 'json']);
    assert.equal(r.code, EXIT.usage);
    assert.match(r.stderr, /^error: nothing to update\n {2}give at least one of --name, /);
    assert.match(r.stderr, /\(see 'ctl identity update --help'\)\n$/);
    assert.equal(r.stdout, '', 'errors stay on stderr with -o json');
  });

  it('serves help topics and command help through ctl help', async () => {
    const topic = await ctl(['help', 'exit-codes']);
    assert.equal(topic.code, EXIT.ok);
    assert.match(topic.stdout, /^ {2}130 {2}interrupted/m);
    const command = await ctl(['help', 'identity', 'create']);
    assert.match(command.stdout, /^Usage: ctl identity create /);
    const missing = await ctl(['help', 'nope']);
    assert.equal(missing.code, EXIT.usage);
    assert.match(missing.stderr, /no help topic or command 'nope'/);
  });
});
