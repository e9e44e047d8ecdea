import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { ApiSessions } from './auth/api-sessions.js';
import { ConcurrencyLimiter } from './auth/limiter.js';
import { PasswordHasher } from './auth/password.js';
import { DatabaseLoginThrottle } from './auth/database-throttle.js';
import { DEFAULT_LOGIN_THROTTLE, LoginThrottle } from './auth/throttle.js';
import { ClientState } from './client-state.js';
import { enforcePostureTimeouts } from './model/posture/sessions.js';
import { parseAdvertised, urlOf } from './advertise.js';
import { writeBootRows } from './bootstrap.js';
import { prepareDataDir, type PreparedDataDir } from './data-dir.js';
import { createEnrollmentJwtSigner } from './pki/enrollment-jwt.js';
import { type PkiKey, readPkiKeyFile } from './pki/key-file.js';
import { loadOrCreatePki, type Pki, readCa } from './pki/pki.js';
import { loadOrCreateSharedPki, refuseSharedPkiWithoutKey } from './pki/shared-pki.js';
import { runInTurn } from './cluster/background.js';
import { SharedPostureReports } from './cluster/posture-reports.js';
import { SharedServiceUpdateStamps } from './cluster/service-update-stamps.js';
import { loadOrCreateControllerId, memberCertificates, startHeartbeat } from './cluster/membership.js';
import { recordSelf } from './model/resources/controller.js';
import { entityWrites } from './model/writes.js';
import { buildRoutes, type ControllerModules } from './registry.js';
import type { Runtime } from './runtime.js';
import { createApp } from './server/app.js';
import { trackRequests } from './server/drain.js';
import { createListener, DEFAULT_SERVER_LIMITS } from './server/listener.js';
import { createStaticSite } from './server/static.js';
import { Validators } from './server/validation.js';
import { type InjectRequest, type InjectResponse, injectRequest } from './inject.js';
import { parseStoreLocation, Store, type StoreLocation } from './store/store.js';
import { type ControllerOptions, DEFAULT_SHUTDOWN_GRACE_MS, type RunningController } from './types.js';
import { ControllerStartError } from './start-error.js';
import { CONTROLLER_VERSION } from './version.js';

export type { ControllerOptions, RunningController } from './types.js';
export type { InjectRequest, InjectResponse } from './inject.js';

const SWEEP_INTERVAL_MS = 30_000;
/** How often sessions are checked against posture that runs out with time (MFA timeouts, wake/unlock prompts). */
const POSTURE_SWEEP_INTERVAL_MS = 15_000;

export { ControllerStartError } from './start-error.js';

export interface CreateControllerOptions extends Omit<ControllerOptions, 'port' | 'host' | 'advertise'> {
  /** How clients reach it (enrollment JWT issuer, version info). */
  publicUrl: string;
  /** Where the data lives; default: `ctl.db` in the data directory. */
  store?: StoreLocation;
  /** PKI to use instead of the data directory's (tests share one fixture). */
  pki?: Pki;
  /** Names the server certificate covers when the PKI is created or renewed. */
  hosts?: string[];
  /** The model modules and route adapters to assemble (default: the source tree's, src/controller/registry.ts). */
  modules?: ControllerModules;
}

/** The controller's application without a listener: what `startController` serves and in-process tests call. */
export interface Controller {
  runtime: Runtime;
  adminUser: string;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Runs one request through the whole pipeline in-process (no socket, no TLS), as fastify's inject does. */
  inject(request: InjectRequest): Promise<InjectResponse>;
  close(): Promise<void>;
}

/** The SQLite database in the data directory, unless the data lives in PostgreSQL. */
const DATABASE_FILE = 'ctl.db';

/**
 * Builds the controller: opens (or creates) its store and PKI, creates the default admin on first start, and
 * assembles the routes of every registered resource. Nothing listens: `startController` does, tests `inject`.
 */
