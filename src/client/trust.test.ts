import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DeclinedError, FailureError, UsageError } from '../console/errors.js';
import { startStubController } from './testing/stub-controller.js';
import type { StubController } from './testing/stub-controller.js';
import { createTestIO } from './testing/test-io.js';
import { tlsFixture } from './testing/tls-fixture.js';
import { establishTrust, normalizeFingerprint, pinnedSubset } from './trust.js';
import type { TrustOptions } from './trust.js';

const fp = (pem: string) => new X509Certificate(pem).fingerprint256;

describe('fingerprints', () => {
  it('normalises case, colons and openssl prefixes', () => {
    const colon = fp(tlsFixture().rootPem);
    const bare = colon.replace(/:/g, '').toLowerCase();
    assert.equal(normalizeFingerprint(colon), colon.replace(/:/g, ''));
    assert.equal(normalizeFingerprint(bare), colon.replace(/:/g, ''));
    assert.equal(normalizeFingerprint(`sha256 Fingerprint=${colon}`), colon.replace(/:/g, ''));
    assert.equal(normalizeFingerprint(`SHA256:${bare}`), colon.replace(/:/g, ''));
    assert.notEqual(normalizeFingerprint(colon), normalizeFingerprint(fp(tlsFixture().otherRootPem)));
  });

  it('rejects what is not a SHA-256 fingerprint', () => {
    assert.throws(() => normalizeFingerprint('AB:CD'), UsageError);
    assert.throws(() => normalizeFingerprint('z'.repeat(64)), UsageError);
  });
});

describe('pinnedSubset', () => {
  const { rootPem, intermediatePem, otherRootPem } = tlsFixture();
  const bundle = rootPem + otherRootPem + intermediatePem;

  it('keeps the pinned CA with its issuers and the CAs it issued, and nothing beside them', () => {
    assert.equal(pinnedSubset(bundle, fp(rootPem)), rootPem + intermediatePem);
    assert.equal(pinnedSubset(bundle, fp(intermediatePem)), rootPem + intermediatePem);
    assert.equal(pinnedSubset(bundle, fp(otherRootPem)), otherRootPem);
    assert.equal(pinnedSubset(rootPem, fp(intermediatePem)), undefined);
  });
});

describe('establishTrust', () => {
  let stub: StubController;
  let rebuilt: StubController;
  let dir: string;
  before(async () => {
    stub = await startStubController();
    rebuilt = await startStubController({ presentOtherChain: true });
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-trust-'));
  });
  after(async () => {
    await stub.close();
    await rebuilt.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (extra: Partial<TrustOptions> & { tty?: boolean; answer?: boolean } = {}) => {
    const io = createTestIO({ tty: extra.tty });
    const asked: string[] = [];
    const confirm = async (m: string) => {
      asked.push(m);
      return extra.answer ?? false;
    };
    return { io, asked, result: establishTrust({ url: stub.url, io, confirm, ...extra }) };
  };
  const { caBundlePem, rootPem, otherRootPem } = tlsFixture();
  const cacertsFetches = (s: StubController) => s.requests.filter((r) => r.url === '/.well-known/est/cacerts').length;

  it('shows subject and fingerprint and asks on a terminal', async () => {
    const { io, asked, result } = run({ tty: true, answer: true });
    assert.deepEqual(await result, { caPem: caBundlePem, caFingerprint: fp(rootPem) });
    assert.deepEqual(asked, [`Trust this CA bundle for ${stub.url}?`]);
    assert.match(io.stderrText(), /subject: O=ctl-test, CN=Test Root CA/);
    assert.ok(io.stderrText().includes(`SHA-256: ${fp(rootPem)}`));
    assert.equal(io.stdoutText(), '');
  });

  it('stops when the user declines', async () => {
    await assert.rejects(run({ tty: true, answer: false }).result, DeclinedError);
  });

  it('without a terminal, shows the bundle and names the flags to pass', async () => {
    const { io, result } = run({ tty: false });
    await assert.rejects(result, (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.match(err.details.join(' '), /--ca-fingerprint SHA256.*--ca FILE.*--yes/);
      return true;
    });
    assert.ok(io.stderrText().includes(fp(rootPem)));
  });

  it('--yes accepts without asking', async () => {
    const { asked, result } = run({ yes: true });
    assert.equal((await result).caPem, caBundlePem);
    assert.deepEqual(asked, []);
  });

  it('--ca-fingerprint pins a served CA', async () => {
    const pin = fp(rootPem).replace(/:/g, '').toLowerCase();
    assert.deepEqual(await run({ caFingerprint: pin }).result, { caPem: caBundlePem, caFingerprint: fp(rootPem) });
    await assert.rejects(run({ caFingerprint: fp(otherRootPem) }).result, (err: unknown) => {
      assert.ok(err instanceof FailureError);
      assert.match(err.message, /no CA certificate served by .* has the SHA-256 fingerprint/);
      assert.ok(err.details.some((d) => d.includes(fp(rootPem))));
      return true;
    });
  });

  it('--ca FILE is used after checking the server chains to it', async () => {
    const good = path.join(dir, 'good.pem');
    const wrong = path.join(dir, 'wrong.pem');
    writeFileSync(good, caBundlePem);
    writeFileSync(wrong, otherRootPem);
    const before = cacertsFetches(stub);
    assert.equal((await run({ caFile: good }).result).caPem, caBundlePem);
    assert.equal(cacertsFetches(stub), before, 'no unverified download with --ca');
    await assert.rejects(run({ caFile: wrong }).result, /does not chain to --ca/);
    await assert.rejects(run({ caFile: path.join(dir, 'missing.pem') }).result, UsageError);
  });

  it('keeps a profile CA that still works, without downloading anything', async () => {
    const before = cacertsFetches(stub);
    assert.equal((await run({ knownCaPem: caBundlePem }).result).caPem, caBundlePem);
    assert.equal(cacertsFetches(stub), before);
  });

  it('refuses a CA that changed since the profile trusted it, even with --yes or a yes at the prompt', async () => {
    for (const extra of [{ yes: true }, { tty: true, answer: true }]) {
      const { asked, result } = run({ knownCaPem: otherRootPem, ...extra });
      await assert.rejects(result, (err: unknown) => {
        assert.ok(err instanceof FailureError);
        assert.match(err.message, /has changed since this profile trusted it; nothing was sent/);
        const details = err.details.join('\n');
        assert.ok(details.includes(fp(otherRootPem)) && details.includes(fp(rootPem)), details);
        assert.match(details, /--ca-fingerprint .*--ca FILE/);
        return true;
      });
      assert.deepEqual(asked, []);
    }
    // Logging in a profile a bare command would not pick: the re-trusting login names it, not the current one.
    const elsewhere = run({ knownCaPem: otherRootPem, yes: true, selection: { profile: 'qs2' } });
    await assert.rejects(elsewhere.result, (err: unknown) => {
      assert.ok(err instanceof FailureError);
      assert.match(err.details.join('\n'), /ctl login \S+ --ca-fingerprint \S+ --profile qs2 {3}\(or --ca FILE\)/);
      return true;
    });
    // Re-trusting on purpose: the new CA's fingerprint, given explicitly.
    assert.equal((await run({ knownCaPem: otherRootPem, caFingerprint: fp(rootPem) }).result).caPem, caBundlePem);
  });

  it('refuses to save a bundle the server does not chain to', async () => {
    const io = createTestIO();
    const result = establishTrust({ url: rebuilt.url, io, confirm: async () => true, yes: true });
    await assert.rejects(result, /does not chain to the CA bundle it serves; nothing was saved/);
  });
});
