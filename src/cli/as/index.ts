// `ctl as IDENTITY_FILE ...`: the network as one identity sees it through the client API (what SDKs and tunnelers
// call), logged in with the identity file's certificate for this one command. The session lives in memory only and
// is ended when the command ends (except after creating a service session, which would end with it): the stored
// profiles (the admin's session) are never read or written.
import { Command, CommanderError, Option } from '@commander-js/extra-typings';
import { everyPage, stoppedAt } from '../generic/pages.js';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ApiClient } from '../../client/types.js';
import { AuthError, CliError, EXIT, UsageError } from '../../console/errors.js';
import { ApiError } from '../../protocol/errors.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { completeWith } from '../completion/hints.js';
import { quote } from '../generic/resolve.js';
import { OUTPUT_FORMATS, asFormat, type OutputFormat } from '../output/formats.js';
import { render, renderOne } from '../output/render.js';
import { causeLines } from '../output/failure.js';

// Laid out as a help list whose terms are too wide to keep beside their descriptions (help-layout.ts), and shown
// after the arguments rather than in the description, which commander would wrap from the first column.
const USAGE = `Commands, after the identity file:
  services [NAME] [--config-types all|TYPE,...]
      the services it may use: permissions, posture, configs
  session create SERVICE [--dial|--bind]
      create a service session, as an SDK dialing or hosting
  session list
      its service sessions
  posture submit [--os TYPE:VERSION[:BUILD]] [--domain NAME] [--mac ADDR,...]
                 [--process PATH[=SHA512]]... [--signer FINGERPRINT]
                 [--woken] [--unlocked]
      report device posture, then show the services again
  routers
      the edge routers it may connect to
  updates
      when its service list last changed (service update check)`;

export function buildAs(deps: Deps): CommandUnknownOpts {
  const command = withMeta(new Command('as').addHelpText('after', `\n${USAGE}`), {
    description:
      'Act as an identity, with the certificate of its identity file (`ctl enroll` writes one), and see the ' +
      'network as its SDK or tunneler does: services with permissions, posture and configs; sessions; posture ' +
      'responses; edge routers. The identity logs in for this command ' +
      'only: profiles and their sessions are left as they are.',
    examples: [
      'ctl as laptop-7.json services',
      'ctl as laptop-7.json services web -o json',
      'ctl as laptop-7.json session create web',
      'ctl as server-1.json session create web --bind',
      'ctl as laptop-7.json posture submit --os Windows:10.0.19045 --domain corp --mac 00:11:22:33:44:55',
      'ctl as laptop-7.json routers',
    ],
  })
    .argument('<identity-file>', 'the identity file (JSON with ztAPI and id.{cert,key,ca})')
    .argument('<command>', 'services, session, posture, routers or updates')
    .argument('[args...]', "the command's arguments and flags")
    .allowUnknownOption()
    .allowExcessArguments();
  // TAB after the file completes the commands below, which only run once the file is read.
  completeWith(command, { kind: 'commands', positionals: 1, tree: () => inner('IDENTITY_FILE', deps, notConnected) });
  return command.action(async (file, name, args) =>
    runAs(file, [name, ...args], deps),
  ) as unknown as CommandUnknownOpts;
}

/** The identity's session for this command: its client (client API), its name, and how to end it. */
interface AsSession {
  api: ApiClient;
  name: string;
  file: string;
  /**
   * Set when a service session was created: ending the API session would end it too (a service session lives as
   * long as its API session), so the API session is left to time out instead.
   */
  keep?: { apiSessionId: string };
}

async function login(file: string, deps: Deps): Promise<AsSession & { end(): Promise<void> }> {
  const [{ readIdentityFile }, { createApiClient }] = await Promise.all([
    import('../enroll/identity-file.js'),
    import('../../client/http.js'),
  ]);
  const identity = await readIdentityFile(file);
  const api = createApiClient({
    baseUrl: identity.controller,
    caPem: identity.ca,
    clientCert: { cert: identity.cert, key: identity.key },
    ...deps.net(),
  });
  try {
    await api.request('POST', '/authenticate', { api: 'client', query: { method: 'cert' }, body: {}, anonymous: true });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      throw new AuthError(`${file}: the controller at ${identity.controller} refused the certificate: ${err.message}`, [
        'the certificate must be one this controller issued at enrollment, and its identity must still have it',
      ]);
    }
    throw err;
  }
  const me = await api.get<{ name: string }>('/current-identity', { api: 'client' });
  const session: AsSession & { end(): Promise<void> } = {
    api,
    name: me.name,
    file,
    end: async () => {
      if (session.keep) {
        deps.io.info(
          `The service session lives as long as ${me.name}'s API session ${session.keep.apiSessionId}: until it ` +
            `times out unused, or an admin ends it (ctl api-session delete ${session.keep.apiSessionId}).`,
        );
        return;
      }
      // Best effort: a session that cannot be ended here times out on the controller.
      await api.request('DELETE', '/current-api-session', { api: 'client' }).catch(() => undefined);
    },
  };
  return session;
}

