// The expiry flags and the JWT output of every verb that makes a new enrollment JWT (an enrollment created or
// refreshed, an authenticator reverted to enrollment): one wording in --help, one way of writing the JWT.
import { Option } from '@commander-js/extra-typings';
import type { Command, OptionValues } from '@commander-js/extra-typings';
import { UsageError } from '../../console/errors.js';
import { enrollment } from '../../resources/enrollment.js';
import type { Deps } from '../deps.js';
import { parseMinutes } from './duration.js';
import { jwtOutputOptions, reserveJwtOutput, type JwtOutput } from './jwt-output.js';
import { entityPath } from './resolve.js';

/** The default lifetime of a new token: the controller's default for new enrollments (180 minutes). */
const DEFAULT_MINUTES = 180;
const DEFAULT_HOURS = DEFAULT_MINUTES / 60;

/** The expiry flags of a verb that makes a new enrollment JWT. */
export interface NewJwtOptions extends JwtOutput {
  expiresIn?: number;
  expiresAt?: string;
}

export function expiryOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  const expiring = command
    .addOption(
      new Option(
        '--expires-in <duration>',
        `how long the new token lives (30m, 2h, 1d; default ${DEFAULT_HOURS}h)`,
      ).argParser(parseMinutes),
    )
    .addOption(new Option('--expires-at <time>', 'when the new token expires (ISO 8601)'));
  return jwtOutputOptions(expiring, 'the new JWT');
}

/**
 * Runs `call` (which makes an enrollment with the expiry and returns its id), then writes that enrollment's JWT to
 * stdout or --jwt-output (reserved before the call, so a write that would fail is found first).
 */
export async function withNewJwt(
  opts: NewJwtOptions,
  deps: Deps,
  verb: string,
  call: (api: Awaited<ReturnType<Deps['api']>>, expiresAt: string) => Promise<string>,
): Promise<void> {
  if (opts.expiresIn !== undefined && opts.expiresAt !== undefined) {
    throw new UsageError('--expires-in and --expires-at cannot be combined');
  }
  let expiresAt: string;
  if (opts.expiresAt !== undefined) {
    const at = new Date(opts.expiresAt);
    if (Number.isNaN(at.getTime())) {
      const example = 'example: 2030-01-01T00:00:00Z';
      throw new UsageError(`--expires-at '${opts.expiresAt}' is not a date and time`, [example]);
    }
    expiresAt = at.toISOString();
  } else {
    expiresAt = new Date(deps.clock().getTime() + (opts.expiresIn ?? DEFAULT_MINUTES) * 60_000).toISOString();
  }
  const file = await reserveJwtOutput(opts);
  try {
    const api = await deps.api();
    const id = await call(api, expiresAt);
    type Detail = { jwt?: string; method?: string; identity?: { name?: string } };
    const detail = await api.get<Detail>(entityPath(enrollment, id));
    if (!detail.jwt) throw new UsageError(`enrollment ${id} has no JWT`);
    const holder = detail.identity?.name ? ` of ${detail.identity.name}` : '';
    const what = `${detail.method ?? ''} enrollment ${id}${holder}`.trim();
    if (file) {
      await file.write(detail.jwt);
      deps.io.info(`${verb} ${what}: wrote the JWT to ${opts.jwtOutput} (expires ${expiresAt})`);
    } else {
      deps.io.out(detail.jwt);
      deps.io.info(`${verb} ${what} (expires ${expiresAt})`);
    }
  } catch (err) {
    await file?.abandon();
    throw err;
  }
}