export async function createController(options: CreateControllerOptions): Promise<Controller> {
  const timeoutMinutes = Math.max(options.sessionTimeoutMinutes ?? 30, 1);
  const log = options.log ?? (() => {});
  // Checked before anything is opened: a wrong --console fails the start, not every page.
  const site = options.consoleDir ? createStaticSite(options.consoleDir, { log }) : undefined;
  // Read before the store opens: a key file that is unsafe or too short is refused before the database is touched.
  const pkiKey = options.pkiKeyFile === undefined ? undefined : readPkiKeyFile(options.pkiKeyFile);
  const location = storeLocationOf(options);
  const shared = options.sharedDatabase === true;
  if (shared) refuseUnsharable(location, pkiKey);
  // Built-in rows are written below, through the write path, once the runtime (and so every hook) exists.
  const store = await Store.open(location, {
    log,
    sharedDatabase: shared,
    builtIns: false,
    migrations: options.migrations,
  });
  const passwords = new PasswordHasher(options.passwordCost);
  const adminUser = options.adminUser ?? 'admin';
  let pki: Pki;
  let controllerId: string;
  try {
    pki = options.pki ?? (await openPki(store, pkiKey, options));
    controllerId = pkiKey ? await sharingControllerId(options, pki) : pki.trustDomain;
  } catch (err) {
    await store.close();
    throw err;
  }

  const throttleOptions = options.loginThrottle ?? DEFAULT_LOGIN_THROTTLE;
  // Controllers sharing a database count failed logins there: otherwise guessing is multiplied by their number.
  const loginThrottle = shared
    ? new DatabaseLoginThrottle(store.loginAttempts, throttleOptions)
    : new LoginThrottle(throttleOptions);
  // The request budget is kept where failed logins are: in the database when controllers share one, so a client
  // spreading its requests over them gets one budget, not one per controller.
  const client = new ClientState(new Date(), options.clientRateLimit, Date.now, (kind, bucketOptions) =>
    loginThrottle.bucketsFor(kind, bucketOptions, Date.now),
  );
  const runtime: Runtime = {
    store,
    writes: entityWrites(
      store,
      (resource) => registry.hooks(resource),
      () => runtime,
    ),
    apiSessions: new ApiSessions(store, timeoutMinutes * 60_000),
    passwords,
    // As many checks as libuv has threads to run scrypt on (4 by default); a burst beyond 256 waiting gets 429.
    passwordChecks: new ConcurrencyLimiter(4, 256),
    loginThrottle,
    client,
    // Controllers sharing a database stamp changes there: an SDK may poll another controller than the writer.
    serviceUpdates: shared ? new SharedServiceUpdateStamps(store.serviceUpdateStamps) : client,
    // And posture: an identity may report to one controller and create its sessions through another.
    posture: shared ? new SharedPostureReports(store) : client,
    validators: new Validators(),
    pki,
    controllerId,
    // Any controller on the database serves the keys of the others: a JWT may be checked with whichever answers.
    enrollmentSigner: createEnrollmentJwtSigner(pki, options.publicUrl, () => memberCertificates(store)),
    config: {
      publicUrl: options.publicUrl,
      sessionTimeoutMs: timeoutMinutes * 60_000,
      enrollmentDurationMinutes: 180,
      version: CONTROLLER_VERSION,
      corsOrigins: options.corsOrigins,
    },
    clock: () => new Date(),
    log,
    accessLog: options.accessLog,
    present: (def, rows) => registry.present(def, rows),
    answerById: (def, id) => registry.answerById(def, id),
  };
  // The registry needs the runtime (its routes close over it), and the runtime reaches the registry lazily.
  const registry = buildRoutes(runtime, options.modules);
  const app = createApp(runtime, registry.routes, site);
  try {
    const admin = { username: adminUser, password: options.adminPassword, passwords };
    await writeBootRows(store, runtime.writes, runtime.clock(), { ...admin, announce: options.announceAdminPassword });
    // This controller joins the controllers list when it starts (OpenZiti: when it joins its cluster).
    await recordSelf(runtime);
  } catch (err) {
    await store.close();
    throw err;
  }
  const beat = (now: string) => runtime.writes.update('controller', controllerId, { lastSeenAt: now }, now);
  const heartbeat = startHeartbeat(beat, { clock: runtime.clock, log });

  const background = runInTurn(
    store,
    [
      ...(loginThrottle instanceof DatabaseLoginThrottle
        ? [{ name: 'login throttle expiry', intervalMs: SWEEP_INTERVAL_MS, run: () => loginThrottle.forgetRefilled() }]
        : []),
      { name: 'session sweep', intervalMs: SWEEP_INTERVAL_MS, run: () => runtime.apiSessions.sweep(new Date()) },
      // MFA timeouts and wake/unlock prompts run out without a write: sessions that fail them end within this interval.
      {
        name: 'posture sweep',
        intervalMs: POSTURE_SWEEP_INTERVAL_MS,
        run: () => enforcePostureTimeouts(runtime, new Date()),
      },
    ],
    log,
  );

  return {
    runtime,
    adminUser,
    handle: app.handle,
    inject: (request) => injectRequest(app.handle, request),
    async close() {
      background.stop();
      heartbeat.stop();
      // The last seconds of sessions' activity: a store that no longer writes loses them (they look that much
      // idler), which must not keep it from closing.
      await runtime.apiSessions.flushActivity().catch(() => {});
      await store.close();
    },
  };
}

