import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { edgeRouter } from '../../resources/edge-router.js';
import type { Deps } from '../deps.js';
import { confirmOrDecline } from '../generic/confirm.js';
import { yesOption } from '../generic/flags.js';
import { withMeta } from '../generic/meta.js';
import { suggester } from '../generic/suggest.js';
import { shellQuote } from '../../console/command-hint.js';
import { entityPath, resolveId } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';
import { jwtOutputOptions, reserveJwtOutput, type JwtOutput } from '../generic/jwt-output.js';
import { routerJwt } from './jwt.js';
import { deliverJwt } from '../generic/created-jwt.js';

export interface RouterReEnrollOptions extends JwtOutput {
  ref: string;
  yes?: boolean;
}

export function buildRouterReEnroll(deps: Deps, run = runRouterReEnroll): CommandUnknownOpts {
  const base = withMeta(
    new Command('re-enroll').addArgument(nameArgument(edgeRouter, 'the edge router to re-enroll')),
    {
      description:
        'Give an edge router a new enrollment: its certificate is ' +
        'removed, so it cannot connect until it enrolls with the new JWT',
      examples: [
        'ctl router re-enroll er-eu-1 --jwt-output er-eu-1.jwt',
        'ctl router re-enroll er-eu-1 --yes --jwt-output - | ssh er-eu-1 ziti router enroll ...',
      ],
    },
  ).addOption(yesOption());
  return jwtOutputOptions(base, 'the new enrollment JWT').action(async (ref, o) => {
    await run({ ref, jwtOutput: o.jwtOutput, ...(o.force ? { force: true } : {}), yes: o.yes === true }, deps);
  });
}

/**
 * The JWT's file is reserved before the router is looked up, so that a file in the way is refused before the
 * question is asked; a decline leaves no file behind.
 */
export async function runRouterReEnroll(opts: RouterReEnrollOptions, deps: Deps): Promise<void> {
  const api = await deps.api();
  const file = await reserveJwtOutput(opts);
  let id: string;
  try {
    id = await resolveId(api, edgeRouter, opts.ref);
    await confirmOrDecline(deps, {
      yes: opts.yes === true,
      action: `re-enrolling edge router "${opts.ref}"`,
      question:
        `Re-enroll edge router "${opts.ref}"? ` +
        'Its certificate is removed: it cannot connect until it enrolls again.',
    });
    await api.post(`${entityPath(edgeRouter, id)}/re-enroll`, undefined);
  } catch (err) {
    await file?.abandon();
    throw err;
  }
  const said = () =>
    deps.io.info(`re-enrolled edge router "${opts.ref}": it cannot connect until it enrolls with the new JWT`);
  if (opts.jwtOutput === undefined) {
    said();
    const show = (await suggester(deps))(`ctl router show ${shellQuote(opts.ref)} -o json`);
    deps.io.info(`the new JWT is in \`${show}\` (enrollmentJwt), or re-run with --jwt-output FILE`);
    return;
  }
  await deliverJwt(deps, opts, file, await routerJwt(api, edgeRouter, id, opts.ref), said);
}
