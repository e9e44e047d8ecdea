// Sessions do not outlive credentials (docs/security.md): a password change (own or by an admin), the deletion of
// an authenticator and disabling the identity end the identity's other API sessions; the session that changed its
// own password stays.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type HttpHelper,
  type TestController,
  assertStatus,
  createUser,
  randomPassword,
  startTestController,
} from '../helpers/controller.js';

let ctl: TestController;
let admin: HttpHelper;

before(async () => {
  ctl = await startTestController();
  admin = await ctl.admin();
});
after(() => ctl?.close());

async function alive(h: HttpHelper): Promise<boolean> {
  const res = await h.get('/current-api-session', { api: 'client' });
  assert.ok(res.status === 200 || res.status === 401, `unexpected ${res.status}`);
  return res.status === 200;
}

/** A user with two client-API sessions (say, a laptop and a phone). */
async function userWithTwoSessions() {
  const user = await createUser(admin);
  const client = ctl.api.on('client');
  const first = await client.loginAs(user.username, user.password);
  const second = await client.loginAs(user.username, user.password);
  assert.ok((await alive(first)) && (await alive(second)));
  return { user, first, second };
}

describe('sessions end with the credentials they were made with', () => {
  it("changing one's own password ends the other sessions and keeps the one that changed it", async () => {
    const { user, first, second } = await userWithTwoSessions();
    const res = await first.patch(
      `/current-identity/authenticators/${user.authenticatorId}`,
      { currentPassword: user.password, password: randomPassword() },
      { api: 'client' },
    );
    assertStatus(res, 200);
    assert.equal(await alive(first), true, 'the session that changed the password stays');
    assert.equal(await alive(second), false, 'the other session ended');
  });

  it("PUT of one's own authenticator with a new password does the same", async () => {
    const { user, first, second } = await userWithTwoSessions();
    const res = await second.put(
      `/current-identity/authenticators/${user.authenticatorId}`,
      { username: user.username, currentPassword: user.password, password: randomPassword() },
      { api: 'client' },
    );
    assertStatus(res, 200);
    assert.equal(await alive(second), true);
    assert.equal(await alive(first), false);
  });

  it("changing only the tags of one's own authenticator ends nothing", async () => {
    const { user, first, second } = await userWithTwoSessions();
    const res = await first.patch(
      `/current-identity/authenticators/${user.authenticatorId}`,
      { currentPassword: user.password, tags: { a: 'b' } },
      { api: 'client' },
    );
    assertStatus(res, 200);
    assert.equal(await alive(second), true);
  });

  for (const verb of ['patch', 'put'] as const) {
    it(`an admin resetting the password (${verb.toUpperCase()}) ends all the identity's sessions`, async () => {
      const { user, first, second } = await userWithTwoSessions();
      const body =
        verb === 'put' ? { username: user.username, password: randomPassword() } : { password: randomPassword() };
      assertStatus(await admin[verb](`/authenticators/${user.authenticatorId}`, body), 200);
      assert.equal(await alive(first), false);
      assert.equal(await alive(second), false);
      assert.equal(await alive(admin.on('client')), true, "the admin's own session is untouched");
    });
  }

  it('an admin renaming (no password) ends nothing', async () => {
    const { user, first } = await userWithTwoSessions();
    assertStatus(await admin.patch(`/authenticators/${user.authenticatorId}`, { username: `${user.username}-x` }), 200);
    assert.equal(await alive(first), true);
  });

  it("deleting the authenticator ends the identity's sessions", async () => {
    const { user, first, second } = await userWithTwoSessions();
    assertStatus(await admin.delete(`/authenticators/${user.authenticatorId}`), 200);
    assert.equal(await alive(first), false);
    assert.equal(await alive(second), false);
  });

  it('disabling the identity ends its sessions', async () => {
    const { user, first } = await userWithTwoSessions();
    assertStatus(await admin.post(`/identities/${user.id}/disable`, { durationMinutes: 0 }), 200);
    assert.equal(await alive(first), false);
  });

  it('an admin changing its own password through the management route keeps the session doing it', async () => {
    const other = await createUser(admin, { isAdmin: true });
    const mgmt = await ctl.api.loginAs(other.username, other.password);
    const phone = await ctl.api.on('client').loginAs(other.username, other.password);
    assertStatus(await mgmt.patch(`/authenticators/${other.authenticatorId}`, { password: randomPassword() }), 200);
    assert.equal(await alive(mgmt), true);
    assert.equal(await alive(phone), false);
  });
});
