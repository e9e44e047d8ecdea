// The enrollment noun's own verbs, beside the generic list, show, create and delete: `refresh` (a new JWT, the old
// one dead). Registered in src/cli/tree.ts with nounCommands.
import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { enrollment } from '../../resources/enrollment.js';
import type { Deps } from '../deps.js';
import { UsageError } from '../../console/errors.js';
import { addDryRun, dryRunnable } from '../generic/dry-run.js';
import { withMeta } from '../generic/meta.js';
import { entityPath, resolveId } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';
import { identity } from '../../resources/identity.js';
import { ca } from '../../resources/ca.js';
import type { NounModule } from '../nouns/verbs.js';
import { expiryOptions, withNewJwt, type NewJwtOptions } from '../generic/new-jwt.js';

export interface EnrollmentRefreshOptions extends NewJwtOptions {
  id: string;
}

export function buildEnrollmentRefresh(deps: Deps, run = runEnrollmentRefresh): CommandUnknownOpts {
  const id = nameArgument(enrollment, 'the enrollment to refresh (`ctl enrollment list` shows ids)');
  const command = expiryOptions(
    withMeta(new Command('refresh').addArgument(id), {
      description:
        'Give an enrollment a new one-time token and JWT with a new expiry (also one that has expired); the old ' +
        'JWT stops working at once. The new JWT goes to stdout, or to --jwt-output FILE (mode 0600).',
      examples: [
        'ctl enrollment refresh 3kq9Zx1',
        'ctl enrollment refresh 3kq9Zx1 --expires-in 2d --jwt-output laptop-7.jwt',
        'ctl enrollment refresh 3kq9Zx1 --expires-at 2030-01-01T00:00:00Z',
      ],
    }),
  );
  return addDryRun(command).action(async (id, o, cmd) => dryRunnable(cmd, deps, (d) => run({ id, ...o }, d)));
}

export async function runEnrollmentRefresh(opts: EnrollmentRefreshOptions, deps: Deps): Promise<void> {
  await withNewJwt(opts, deps, 'refreshed', async (api, expiresAt) => {
    await api.post(`${entityPath(enrollment, opts.id)}/refresh`, { expiresAt });
    return opts.id;
  });
}

export interface EnrollmentCreateOptions extends NewJwtOptions {
  identity: string;
  method: string;
  username?: string;
  ca?: string;
}

export function buildEnrollmentCreate(deps: Deps, run = runEnrollmentCreate): CommandUnknownOpts {
  const command = expiryOptions(
    withMeta(new Command('create').addArgument(nameArgument(identity, 'the identity that enrolls')), {
      description:
        'Give an identity a new enrollment (one per method at a time) and output its JWT: stdout, or --jwt-output ' +
        'FILE (mode 0600). ott: a certificate from this controller; ' +
        'updb: a password for --username; ottca: a certificate from --ca.',
      examples: [
        'ctl enrollment create laptop-7 --method ott --jwt-output laptop-7.jwt',
        'ctl enrollment create alice --method updb --username alice --expires-in 1d',
        'ctl enrollment create sensor-9 --method ottca --ca corp',
      ],
    })
      .addOption(
        new Option('--method <method>', 'the enrollment method').choices(['ott', 'updb', 'ottca']).default('ott'),
      )
      .addOption(new Option('--username <user>', 'updb: the username the identity will log in with'))
      .addOption(new Option('--ca <name-or-id>', 'ottca: the CA whose certificate the identity will enroll with')),
  );
  return addDryRun(command).action(async (ref, o, cmd) =>
    dryRunnable(cmd, deps, (d) => run({ identity: ref, ...(o as Omit<EnrollmentCreateOptions, 'identity'>) }, d)),
  );
}

export async function runEnrollmentCreate(opts: EnrollmentCreateOptions, deps: Deps): Promise<void> {
  if (opts.method === 'updb' && opts.username === undefined) throw new UsageError('--method updb needs --username');
  if (opts.method !== 'updb' && opts.username !== undefined)
    throw new UsageError('--username is only for --method updb');
  if (opts.method === 'ottca' && opts.ca === undefined) throw new UsageError('--method ottca needs --ca');
  if (opts.method !== 'ottca' && opts.ca !== undefined) throw new UsageError('--ca is only for --method ottca');
  await withNewJwt(opts, deps, 'created', async (api, expiresAt) => {
    const identityId = await resolveId(api, identity, opts.identity);
    const caId = opts.ca === undefined ? undefined : await resolveId(api, ca, opts.ca);
    const created = await api.post<{ id: string }>(entityPath(enrollment), {
      identityId,
      method: opts.method,
      expiresAt,
      ...(opts.username !== undefined ? { username: opts.username } : {}),
      ...(caId !== undefined ? { caId } : {}),
    });
    return created.id;
  });
}

export const verbs: NounModule['verbs'] = {
  create: (deps) => buildEnrollmentCreate(deps),
  refresh: (deps) => buildEnrollmentRefresh(deps),
};
