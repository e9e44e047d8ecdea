// The whole client story through `ctl` only, against a real controller: an admin makes a service with a config and
// the policies to reach it, an identity is enrolled with `ctl enroll`, and `ctl as` shows the network as that identity
// sees it (its services, their configs and posture), creates a session, reports posture, and sees its session end
// when a policy change takes the service away. The admin's profile is untouched throughout.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { expectCtl, parseJsonOutput, runCtl, tempConfigDir } from '../helpers/cli.js';
import { useCliFixture } from '../helpers/cli-fixture.js';

const f = useCliFixture('as-cli');

describe('ctl as IDENTITY_FILE', () => {
  it('sees services with configs, creates a session, reports posture, sees it end on a policy change', async () => {
    const admin = (args: string[]) => f.cli.expect(0, args);
    await admin([
      'config',
      'create',
      'web-intercept',
      '--type',
      'intercept.v1',
      '--data',
      '{"protocols":["tcp"],"addresses":["web.ziti"],"portRanges":[{"low":443,"high":443}]}',
    ]);
    await admin(['service', 'create', 'web', '-a', 'web', '--config', 'web-intercept', '--encryption-required']);
    await admin(['router', 'create', 'edge-1', '-a', 'public']);
    await admin(['policy', 'create', 'router', 'everyone-public', '--identities', '#all', '--routers', '#public']);
    await admin(['policy', 'create', 'service-router', 'web-routers', '--services', '#web', '--routers', '#public']);
    await admin(['policy', 'create', 'dial', 'sales-web', '--identities', '#sales', '--services', '#web']);
    const jwt = path.join(f.tmp, 'laptop-7.jwt');
    await admin(['identity', 'create', 'laptop-7', '-a', 'sales', '--jwt-output', jwt]);
    // The identity's side has no profile at all: a config directory of its own, never logged in.
    const device = await tempConfigDir();
    await expectCtl(0, ['enroll', jwt], { configDir: device });
    const file = jwt.replace(/\.jwt$/, '.json');
    const as = (args: string[], code = 0) => expectCtl(code, ['as', file, ...args], { configDir: device });

    // Its services: web, Dial, with the intercept config's data, posture passing (no checks).
    const table = await as(['services']);
    assert.match(table.stdout, /web\s+Dial\s+passing\s+intercept\.v1/);
    const [web] = parseJsonOutput(await as(['services', '-o', 'json']));
    assert.equal(web.name, 'web');
    assert.deepEqual(web.permissions, ['Dial']);
    assert.deepEqual(web.config['intercept.v1'].addresses, ['web.ziti']);
    assert.equal(parseJsonOutput(await as(['services', 'web', '-o', 'json'])).id, web.id);

    // A Bind session is not granted; a Dial session is, with its edge router.
    const bind = await as(['session', 'create', 'web', '--bind'], 6);
    assert.match(bind.stderr, /laptop-7 may Dial web, not Bind/);
    const session = parseJsonOutput(await as(['session', 'create', 'web', '-o', 'json']));
    assert.equal(session.type, 'Dial');
    assert.deepEqual(
      session.edgeRouters.map((r: { name: string }) => r.name),
      ['edge-1'],
    );
    assert.ok(session.token);
    assert.deepEqual(
      parseJsonOutput(await as(['session', 'list', '-o', 'json'])).map((s: { id: string }) => s.id),
      [session.id],
    );
    // An admin's list names the session's identity (served only as an id) as well as its service.
    assert.match(
      (await f.cli.expect(0, ['session', 'list'])).stdout,
      new RegExp(`^${session.id}\\s+Dial\\s+web\\s+laptop-7\\b`, 'm'),
    );
    assert.match((await as(['updates'])).stdout, /lastChangeAt/);

    // A posture check on the policy: refused until the device reports its domain.
    await admin(['posture-check', 'create', 'domain', 'corp', '--domain', 'corp.example.com', '-a', 'managed']);
    await admin(['policy', 'update', 'sales-web', '--posture-checks', '#managed']);
    assert.match((await as(['services'])).stdout, /web\s+Dial\s+failing: DOMAIN/);
    const refused = await as(['session', 'create', 'web', '--dial'], 6);
    // The controller's cause first, then what to do about it.
    assert.match(
      refused.stderr,
      /laptop-7 cannot dial web: .*\n.*Failed to pass posture checks .*\n.*posture: failing: DOMAIN/,
    );
    const after = await as(['posture', 'submit', '--domain', 'corp.example.com']);
    assert.match(after.stdout, /web\s+Dial\s+passing/);
    const posture = parseJsonOutput(
      await f.cli.expect(0, ['api', 'GET', `/identities/${await identityId()}/posture-data`]),
    );
    assert.equal(posture.data.domain.domain, 'corp.example.com');

    // The policy no longer selects the identity: its session ends, and it sees nothing, with where to look.
    await admin(['policy', 'update', 'sales-web', '--identities', '#nobody']);
    assert.equal(
      (await runCtl(['session', 'show', session.id], { configDir: f.cli.configDir })).code !== 0,
      true,
      'the session ended',
    );
    assert.deepEqual(parseJsonOutput(await as(['session', 'list', '-o', 'json'])), []);
    const none = await as(['services']);
    assert.equal(none.stdout, '');
    assert.match(none.stderr, /no services visible to laptop-7: .*ctl policy explain laptop-7 SERVICE/);
    const hidden = await as(['session', 'create', 'web'], 2);
    assert.match(hidden.stderr, /ctl policy explain laptop-7 web/);

    // The admin's profile was never touched; the device's config directory holds no profile either.
    assert.equal(parseJsonOutput(await f.cli.expect(0, ['whoami', '-o', 'json'])).admin, true);
    assert.deepEqual(parseJsonOutput(await expectCtl(0, ['profile', 'list', '-o', 'json'], { configDir: device })), []);
    // Mistakes are usage errors naming the command.
    assert.match((await as(['sessions'], 2)).stderr, /unknown command 'sessions'/);
    assert.match((await as(['session', 'create', 'web', '--dial', '--bind'], 2)).stderr, /cannot be combined/);
  });
});

async function identityId(): Promise<string> {
  const res = await f.admin.get('/identities', { query: { filter: 'name = "laptop-7"' } });
  return res.body.data[0].id as string;
}
