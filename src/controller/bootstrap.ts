import { randomBytes } from 'node:crypto';
import type { PasswordHasher } from './auth/password.js';
import { newId } from './store/repository.js';
import type { Store } from './store/store.js';

/**
 * Creates the default admin on first start: identity "Default Admin" (isAdmin, isDefaultAdmin) with a updb
 * authenticator. A password it has to generate goes to `announce`, before it is stored, and nowhere else.
 */
export async function ensureDefaultAdmin(
  store: Store,
  opts: {
    username: string;
    password?: string;
    now: Date;
    passwords: PasswordHasher;
    announce?: (password: string) => void;
  },
): Promise<void> {
  if (await store.repo('identity').exists({ isDefaultAdmin: true })) return;
  const password = opts.password ?? randomBytes(18).toString('base64url');
  const hash = await opts.passwords.hash(password);
  // Shown before it is stored: a start that dies in between leaves no password that nobody ever saw.
  if (!opts.password) opts.announce?.(password);
  const now = opts.now.toISOString();
  await store.tx(async () => {
    const identityId = await store
      .repo('identity')
      .insert(
        { name: 'Default Admin', type: 'Default', isAdmin: true, isDefaultAdmin: true, authPolicyId: 'default' },
        { now },
      );
    await store
      .repo('authenticator')
      .insert({ identityId, method: 'updb', username: opts.username, password: hash }, { id: newId(), now });
  });
}