/** Where the data directory's PKI lives: `--pki-dir`, or `pki` in the data directory. */
function pkiDirOf(options: CreateControllerOptions): string {
  return options.pkiDir ?? join(options.dataDir, 'pki');
}

/**
 * Alone, a controller has always been named by its trust domain; sharing its database, it needs an id of its own.
 * The controller whose CA became the shared one keeps its old id, so its row in /controllers stays its own.
 */
async function sharingControllerId(options: CreateControllerOptions, pki: Pki): Promise<string> {
  const ownCa = await readCa(pkiDirOf(options));
  const firstId = ownCa?.root.certPem === pki.rootCertPem ? pki.trustDomain : randomUUID();
  return loadOrCreateControllerId(options.dataDir, firstId);
}

/** Controllers serve one database together only on PostgreSQL, and only as one trust root. */
function refuseUnsharable(location: StoreLocation, key: PkiKey | undefined): void {
  if (!('postgres' in location)) {
    throw new ControllerStartError('--shared-database needs a PostgreSQL store (--store postgres://...)');
  }
  if (!key) {
    throw new ControllerStartError(
      '--shared-database needs --pki-key-file: controllers serving one database must share its PKI',
    );
  }
}

/**
 * The PKI in the database, sealed with the key file, when one is given; else the data directory's own, unless the
 * database holds a shared one (that controller was meant to have the key file).
 */
async function openPki(store: Store, key: PkiKey | undefined, options: CreateControllerOptions): Promise<Pki> {
  const pkiDir = pkiDirOf(options);
  const hosts = options.hosts ?? ['localhost', '127.0.0.1'];
  if (key) return loadOrCreateSharedPki(store, key, { pkiDir, hosts });
  await refuseSharedPkiWithoutKey(store);
  return loadOrCreatePki(pkiDir, { hosts });
}

/**
 * Binds the port before anything is written, so a busy port never leaves a half-made first start behind.
 * Connections that arrive while the controller is still being made wait, paused, until `serve` hands them over.
 */
