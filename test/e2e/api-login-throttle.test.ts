// Password guessing is throttled per client address and per username (docs/security.md): the guesser gets 429
// with Retry-After, other clients and other users are untouched. Buckets are made small here so the test is fast;
// requests come from two loopback source addresses (127.0.0.1 and 127.0.0.2) to be two clients.
import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import {
  type HttpHelper,
  type TestController,
  assertError,
  createUser,
  randomPassword,
  startTestController,
} from '../helpers/controller.js';
import { validateResponse } from '../helpers/spec.js';

let ctl: TestController;
let admin: HttpHelper;

before(async () => {
  ctl = await startTestController({
    loginThrottle: {
      perAddress: { capacity: 3, refillPerSecond: 0.01, maxKeys: 100 },
      perUsername: { capacity: 5, refillPerSecond: 0.01, maxKeys: 100 },
      maxTrackedIdentities: 100,
    },
  });
  admin = await ctl.admin();
});
after(() => ctl?.close());

interface Answer {
  status: number;
  retryAfter?: string;
  body: any;
}

/** POST /authenticate from a given loopback source address; the answer is checked against the spec. */
function login(from: string, username: string, password: string): Promise<Answer> {
  const payload = JSON.stringify({ username, password });
  const path = '/edge/client/v1/authenticate?method=password';
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: ctl.port,
        localAddress: from,
        method: 'POST',
        path,
        ca: ctl.caPem,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          validateResponse('client', 'POST', '/authenticate?method=password', res.statusCode ?? 0, body);
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('failed logins are throttled per client address and per username', () => {
  it('an address that keeps failing gets 429 and Retry-After; not another, nor a correct login elsewhere', async () => {
    const victim = await createUser(admin);
    const bystander = await createUser(admin);
    for (let i = 0; i < 3; i++) assert.equal((await login('127.0.0.2', `guess-${i}`, 'wrong-password')).status, 401);
    const refused = await login('127.0.0.2', victim.username, victim.password);
    assert.equal(refused.status, 429, 'even the right password is refused while the address is throttled');
    assert.equal(refused.body.error.code, 'SERVER_TOO_MANY_REQUESTS');
    assert.match(refused.retryAfter ?? '', /^[1-9]\d*$/, 'Retry-After carries whole seconds');
    // Another client address is not affected by the first one's guessing.
    assert.equal((await login('127.0.0.1', bystander.username, bystander.password)).status, 200);
    assert.equal((await login('127.0.0.1', victim.username, victim.password)).status, 200);
  });

  it('a username guessed at from several addresses gets 429, for existing and unknown usernames alike', async () => {
    const target = await createUser(admin);
    const sources = {
      [target.username]: ['127.0.0.3', '127.0.0.4', '127.0.0.5'],
      'no-such-user-x': ['127.0.0.7', '127.0.0.8', '127.0.0.9'],
    };
    for (const [name, from] of Object.entries(sources)) {
      // Fewer failures per address than the address limit (3): only the username's bucket (5) runs out.
      for (let i = 0; i < 5; i++) assert.equal((await login(from[i % 3], name, randomPassword())).status, 401);
      const res = await login('127.0.0.6', name, randomPassword());
      assert.equal(res.status, 429, `${name}: throttled`);
      assert.ok(res.retryAfter);
    }
    // Another username from the address that was refused still works.
    const other = await createUser(admin);
    assert.equal((await login('127.0.0.6', other.username, other.password)).status, 200);
  });

  it('the own-password change is throttled like a login', async () => {
    const user = await createUser(admin);
    const session = await ctl.api.on('client').loginAs(user.username, user.password);
    for (let i = 0; i < 3; i++) {
      const res = await session.patch(`/current-identity/authenticators/${user.authenticatorId}`, {
        currentPassword: randomPassword(),
        password: randomPassword(),
      });
      assertError(res, 400, 'COULD_NOT_VALIDATE', 'currentPassword');
    }
    const res = await session.patch(`/current-identity/authenticators/${user.authenticatorId}`, {
      currentPassword: user.password,
      password: randomPassword(),
    });
    assertError(res, 429, 'SERVER_TOO_MANY_REQUESTS');
  });
});