export async function runAs(file: string, argv: readonly string[], deps: Deps): Promise<void> {
  let session: Awaited<ReturnType<typeof login>> | undefined;
  const connect = async () => (session ??= await login(file, deps));
  const program = inner(file, deps, connect);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return;
      throw new UsageError(err.message.replace(/^error: /, ''), [
        `usage: ctl as ${file} COMMAND ...`,
        ...USAGE.split('\n')
          .slice(1)
          .map((l) => l.slice(2)),
      ]);
    }
    throw err;
  } finally {
    await session?.end();
  }
}

type Connect = () => Promise<AsSession>;

const notConnected: Connect = () => Promise.reject(new Error('internal error: a command built for completion was run'));

/** The commands after the identity file, parsed here (the file comes first, so commander cannot dispatch them). */
function inner(file: string, deps: Deps, connect: Connect): Command {
  const program = new Command(`ctl as ${file}`)
    .exitOverride()
    .configureOutput({ writeOut: (t) => void deps.io.stdout.write(t), writeErr: () => undefined })
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS))
    .helpCommand(false);
  const format = (): OutputFormat => asFormat(program.opts().output ?? deps.globals().output);

  program
    .command('services')
    .argument('[name]', 'one service, by name (all of them without)')
    .option('--config-types <types>', "config types whose data to show: names or ids, comma-separated, or 'all'", 'all')
    .action(async (name, o) => services(await connect(), deps, format(), name, o.configTypes));

  const sessionCommand = program.command('session');
  sessionCommand
    .command('create')
    .argument('<service>', 'the service, by name or id')
    .option('--dial', 'a Dial session: connect to the service (default)')
    .option('--bind', 'a Bind session: host the service')
    .action(async (service, o) => {
      if (o.dial && o.bind) throw new UsageError('--dial and --bind cannot be combined: a session is one or the other');
      await createSession(await connect(), deps, format(), service, o.bind ? 'Bind' : 'Dial');
    });
  sessionCommand.command('list').action(async () => {
    const s = await connect();
    const list = await s.api.list<Record<string, unknown>>('/sessions', {}, { api: 'client' });
    await render(deps.io, list.data, {
      format: format(),
      columns: [
        { header: 'ID', field: 'id' },
        { header: 'Service', field: 'service.name' },
        { header: 'Type', field: 'type' },
        { header: 'Created', field: 'createdAt' },
      ],
      empty: `${s.name} has no service sessions`,
    });
  });

  program
    .command('posture')
    .command('submit')
    .option('--os <type:version[:build]>', 'the operating system, e.g. Windows:10.0.19045 or Linux:6.1.0')
    .option('--domain <name>', 'the Windows domain')
    .option('--mac <addresses>', 'MAC addresses, comma-separated')
    .option(
      '--process <path[=sha512]>',
      'a running process (repeatable), with its binary hash',
      (v: string, all: string[] = []) => [...all, v],
    )
    .option('--signer <fingerprint>', 'the signer fingerprint of the processes given')
    .option('--woken', 'the device woke up')
    .option('--unlocked', 'the device was unlocked')
    .action(async (o) => {
      // Mistakes are found before logging in.
      if (!o.os && o.domain === undefined && o.mac === undefined && !o.process?.length && !o.woken && !o.unlocked) {
        throw new UsageError('nothing to report: give --os, --domain, --mac, --process, --woken or --unlocked');
      }
      if (o.os !== undefined && !/^[^:]+:[^:]+(:.*)?$/.test(o.os))
        throw new UsageError(`--os ${o.os}: give TYPE:VERSION[:BUILD], e.g. Windows:10.0.19045`);
      await submitPosture(await connect(), deps, format(), o);
    });

  program.command('routers').action(async () => {
    const s = await connect();
    const list = await s.api.list<Record<string, unknown>>('/current-identity/edge-routers', {}, { api: 'client' });
    await render(deps.io, list.data, {
      format: format(),
      columns: [
        { header: 'Name', field: 'name' },
        { header: 'Online', field: 'isOnline' },
        { header: 'Hostname', field: 'hostname' },
        { header: 'ID', field: 'id', priority: 1 },
      ],
      empty: `no edge routers for ${s.name}: its edge router policies select none that has enrolled`,
    });
  });

  program.command('updates').action(async () => {
    const s = await connect();
    const data = await s.api.get<Record<string, unknown>>('/current-api-session/service-updates', { api: 'client' });
    await renderOne(deps.io, { identity: s.name, lastChangeAt: data.lastChangeAt }, { format: format() });
  });
  return program;
}

