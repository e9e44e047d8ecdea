import { randomBytes } from 'node:crypto';
import { hashPassword } from './auth/password.js';
import { newId } from './store/repository.js';
import type { Store } from './store/store.js';

/**
 * Creates the default admin on first start: identity "Default Admin" (isAdmin, isDefaultAdmin) with a updb
 * authenticator. Returns the password when it had to be generated, so the caller can print it once.
 */
export async function ensureDefaultAdmin(
  store: Store,
  opts: { username: string; password?: string; now: Date },
): Promise<{ generatedPassword?: string }> {
  const exists = store.prepare(`SELECT 1 FROM identities WHERE "isDefaultAdmin" = 1`).get();
  if (exists) return {};
  const password = opts.password ?? randomBytes(18).toString('base64url');
  const hash = await hashPassword(password);
  const now = opts.now.toISOString();
  store.tx(() => {
    const identityId = store.repo('identity').insert(
      { name: 'Default Admin', type: 'Default', isAdmin: true, isDefaultAdmin: true, authPolicyId: 'default' },
      { now },
    );
    store.repo('authenticator').insert({ identityId, method: 'updb', username: opts.username, password: hash }, { id: newId(), now });
  });
  return opts.password ? {} : { generatedPassword: password };
}
