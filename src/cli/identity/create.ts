import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { identity } from '../../resources/identity.js';
import type { Deps } from '../deps.js';
import { FailureError } from '../../console/errors.js';
import { createAction, createEntity, requiredBooleans } from '../generic/create.js';
import { addFieldFlags } from '../generic/fields.js';
import type { FieldInput } from '../generic/fields.js';
import { addDryRun } from '../generic/dry-run.js';
import { withMeta } from '../generic/meta.js';
import { entityPath } from '../generic/resolve.js';
import { jwtOutputOptions, type JwtOutput } from '../generic/jwt-output.js';
import { createWithJwt } from '../generic/created-jwt.js';
import type { ApiClient } from '../../client/types.js';

export interface IdentityCreateOptions extends JwtOutput {
  name: string;
  input: FieldInput;
  /** Enroll with this username and a password (updb); otherwise a one-time token (ott). */
  updb?: string;
}

/** The type the catalogue requires; most identities are plain ones. */
const DEFAULT_TYPE = 'Default';

export function buildIdentityCreate(deps: Deps, run = runIdentityCreate): CommandUnknownOpts {
  const base = withMeta(
    new Command('create').argument('[name]', 'name of the new identity (asked for on a terminal when left out)'),
    {
      description:
        `Create an identity (type ${DEFAULT_TYPE} and a one-time-token ` +
        'enrollment unless told otherwise); prints its id',
      examples: [
        'ctl identity create laptop-7 -a sales,emea --jwt-output laptop-7.jwt',
        'ctl identity create ci-bot --jwt-output - > ci-bot.jwt',
        'ctl identity create alice --admin --updb alice',
      ],
    },
  );
  // The enrollment is chosen by --updb rather than given as JSON.
  const flags = addFieldFlags(base, identity, 'create', ['name', 'enrollment']);
  // Added after the field flags, so that --help lists them in this order; typed, so that the action reads them.
  const updb = new Option('--updb <username>', 'enroll with this username and a password instead of a one-time token');
  const command = addDryRun(jwtOutputOptions(base.addOption(updb)));
  return command.action(async (name, o, cmd) => {
    await createAction(cmd, deps, identity, flags, name, (n, input, d) =>
      run({ name: n!, input, updb: o.updb, jwtOutput: o.jwtOutput, ...(o.force ? { force: true } : {}) }, d),
    );
  });
}

export async function runIdentityCreate(opts: IdentityCreateOptions, deps: Deps): Promise<void> {
  const create = (api: ApiClient) => createEntity(api, identity, createBody(opts), opts.input);
  await createWithJwt(deps, identity, opts, create, (api, id) => enrollmentJwt(api, opts, id));
}

function createBody(opts: IdentityCreateOptions): Record<string, unknown> {
  return {
    ...requiredBooleans(identity),
    type: DEFAULT_TYPE,
    name: opts.name,
    enrollment: opts.updb === undefined ? { ott: true } : { updb: opts.updb },
  };
}

async function enrollmentJwt(api: ApiClient, opts: IdentityCreateOptions, id: string): Promise<string> {
  const method = opts.updb === undefined ? 'ott' : 'updb';
  const detail = await api.get<{ enrollment?: Record<string, { jwt?: string } | undefined> }>(entityPath(identity, id));
  const jwt = detail.enrollment?.[method]?.jwt;
  if (!jwt)
    throw new FailureError(
      `created identity "${opts.name}" (${id}), but the controller returned no ${method} enrollment JWT`,
    );
  return jwt;
}