interface PostureQuery {
  id: string;
  queryType: string;
  isPassing: boolean;
  timeout: number;
  timeoutRemaining: number;
  process?: { path: string };
  processes?: Array<{ path: string }>;
}

interface ClientService {
  id: string;
  name: string;
  permissions: string[];
  config: Record<string, unknown>;
  postureQueries: Array<{ policyId: string; policyType: string; isPassing: boolean; postureQueries: PostureQuery[] }>;
}

/** Every service the identity may use (all pages). */
async function allServices(s: AsSession, deps: Deps, configTypes: string, filter?: string): Promise<ClientService[]> {
  const target = { api: 'client' as const, query: configTypes ? { configTypes } : {} };
  return (await everyPage<ClientService>(s.api, '/services', { filter }, target, (n) => deps.io.warn(stoppedAt(n))))
    .rows;
}

/** Whether posture lets the identity use the service: one passing policy is enough; which checks fail otherwise. */
function postureSummary(service: ClientService): string {
  const policies = service.postureQueries ?? [];
  if (policies.length === 0 || policies.some((p) => p.isPassing)) {
    const timers = policies.flatMap((p) => p.postureQueries).filter((q) => q.isPassing && q.timeoutRemaining > 0);
    return timers.length ? `passing (MFA again in ${Math.min(...timers.map((q) => q.timeoutRemaining))}s)` : 'passing';
  }
  const failing = [
    ...new Set(policies.flatMap((p) => p.postureQueries.filter((q) => !q.isPassing).map((q) => q.queryType))),
  ];
  return `failing: ${failing.join(', ')}`;
}

async function services(
  s: AsSession,
  deps: Deps,
  format: OutputFormat,
  name: string | undefined,
  configTypes: string,
): Promise<void> {
  const list = await allServices(
    s,
    deps,
    configTypes,
    name === undefined ? undefined : `name = ${quote(name)} or id = ${quote(name)}`,
  );
  if (name !== undefined) {
    if (list.length === 0) throw notVisible(s, name);
    await renderOne(deps.io, list[0] as unknown as Record<string, unknown>, { format });
    return;
  }
  const rows = list.map((svc) => ({
    ...svc,
    permissions: svc.permissions.join(','),
    posture: postureSummary(svc),
    configs: Object.keys(svc.config ?? {}).join(','),
  }));
  if (format === 'json' || format === 'yaml') return render(deps.io, list, { format, columns: [] });
  await render(deps.io, rows, {
    format,
    columns: [
      { header: 'Name', field: 'name' },
      { header: 'Permissions', field: 'permissions' },
      { header: 'Posture', field: 'posture' },
      { header: 'Configs', field: 'configs' },
      { header: 'ID', field: 'id', priority: 1 },
    ],
    empty:
      `no services visible to ${s.name}: with an admin profile, ` +
      `\`ctl policy explain ${s.name} SERVICE\` tells what is missing`,
  });
}

function notVisible(s: AsSession, service: string): UsageError {
  return new UsageError(`${s.name} cannot see a service '${service}'`, [
    `no service policy grants it to ${s.name}, or it does not exist`,
    `with an admin profile: ctl policy explain ${s.name} ${service}`,
  ]);
}

