import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { createAction, createEntity, requiredBooleans } from '../generic/create.js';
import { addFieldFlags, type FieldInput } from '../generic/fields.js';
import { addDryRun } from '../generic/dry-run.js';
import { given } from '../generic/flags.js';
import { withMeta } from '../generic/meta.js';
import { noun } from '../generic/words.js';
import { jwtOutputOptions, type JwtOutput } from '../generic/jwt-output.js';
import { routerJwt } from './jwt.js';
import { createWithJwt } from '../generic/created-jwt.js';

export interface RouterCreateOptions extends JwtOutput {
  name: string;
  input: FieldInput;
}

/**
 * `ctl router create` (edge routers) and `ctl transit-router create`: the fields as flags, and the enrollment JWT the
 * controller makes with every router written where --jwt-output says. Edge routers take `--tunneler` for
 * isTunnelerEnabled. Config ids are not a flag yet (the generic flags have no form for id lists).
 */
export function buildRouterCreate(deps: Deps, def: ResourceDef, run = runRouterCreate): CommandUnknownOpts {
  const n = noun(def);
  const edge = 'isTunnelerEnabled' in def.fields;
  const base = withMeta(
    new Command('create').argument('[name]', `name of the new ${def.label} (asked for on a terminal when left out)`),
    {
      description: `Create ${edge ? 'an edge router' : 'a transit router'} with its one-time enrollment; prints its id`,
      examples: edge
        ? [
            `ctl ${n} create er-eu-1 -a public,eu --jwt-output er-eu-1.jwt`,
            `ctl ${n} create er-tun --tunneler --jwt-output - > er-tun.jwt`,
          ]
        : [`ctl ${n} create tr-core-1 --cost 10 --jwt-output tr-core-1.jwt`],
    },
  );
  const flags = addFieldFlags(base, def, 'create', ['name', 'isTunnelerEnabled', 'configs']);
  if (edge)
    base.addOption(
      new Option(
        '--tunneler',
        'the router also acts as a tunneler (gets a Router identity and a system edge router policy)',
      ),
    );
  const command = addDryRun(jwtOutputOptions(base));
  return command.action(async (name, o, cmd) => {
    await createAction(cmd, deps, def, flags, name, (n, input, d) => {
      // Edge routers only: a flag of some commands, so read by name.
      if (given(cmd, 'tunneler')) input.body.isTunnelerEnabled = true;
      return run(def, { name: n!, input, jwtOutput: o.jwtOutput, ...(o.force ? { force: true } : {}) }, d);
    });
  });
}

export async function runRouterCreate(def: ResourceDef, opts: RouterCreateOptions, deps: Deps): Promise<void> {
  const body = { ...requiredBooleans(def), name: opts.name };
  await createWithJwt(
    deps,
    def,
    opts,
    (api) => createEntity(api, def, body, opts.input),
    (api, id) => routerJwt(api, def, id, opts.name),
  );
}