async function bind(
  port: number,
  host: string,
): Promise<{ server: NetServer; serve(handler: (socket: Socket) => void): void; destroyAll(): void }> {
  const sockets = new Set<Socket>();
  let handler: ((socket: Socket) => void) | undefined;
  // noDelay as node's own HTTP servers set it: without it, Nagle's algorithm holds small responses back.
  const server = createNetServer({ pauseOnConnect: true, noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    handler?.(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE')
        reject(
          new ControllerStartError(`port ${port} is in use on ${host}: stop what uses it or choose another --port`),
        );
      else if (err.code === 'EACCES')
        reject(
          new ControllerStartError(
            `not allowed to listen on port ${port} (ports below 1024 need privileges): choose another --port`,
          ),
        );
      else if (err.code === 'EADDRNOTAVAIL')
        reject(new ControllerStartError(`cannot listen on ${host}: no such address on this machine`));
      else reject(err);
    });
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    serve(h) {
      handler = h;
      for (const socket of sockets) h(socket);
    },
    destroyAll() {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/**
 * Where the store is: the location given, else the store URL (a SQLite file's path too), else `ctl.db` in the data
 * directory. An empty URL (an environment variable set to nothing) names none.
 */
function storeLocationOf(options: Pick<CreateControllerOptions, 'store' | 'storeUrl' | 'dataDir'>): StoreLocation {
  if (options.store) return options.store;
  return options.storeUrl ? parseStoreLocation(options.storeUrl) : { sqlite: join(options.dataDir, DATABASE_FILE) };
}

/** The SQLite file a store is, made absolute (its lock must be the same from any directory); none for PostgreSQL. */
function sqliteFileOf(location: StoreLocation): string | undefined {
  return 'sqlite' in location && location.sqlite !== ':memory:' ? resolvePath(location.sqlite) : undefined;
}

/**
 * Starts the controller: binds the port first, then opens (or creates) the data directory, its PKI and store,
 * and serves both APIs over HTTPS on the bound socket. Resolves once it is serving.
 */
export async function startController(options: ControllerOptions): Promise<RunningController> {
  const host = options.host ?? '127.0.0.1';
  // Checked before the port is bound: a mistyped address refuses the start with nothing done.
  const advertised = (options.advertise ?? []).map(parseAdvertised);
  const bound = await bind(options.port, host);
  const listener = bound.server;
  let dataDir: PreparedDataDir | undefined;
  let controller: Controller;
  const port = (listener.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const url = urlOf({ host: urlHost }, port);
  // What clients are told to reach (OpenZiti's edge.api.address): the first advertised address, else the listener.
  const publicUrl = advertised.length ? urlOf(advertised[0], port) : url;
  try {
    // The data directory and a SQLite database are ours (exclusive locks) before anything is written in them; a
    // failed start lets them go.
    const store = storeLocationOf(options);
    dataDir = prepareDataDir(options.dataDir, options.pkiDir, sqliteFileOf(store));
    // The first name is the certificate's common name, which names the controller in /controllers: the first
    // advertised name when there is one, so that controllers listening on the same address are told apart.
    const listening = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    const hosts = advertised.map((address) => address.host);
    const names = [...hosts.slice(0, 1), listening, 'localhost', '127.0.0.1', '::1', hostname(), ...hosts];
    const hostNames = [...new Set(names)];
    controller = await createController({ ...options, store, pkiDir: dataDir.pkiDir, publicUrl, hosts: hostNames });
  } catch (err) {
    dataDir?.lock.release();
    bound.destroyAll();
    listener.close();
    throw err;
  }
  const pki = controller.runtime.pki;
  // What clients must trust, where an operator finds it: `ctl login URL --ca <dataDir>/ca-bundle.pem`.
  writeFileSync(join(options.dataDir, 'ca-bundle.pem'), pki.caBundlePem, { mode: 0o644 });

  const server = createListener(
    { key: pki.serverKeyPem, cert: pki.serverChainPem, clientCa: pki.caBundlePem },
    { ...DEFAULT_SERVER_LIMITS, ...options.serverLimits },
  );
  const requests = trackRequests(server);
  server.on('request', (req, res) => void controller.handle(req, res));
  // The HTTPS server never listens itself: the bound socket hands it its connections. 'listening' starts its
  // connection tracking (header and request timeouts, closeAllConnections) as listen() would.
  server.emit('listening');
  bound.serve((socket) => {
    server.emit('connection', socket);
    socket.resume();
  });
  const reachedOn = publicUrl === url ? '' : `, reached on ${publicUrl}`;
  controller.runtime.log(`controller listening on ${url}${reachedOn}`);

  let closing: Promise<void> | undefined;
  return {
    url,
    publicUrl,
    port,
    caBundlePem: pki.caBundlePem,
    adminUser: controller.adminUser,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        // No new connections; requests in flight are answered (up to the grace period), then every socket closes.
        listener.close(() => {
          void controller.close().then(() => {
            dataDir!.lock.release();
            resolve();
          });
        });
        const graceMs = options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
        void requests.drain(graceMs).then((cut) => {
          if (cut > 0) controller.runtime.log(`shutdown: ${cut} request(s) in flight after ${graceMs} ms were cut off`);
          server.closeAllConnections();
          bound.destroyAll();
        });
      })),
  };
}
