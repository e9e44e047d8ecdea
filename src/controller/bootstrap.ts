// What a controller writes at boot: the built-in rows and, on a first start, the default admin. Through the
// model's write path, as every other write, so that the hooks of their resources run (an auth policy normalised,
// an identity's service update stamps and sessions kept): a row made at boot is made as the API would make it.
import { randomBytes } from 'node:crypto';
import type { PasswordHasher } from './auth/password.js';
import type { EntityWrites } from './runtime.js';
import { newId } from './store/repository.js';
import { builtInRows, type Store } from './store/store.js';

export interface DefaultAdmin {
  username: string;
  password?: string;
  passwords: PasswordHasher;
  /** Hears a generated password before it is stored, and nowhere else. */
  announce?: (password: string) => void;
}

/**
 * The built-in rows a database lacks (a new one, or a release that declares more), then the default admin if
 * there is none. One controller at a time (`Store.oneAtATime`): two starting at once on an empty database make one
 * admin, and neither start fails on the other's rows.
 */
export async function writeBootRows(store: Store, writes: EntityWrites, at: Date, admin: DefaultAdmin): Promise<void> {
  await store.oneAtATime(async () => {
    const now = at.toISOString();
    await store.tx(async () => {
      for (const { def, row } of builtInRows()) {
        if (!(await store.repoFor(def).find(row.id)))
          await writes.insert(def.name, row, { id: row.id, now, isSystem: true });
      }
    });
    await ensureDefaultAdmin(store, writes, admin, now);
  });
}

/**
 * Creates the default admin on first start: identity "Default Admin" (isAdmin, isDefaultAdmin) with a updb
 * authenticator. A password it has to generate goes to `announce`, before it is stored.
 */
async function ensureDefaultAdmin(store: Store, writes: EntityWrites, admin: DefaultAdmin, now: string): Promise<void> {
  if (await store.repo('identity').exists({ isDefaultAdmin: true })) return;
  const password = admin.password ?? randomBytes(18).toString('base64url');
  const hash = await admin.passwords.hash(password);
  // Shown before it is stored: a start that dies in between leaves no password that nobody ever saw.
  if (!admin.password) admin.announce?.(password);
  await store.tx(async () => {
    const identity = {
      name: 'Default Admin',
      type: 'Default',
      isAdmin: true,
      isDefaultAdmin: true,
      authPolicyId: 'default',
    };
    const identityId = await writes.insert('identity', identity, { now });
    const authenticator = { identityId, method: 'updb', username: admin.username, password: hash };
    await writes.insert('authenticator', authenticator, { id: newId(), now });
  });
}
