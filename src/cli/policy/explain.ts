import { Command } from '@commander-js/extra-typings';
import { everyPage } from '../generic/pages.js';
import { FailureError } from '../../console/errors.js';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ApiClient } from '../../client/types.js';
import { resource } from '../../resources/index.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { type Entity, entityPath, lookup } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';
import { asFormat } from '../output/formats.js';
import { renderOne } from '../output/render.js';

const identity = resource('identity');
const service = resource('service');

interface Named {
  id: string;
  name: string;
}

export interface Permission {
  allowed: boolean;
  /** Policies of this type that select both the identity and the service. */
  granting: Named[];
  /** Policies of this type that select only one of them: the near misses a person wants named. */
  identityOnly: Named[];
  serviceOnly: Named[];
  /** Posture checks the granting policies require (checked when the identity connects). */
  postureChecks: Named[];
  /**
   * Whether a session gets through whatever the device reports: a granting policy that requires no posture check.
   * Otherwise its checks must pass against the posture the identity's client reports, which an admin does not see
   * from here (`ctl as` shows it as the identity sees it).
   */
  postureAllows: boolean;
}

export interface Explanation {
  identity: Named;
  service: Named;
  dial: Permission;
  bind: Permission;
  routers: { identityCount: number; serviceCount: number; shared: Array<Named & { isOnline: boolean }> };
  /** Each sentence of the verdict, in the order `explain` prints them. */
  summary: string[];
}

export function buildPolicyExplain(deps: Deps, run = runPolicyExplain): CommandUnknownOpts {
  const command = withMeta(
    new Command('explain')
      .addArgument(nameArgument(identity, 'the identity (name or id)', 'identity'))
      .addArgument(nameArgument(service, 'the service (name or id)', 'service')),
    {
      description: 'Say whether an identity can dial and bind a service, and if not, what is missing',
      examples: ['ctl policy explain laptop-7 crm', 'ctl policy explain laptop-7 crm -o json'],
    },
  );
  return command.action(async (who, what) => run({ identity: who, service: what }, deps));
}

const named = (e: Record<string, unknown>): Named => ({ id: String(e.id), name: String(e.name) });

/**
 * Every entity of a list: a verdict from part of the policies would be wrong, so one that cannot be read whole fails.
 */
async function all(api: ApiClient, path: string): Promise<Entity[]> {
  const { rows } = await everyPage<Entity>(api, path, {}, {}, (n) => {
    throw new FailureError(
      `${path} holds more than ${n} entries, more than the controller pages through: explain cannot read them all`,
    );
  });
  return rows;
}

/** Everything `explain` says, from the controller's policy advice and relation lists. */
export async function explain(api: ApiClient, identityRef: string, serviceRef: string): Promise<Explanation> {
  // Requests that do not depend on each other go out together: each is a round trip to the controller.
  // (The two lookups stay in order: when both names are wrong, the identity's is the error, every time.)
  const who = await lookup(api, identity, identityRef);
  const what = await lookup(api, service, serviceRef);
  const [advice, identityPolicies, servicePolicies] = await Promise.all([
    api.get<Record<string, unknown>>(`${entityPath(identity, who.id)}/policy-advice/${encodeURIComponent(what.id)}`),
    all(api, `${entityPath(identity, who.id)}/service-policies`),
    all(api, `${entityPath(service, what.id)}/service-policies`),
  ]);
  const permission = async (type: 'Dial' | 'Bind'): Promise<Permission> => {
    const mine = identityPolicies.filter((p) => p.type === type);
    const its = servicePolicies.filter((p) => p.type === type);
    const granting = mine.filter((p) => its.some((q) => q.id === p.id));
    const required = await Promise.all(
      granting.map((p) => all(api, `/service-policies/${encodeURIComponent(p.id)}/posture-checks`)),
    );
    const checks = new Map(required.flat().map((c) => [c.id, named(c)]));
    const postureFree = required.some((r) => r.length === 0);
    return {
      allowed: advice[type === 'Dial' ? 'isDialAllowed' : 'isBindAllowed'] === true,
      granting: granting.map(named),
      identityOnly: mine.filter((p) => !granting.includes(p)).map(named),
      serviceOnly: its.filter((p) => !granting.some((g) => g.id === p.id)).map(named),
      postureChecks: [...checks.values()],
      postureAllows: postureFree,
    };
  };
  const [dial, bind] = await Promise.all([permission('Dial'), permission('Bind')]);
  const shared = (advice.commonRouters as Array<Record<string, unknown>>).map((r) => ({
    ...named(r),
    isOnline: r.isOnline === true,
  }));
  const routers = {
    identityCount: Number(advice.identityRouterCount),
    serviceCount: Number(advice.serviceRouterCount),
    shared,
  };
  const base = { identity: named(who), service: named(what), dial, bind, routers };
  return { ...base, summary: sentences(base) };
}

const list = (items: Named[]) => items.map((i) => `"${i.name}"`).join(', ');

function permissionSentence(verb: string, type: string, who: string, what: string, p: Permission): string {
  if (p.allowed) {
    if (p.postureAllows) return `${who} can ${verb} ${what}: granted by ${list(p.granting)}.`;
    return (
      `${who} may ${verb} ${what} by ${list(p.granting)}, but only by passing the posture checks ` +
      `${list(p.postureChecks)}, so a session is refused (INVALID_POSTURE) unless its client reports posture that ` +
      `passes them: \`ctl as IDENTITY_FILE services\` shows the verdicts as ${who} sees them.`
    );
  }
  const misses: string[] = [];
  if (p.identityOnly.length)
    misses.push(`${list(p.identityOnly)} select${p.identityOnly.length === 1 ? 's' : ''} ${who} but not ${what}`);
  if (p.serviceOnly.length)
    misses.push(`${list(p.serviceOnly)} select${p.serviceOnly.length === 1 ? 's' : ''} ${what} but not ${who}`);
  const why = misses.length ? misses.join('; ') : `no ${type} policy selects either`;
  return `${who} cannot ${verb} ${what}: no ${type} policy selects both (${why}).`;
}

function sentences(e: Omit<Explanation, 'summary'>): string[] {
  const who = `"${e.identity.name}"`;
  const what = `"${e.service.name}"`;
  const out = [
    permissionSentence('dial', 'Dial', who, what, e.dial),
    permissionSentence('bind', 'Bind', who, what, e.bind),
  ];
  const { identityCount, serviceCount, shared } = e.routers;
  if (shared.length === 0) {
    out.push(
      `No edge router is shared: ${who} may use ${identityCount} edge router${identityCount === 1 ? '' : 's'} ` +
        `(edge router policies), ${what} is reachable through ${serviceCount} ` +
        '(service edge router policies); both need at least one in common.',
    );
  } else {
    const online = shared.filter((r) => r.isOnline);
    out.push(
      `${shared.length} edge router${shared.length === 1 ? ' is' : 's are'} shared (${list(shared)}); ` +
        (online.length ? `${online.length} online.` : 'none is online, so no connection can be made now.'),
    );
  }
  return out;
}

export async function runPolicyExplain(opts: { identity: string; service: string }, deps: Deps): Promise<void> {
  const result = await explain(await deps.api(), opts.identity, opts.service);
  const format = asFormat(deps.globals().output);
  if (format === 'json' || format === 'yaml')
    await renderOne(deps.io, result as unknown as Record<string, unknown>, { format });
  else for (const line of result.summary) deps.io.out(line);
}