async function createSession(
  s: AsSession,
  deps: Deps,
  format: OutputFormat,
  service: string,
  type: 'Dial' | 'Bind',
): Promise<void> {
  const [found] = await allServices(s, deps, '', `name = ${quote(service)} or id = ${quote(service)}`);
  if (!found) throw notVisible(s, service);
  let created: Record<string, unknown>;
  try {
    created = await s.api.post<Record<string, unknown>>('/sessions', { serviceId: found.id, type }, { api: 'client' });
  } catch (err) {
    if (err instanceof ApiError) throw explainRefusal(err, s, found, type);
    throw err;
  }
  s.keep = { apiSessionId: created.apiSessionId as string };
  if (format === 'json' || format === 'yaml') return renderOne(deps.io, created, { format });
  const routers = (created.edgeRouters as Array<{ name: string; isOnline: boolean }> | undefined) ?? [];
  await renderOne(
    deps.io,
    {
      id: created.id,
      type: created.type,
      service: found.name,
      edgeRouters: routers.map((r) => `${r.name}${r.isOnline ? '' : ' (offline)'}`).join(', '),
      token: created.token,
    },
    { format },
  );
}

/** The controller's refusal, with what to look at next (exit 6, as any refused request). */
function explainRefusal(err: ApiError, s: AsSession, service: ClientService, type: string): Error {
  const hints: Record<string, string[]> = {
    INVALID_POSTURE: [
      `posture: ${postureSummary(service)}; report it with \`ctl as ${s.file} posture submit ...\``,
      `with an admin profile: ctl policy explain ${s.name} ${service.name}`,
    ],
    NO_EDGE_ROUTERS_AVAILABLE: [
      `no edge router is both in ${s.name}'s edge router policies and in the service's service edge router policies`,
      `with an admin profile: ctl policy explain ${s.name} ${service.name}`,
    ],
    COULD_NOT_VALIDATE: [`${s.name} may ${service.permissions.join(' and ')} ${service.name}, not ${type}`],
  };
  const details = hints[err.code];
  if (!details) return err;
  const message = `${s.name} cannot ${type.toLowerCase()} ${service.name}: ${err.message} (${err.code})`;
  return new CliError(message, EXIT.rejected, [...causeLines(err.cause), ...details]);
}

interface PostureFlags {
  os?: string;
  domain?: string;
  mac?: string;
  process?: string[];
  signer?: string;
  woken?: boolean;
  unlocked?: boolean;
}

/**
 * Posture responses as an SDK sends them: each answers a posture query of the identity's services (by its id); a
 * process is reported for every query that watches its path. Then the services again, with what changed.
 */
async function submitPosture(s: AsSession, deps: Deps, format: OutputFormat, o: PostureFlags): Promise<void> {
  const queries = (await allServices(s, deps, '')).flatMap((svc) =>
    svc.postureQueries.flatMap((p) => p.postureQueries),
  );
  const idOf = (type: string) => queries.find((q) => q.queryType === type)?.id ?? type.toLowerCase();
  const responses: Record<string, unknown>[] = [];
  if (o.os !== undefined) {
    const [type, version, ...build] = o.os.split(':');
    responses.push({ id: idOf('OS'), typeId: 'OS', type, version, build: build.join(':') });
  }
  if (o.domain !== undefined) responses.push({ id: idOf('DOMAIN'), typeId: 'DOMAIN', domain: o.domain });
  if (o.mac !== undefined)
    responses.push({
      id: idOf('MAC'),
      typeId: 'MAC',
      macAddresses: o.mac
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean),
    });
  for (const spec of o.process ?? []) {
    const [path, hash] = spec.split('=');
    const watching = queries.filter((q) => q.process?.path === path || q.processes?.some((p) => p.path === path));
    const report = { path, isRunning: true, hash: hash ?? '', signerFingerprints: o.signer ? [o.signer] : [] };
    if (watching.length === 0) responses.push({ id: path, typeId: 'PROCESS', ...report });
    for (const q of watching) responses.push({ id: q.id, typeId: q.queryType, ...report });
  }
  if (o.woken || o.unlocked)
    responses.push({
      id: idOf('MFA'),
      typeId: 'ENDPOINT_STATE',
      woken: o.woken === true,
      unlocked: o.unlocked === true,
    });
  const answer = await s.api.post<{ services: Array<Record<string, unknown>> }>('/posture-response-bulk', responses, {
    api: 'client',
  });
  for (const svc of answer.services ?? [])
    deps.io.info(`${svc.name}: MFA needed again within ${svc.timeoutRemaining}s`);
  await services(s, deps, format, undefined, 'all');
}
