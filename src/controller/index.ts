import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { resource } from '../resources/index.js';
import { ApiSessions } from './auth/api-sessions.js';
import { ConcurrencyLimiter } from './auth/limiter.js';
import { DEFAULT_LOGIN_THROTTLE, LoginThrottle } from './auth/throttle.js';
import { ensureDefaultAdmin } from './bootstrap.js';
import { prepareDataDir, type PreparedDataDir } from './data-dir.js';
import { authenticateRoutes } from './api/authenticate.js';
import { authenticatorRoutes } from './api/authenticators.js';
import { crudRoutes } from './api/crud.js';
import { currentRoutes, presentApiSessions } from './api/current.js';
import { identityRoutes, presentIdentities } from './api/identities.js';
import { metaRoutes } from './api/meta.js';
import { toWire } from './api/present.js';
import { createEnrollmentJwtSigner } from './pki/enrollment-jwt.js';
import { loadOrCreatePki } from './pki/pki.js';
import { createApp } from './server/app.js';
import { createListener, DEFAULT_SERVER_LIMITS } from './server/listener.js';
import type { Route } from './server/types.js';
import { Validators } from './server/validation.js';
import type { Presenter, Services } from './services.js';
import { Store } from './store/store.js';
import type { ControllerOptions, RunningController } from './types.js';
import { CONTROLLER_VERSION } from './version.js';

export type { ControllerOptions, RunningController } from './types.js';

const PRESENTERS: Record<string, Presenter> = {
  identity: presentIdentities,
  'api-session': presentApiSessions,
  // OpenZiti's enrollment detail requires a `details` map; this controller has nothing to put in it yet.
  enrollment: (rows) => rows.map((row) => ({ ...toWire(resource('enrollment'), row), details: {} })),
};

const SWEEP_INTERVAL_MS = 30_000;

/**
 * Starts the controller: opens (or creates) the data directory, its PKI and database, creates the default admin
 * on first start, and serves both APIs over HTTPS. Resolves once it is listening.
 */
export async function startController(options: ControllerOptions): Promise<RunningController> {
  // The data directory is ours (an exclusive lock) before anything is written in it; a failed start lets it go.
  const dataDir = prepareDataDir(options.dataDir, options.pkiDir);
  try {
    return await startOn(options, dataDir);
  } catch (err) {
    dataDir.lock.release();
    throw err;
  }
}

async function startOn(options: ControllerOptions, dataDir: PreparedDataDir): Promise<RunningController> {
  const host = options.host ?? '127.0.0.1';
  const timeoutMinutes = Math.max(options.sessionTimeoutMinutes ?? 30, 1);
  const log = options.log ?? (() => {});

  const hosts = [...new Set([host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host, 'localhost', '127.0.0.1', '::1', hostname(), ...(options.advertise ?? [])])];
  const pki = await loadOrCreatePki(dataDir.pkiDir, { hosts });
  // What clients must trust, where an operator finds it: `ctl login URL --ca <dataDir>/ca-bundle.pem`.
  writeFileSync(join(options.dataDir, 'ca-bundle.pem'), pki.caBundlePem, { mode: 0o644 });
  const store = Store.open(join(options.dataDir, 'ctl.db'));
  const adminUser = options.adminUser ?? 'admin';
  const admin = await ensureDefaultAdmin(store, { username: adminUser, password: options.adminPassword, now: new Date() });

  const server = createListener({ key: pki.serverKeyPem, cert: pki.serverChainPem }, { ...DEFAULT_SERVER_LIMITS, ...options.serverLimits });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const publicUrl = `https://${urlHost}:${port}`;

  const services: Services = {
    store,
    sessions: new ApiSessions(store, timeoutMinutes * 60_000),
    // As many checks as libuv has threads to run scrypt on (4 by default); a burst beyond 256 waiting gets 429.
    passwordChecks: new ConcurrencyLimiter(4, 256),
    loginThrottle: new LoginThrottle(options.loginThrottle ?? DEFAULT_LOGIN_THROTTLE),
    validators: new Validators(),
    pki,
    enrollmentSigner: createEnrollmentJwtSigner(pki, publicUrl),
    config: { publicUrl, sessionTimeoutMs: timeoutMinutes * 60_000, enrollmentDurationMinutes: 180, version: CONTROLLER_VERSION, corsOrigins: options.corsOrigins },
    clock: () => new Date(),
    log,
    accessLog: options.accessLog,
    present: (def, rows) => (PRESENTERS[def.name] ?? ((r) => r.map((row) => toWire(def, row))))(rows, services),
  };

  const handlerRoutes: Route[] = [
    ...identityRoutes(services),
    ...authenticatorRoutes(services),
    ...authenticateRoutes(services),
    ...currentRoutes(services),
  ];
  const taken = (r: Pick<Route, 'method' | 'path' | 'api'>) => handlerRoutes.some((h) => h.method === r.method && h.path === r.path && (h.api === r.api || h.api === 'both'));
  const routes = [...handlerRoutes, ...crudRoutes(services, taken)];
  const app = createApp(services, [...routes, ...metaRoutes(services, (api) => app.router.routes(api), new Date())]);
  server.on('request', (req, res) => void app.handle(req, res));

  const sweep = setInterval(() => services.sessions.sweep(new Date()), SWEEP_INTERVAL_MS);
  sweep.unref();
  log(`controller listening on ${publicUrl}`);

  let closing: Promise<void> | undefined;
  return {
    url: publicUrl,
    port,
    caBundlePem: pki.caBundlePem,
    generatedAdminPassword: admin.generatedPassword,
    adminUser,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        clearInterval(sweep);
        server.close(() => {
          store.close();
          dataDir.lock.release();
          resolve();
        });
        server.closeAllConnections();
      })),
  };
}
