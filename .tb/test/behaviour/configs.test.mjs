// test/behaviour/configs.test.ts
import assert from "node:assert/strict";
import { after, before, describe as describe2, it } from "node:test";

// test/helpers/in-process.ts
import { randomBytes as randomBytes9 } from "node:crypto";

// src/controller/pki/pki.ts
import { createHash, createPrivateKey, generateKeyPair, randomBytes, X509Certificate } from "node:crypto";
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { isIP } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import forge from "node-forge";
var FILES = {
  rootCert: "root.cert.pem",
  rootKey: "root.key.pem",
  intermediateCert: "intermediate.cert.pem",
  intermediateKey: "intermediate.key.pem",
  serverCert: "server.cert.pem",
  serverKey: "server.key.pem",
  trustDomain: "trust-domain"
};
var MINUTE = 6e4;
var DAY = 24 * 60 * MINUTE;
var RENEW_BEFORE = 30 * DAY;
var BACKDATE = 5 * MINUTE;
var KEY_MODE = 384;
var CERT_MODE = 420;
var ORG = "ctl";
var generateKeyPairAsync = promisify(generateKeyPair);
async function loadOrCreatePki(dir, opts) {
  const now = opts.now ?? /* @__PURE__ */ new Date();
  const hosts = normalizeHosts(opts.hosts);
  if (hosts.length === 0) throw new Error("loadOrCreatePki: at least one host is required");
  await mkdir(dir, { recursive: true, mode: 448 });
  const file = (name) => path.join(dir, name);
  let root = await readPair(file(FILES.rootCert), file(FILES.rootKey));
  let rootFresh = false;
  if (!root || !pairMatches(root) || !new X509Certificate(root.certPem).ca) {
    if (await readText(file(FILES.intermediateCert)) !== void 0) {
      throw new Error(
        `PKI in ${dir} is inconsistent: ${FILES.rootCert}/${FILES.rootKey} are missing or do not match, but ${FILES.intermediateCert} exists; restore the root CA files or remove the directory`
      );
    }
    const key = await newRsaKey();
    const cert = buildCert({
      subjectCn: "ctl Root CA",
      publicKey: key.publicKey,
      notBefore: new Date(now.getTime() - BACKDATE),
      notAfter: addYears(now, 10),
      kind: "root"
    });
    cert.sign(key.privateKey, forge.md.sha256.create());
    root = { certPem: certToPem(cert), keyPem: key.keyPem };
    await writeAtomic(file(FILES.rootKey), root.keyPem, KEY_MODE);
    await writeAtomic(file(FILES.rootCert), root.certPem, CERT_MODE);
    rootFresh = true;
  }
  const rootIssuer = toIssuer(root);
  const rootX = new X509Certificate(root.certPem);
  let intermediate = rootFresh ? void 0 : await readPair(file(FILES.intermediateCert), file(FILES.intermediateKey));
  if (!intermediate || !pairMatches(intermediate) || !issuedBy(intermediate.certPem, rootX) || expiresSoon(intermediate.certPem, now)) {
    intermediate = await issue(rootIssuer, {
      subjectCn: "ctl Intermediate CA",
      notBefore: new Date(now.getTime() - BACKDATE),
      notAfter: addYears(now, 5),
      kind: "intermediate"
    });
    await writeAtomic(file(FILES.intermediateKey), intermediate.keyPem, KEY_MODE);
    await writeAtomic(file(FILES.intermediateCert), intermediate.certPem, CERT_MODE);
  }
  const intermediateX = new X509Certificate(intermediate.certPem);
  let server = await readPair(file(FILES.serverCert), file(FILES.serverKey));
  if (!server || !pairMatches(server) || !issuedBy(server.certPem, intermediateX) || expiresSoon(server.certPem, now) || !coversHosts(server.certPem, hosts)) {
    server = await issue(toIssuer(intermediate), {
      subjectCn: hosts[0],
      notBefore: new Date(now.getTime() - BACKDATE),
      notAfter: addYears(now, 1),
      kind: "server",
      hosts
    });
    await writeAtomic(file(FILES.serverKey), server.keyPem, KEY_MODE);
    await writeAtomic(file(FILES.serverCert), server.certPem, CERT_MODE);
  }
  const trustDomain = await loadOrCreateTrustDomain(file(FILES.trustDomain), rootX);
  return {
    rootCertPem: root.certPem,
    intermediateCertPem: intermediate.certPem,
    intermediateKeyPem: intermediate.keyPem,
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
    serverChainPem: withNewline(server.certPem) + withNewline(intermediate.certPem),
    caBundlePem: withNewline(root.certPem) + withNewline(intermediate.certPem),
    trustDomain
  };
}
function normalizeHosts(hosts) {
  const seen = /* @__PURE__ */ new Set();
  const out = [];
  for (const raw2 of hosts) {
    let h = raw2.trim().replace(/^\[(.*)\]$/, "$1");
    if (isIP(h.replace(/%.*$/, "")) === 6) h = h.replace(/%.*$/, "");
    if (!isIP(h)) h = h.toLowerCase().replace(/\.$/, "");
    if (h && !seen.has(h)) {
      seen.add(h);
      out.push(h);
    }
  }
  return out;
}
async function newRsaKey() {
  const { privateKey } = await generateKeyPairAsync("rsa", { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: "pkcs8", format: "pem" });
  const forgeKey = forge.pki.privateKeyFromPem(keyPem);
  return { keyPem, privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
}
async function issue(issuer, spec) {
  const key = await newRsaKey();
  const notAfter = new Date(Math.min(spec.notAfter.getTime(), issuer.cert.validity.notAfter.getTime()));
  const cert = buildCert({ ...spec, notAfter, publicKey: key.publicKey }, issuer.cert);
  cert.sign(issuer.key, forge.md.sha256.create());
  return { certPem: certToPem(cert), keyPem: key.keyPem };
}
function buildCert(spec, issuerCert) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = spec.publicKey;
  cert.serialNumber = randomSerialHex();
  cert.validity.notBefore = spec.notBefore;
  cert.validity.notAfter = spec.notAfter;
  cert.setSubject([
    { shortName: "O", value: ORG },
    { shortName: "CN", value: spec.subjectCn }
  ]);
  cert.setIssuer(issuerCert ? issuerCert.subject.attributes : cert.subject.attributes);
  const authorityKeyId = (issuerCert ?? cert).generateSubjectKeyIdentifier().getBytes();
  const extensions = [
    { name: "subjectKeyIdentifier" },
    { name: "authorityKeyIdentifier", keyIdentifier: authorityKeyId }
  ];
  if (spec.kind === "root") {
    extensions.push(
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true }
    );
  } else if (spec.kind === "intermediate") {
    extensions.push(
      // pathLen 0: this CA signs leaves (server, identities, routers) only, never further CAs.
      { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }
    );
  } else {
    extensions.push(
      { name: "basicConstraints", cA: false, critical: true },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      // clientAuth too: the controller presents this cert when it dials routers.
      { name: "extKeyUsage", serverAuth: true, clientAuth: true },
      {
        name: "subjectAltName",
        // type 7 = iPAddress (forge encodes v4 and v6), type 2 = dNSName
        altNames: (spec.hosts ?? []).map((h) => isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })
      }
    );
  }
  cert.setExtensions(extensions);
  return cert;
}
function randomSerialHex() {
  const b = randomBytes(16);
  b[0] = b[0] & 127 || 1;
  return b.toString("hex");
}
function certToPem(cert) {
  return forge.pki.certificateToPem(cert).replace(/\r\n/g, "\n");
}
function addYears(d, years) {
  const out = new Date(d.getTime());
  out.setUTCFullYear(out.getUTCFullYear() + years);
  return out;
}
function toIssuer(pair) {
  return { cert: forge.pki.certificateFromPem(pair.certPem), key: forge.pki.privateKeyFromPem(pair.keyPem) };
}
function pairMatches(pair) {
  try {
    return new X509Certificate(pair.certPem).checkPrivateKey(createPrivateKey(pair.keyPem));
  } catch {
    return false;
  }
}
function issuedBy(certPem, issuer) {
  try {
    const x = new X509Certificate(certPem);
    return x.checkIssued(issuer) && x.verify(issuer.publicKey);
  } catch {
    return false;
  }
}
function expiresSoon(certPem, now) {
  return new Date(new X509Certificate(certPem).validTo).getTime() - now.getTime() < RENEW_BEFORE;
}
function coversHosts(certPem, hosts) {
  const x = new X509Certificate(certPem);
  return hosts.every(
    (h) => isIP(h) ? x.checkIP(h) !== void 0 : x.checkHost(h, { subject: "never", wildcards: false }) !== void 0
  );
}
async function loadOrCreateTrustDomain(file, root) {
  const stored = (await readText(file))?.trim();
  if (stored !== void 0 && stored !== "") {
    if (!/^[a-z0-9._-]+$/.test(stored)) throw new Error(`invalid trust domain in ${file}: ${JSON.stringify(stored)}`);
    return stored;
  }
  const td = `ctl-${createHash("sha1").update(root.raw).digest("hex").slice(0, 8)}`;
  await writeAtomic(file, `${td}
`, CERT_MODE);
  return td;
}
async function readText(file) {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    if (err.code === "ENOENT") return void 0;
    throw err;
  }
}
async function readPair(certFile, keyFile) {
  const [certPem, keyPem] = await Promise.all([readText(certFile), readText(keyFile)]);
  return certPem !== void 0 && keyPem !== void 0 ? { certPem, keyPem } : void 0;
}
async function writeAtomic(file, data, mode) {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fh = await open(tmp, "wx", mode);
  try {
    await fh.writeFile(data);
    await fh.chmod(mode);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await unlink(tmp).catch(() => {
    });
    throw err;
  }
  await fh.close();
  await rename(tmp, file);
  try {
    const d = await open(path.dirname(file), "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
  }
}
function withNewline(pem) {
  return pem.endsWith("\n") ? pem : `${pem}
`;
}

// src/controller/index.ts
import { join as join3 } from "node:path";

// src/controller/auth/api-sessions.ts
import { createHash as createHash2, randomBytes as randomBytes2, randomUUID } from "node:crypto";

// src/protocol/errors.ts
var API_ERRORS = {
  NOT_FOUND: { status: 404, message: "The resource requested was not found or is no longer available" },
  UNHANDLED: { status: 500, message: "An unhandled error occurred" },
  COULD_NOT_VALIDATE: {
    status: 400,
    message: "The supplied request contains an invalid document or no valid accept content were available, see cause"
  },
  COULD_NOT_PARSE_BODY: { status: 400, message: "The body of the request could not be parsed" },
  INVALID_CONTENT_TYPE: { status: 400, message: "The content type of the request is not supported" },
  REQUEST_ENTITY_TOO_LARGE: { status: 413, message: "The request body is larger than the server accepts" },
  METHOD_NOT_ALLOWED: { status: 405, message: "The resource requested does not support this HTTP verb" },
  UNAUTHORIZED: { status: 401, message: "The request could not be completed. The session is not authorized or the credentials are invalid" },
  INVALID_AUTH: { status: 401, message: "The authentication request failed" },
  INVALID_AUTH_METHOD: { status: 400, message: "The supplied authentication method is not supported" },
  INVALID_FILTER: { status: 400, message: "The filter query supplied is invalid" },
  INVALID_PAGINATION: { status: 400, message: "The pagination properties provided are invalid" },
  INVALID_SORT_IDENTIFIER: { status: 400, message: "The sort order supplied is invalid" },
  ENTITY_CAN_NOT_BE_DELETED: { status: 400, message: "The entity requested for delete can not be deleted" },
  ENTITY_CAN_NOT_BE_UPDATED: { status: 400, message: "The entity requested for update can not be updated" },
  CAN_NOT_DELETE_REFERENCED_ENTITY: { status: 409, message: "The entity can not be deleted while other entities reference it" },
  CAN_NOT_UPDATE_AUTHENTICATOR: { status: 409, message: "The authenticator cannot be updated" },
  INVALID_AUTHENTICATOR_PROPERTIES: { status: 400, message: "The authenticator properties are invalid for its method" },
  MAX_AUTHENTICATOR_METHODS_REACHED: { status: 409, message: "The identity already has an authenticator of this method" },
  ENROLLMENT_EXISTS: { status: 409, message: "An enrollment of this method already exists for the identity" },
  ENROLLMENT_EXPIRED: { status: 400, message: "The enrollment has expired" },
  INVALID_ENROLLMENT_TOKEN: { status: 400, message: "The enrollment token is not valid" },
  INVALID_ENROLL_METHOD: { status: 400, message: "The enrollment method is not valid for this token" },
  COULD_NOT_PROCESS_CSR: { status: 400, message: "The certificate signing request could not be processed" },
  UNSUPPORTED_MEDIA: { status: 415, message: "The requested media type cannot be produced" },
  CA_ALREADY_VERIFIED: { status: 409, message: "The CA has already been verified" },
  EXPECTED_PEM_CERTIFICATE: { status: 400, message: "A PEM certificate was expected" },
  COULD_NOT_PARSE_DER_BLOCK: { status: 400, message: "The certificate could not be parsed" },
  INVALID_COMMON_NAME: { status: 400, message: "The certificate's common name is not the verification token" },
  CERTIFICATE_FAILED_VALIDATION: { status: 400, message: "The certificate was not signed by the CA" },
  CERTIFICATE_IS_NOT_CA: { status: 400, message: "The certificate is not a CA certificate" },
  INVALID_CERT_PEM: { status: 400, message: "The certificate PEM is not valid" },
  INVALID_CLIENT_CERT: { status: 400, message: "The client certificate is missing or not valid" },
  ENROLLMENT_CA_NOT_VALID: { status: 400, message: "The enrollment's CA is not valid for this certificate" },
  ENROLLMENT_NO_VALID_CAS: { status: 400, message: "No valid CA issued the certificate" },
  ENROLLMENT_IDENTITY_ALREADY_ENROLLED: { status: 409, message: "The certificate has already been enrolled" },
  CERT_IN_USE: { status: 409, message: "The certificate is already in use by an authenticator" },
  NO_EDGE_ROUTERS_AVAILABLE: { status: 400, message: "No edge routers are assigned and online to handle the requested connection" },
  INVALID_POSTURE: { status: 409, message: "Posture response data is missing or wrong" },
  SERVER_TOO_MANY_REQUESTS: { status: 429, message: "Too many requests, try again later" },
  TIMEOUT: { status: 503, message: "The request timed out" },
  STORE_UNAVAILABLE: { status: 503, message: "The controller's database cannot serve the request right now" }
};
var ApiError = class extends Error {
  code;
  status;
  cause;
  requestId;
  constructor(code, opts = {}) {
    const known = API_ERRORS[code];
    super(opts.message ?? known?.message ?? code);
    this.name = "ApiError";
    this.code = code;
    this.status = opts.status ?? known?.status ?? 500;
    this.cause = opts.cause;
    this.requestId = opts.requestId;
  }
  toWire(requestId) {
    const wire = { code: this.code, message: this.message, requestId };
    if (this.cause) wire.cause = this.cause;
    return wire;
  }
};
function invalidField(field, reason, value) {
  return new ApiError("COULD_NOT_VALIDATE", { cause: { field, reason, value: renderValue(value) } });
}
function notFound(entity, id) {
  return new ApiError("NOT_FOUND", { cause: { code: "UNHANDLED", message: `${entity} with id ${id} not found` } });
}
function renderValue(value) {
  if (typeof value === "string") return value;
  if (value === void 0) return "";
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

// src/controller/store/driver.ts
var StoreUnavailableError = class extends Error {
  name = "StoreUnavailableError";
};
var STATEMENT_CACHE_SIZE = 256;
var LruCache = class {
  constructor(capacity, onEvict = () => {
  }) {
    this.capacity = capacity;
    this.onEvict = onEvict;
  }
  map = /* @__PURE__ */ new Map();
  get size() {
    return this.map.size;
  }
  get(key) {
    const value = this.map.get(key);
    if (value !== void 0) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key, value) {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) {
      const [oldestKey, oldest] = this.map.entries().next().value;
      this.map.delete(oldestKey);
      this.onEvict(oldest);
    }
  }
};

// src/controller/auth/identity-state.ts
function isDisabled(identity8, now) {
  if (!identity8.disabledAt) return false;
  return identity8.disabledUntil === null || Date.parse(identity8.disabledUntil) > now.getTime();
}

// src/controller/auth/api-sessions.ts
var ACTIVITY_WRITE_INTERVAL_MS = 5e3;
function hashToken(token) {
  return createHash2("sha256").update(token).digest("hex");
}
function newSessionId() {
  return `c${Date.now().toString(36)}${randomBytes2(10).toString("hex")}`;
}
var UNAUTHORIZED = () => new ApiError("UNAUTHORIZED");
var RESOLVED_CACHE_SIZE = 4096;
var PRINCIPAL_RESOURCES = /* @__PURE__ */ new Set(["identity", "api-session", "authenticator", "auth-policy", "*"]);
var ApiSessions = class {
  constructor(store, timeoutMs) {
    this.store = store;
    this.timeoutMs = timeoutMs;
    this.cacheable = store.readsWaitForWrites;
    store.onWrite((event) => {
      if (!PRINCIPAL_RESOURCES.has(event.resource) || event.op === "insert") return;
      if (event.resource === "api-session" && event.op === "update" && event.fields?.every((f) => f === "lastActivityAt")) return;
      this.generation++;
    });
  }
  resolved = new LruCache(RESOLVED_CACHE_SIZE);
  generation = 0;
  cacheable;
  async create(input) {
    const token = randomUUID();
    const id = newSessionId();
    const { identityId, authenticatorId, ipAddress, configTypes } = input;
    const now = input.now.toISOString();
    await this.sessions().insert({ identityId, authenticatorId, ipAddress, configTypes, tokenHash: hashToken(token), lastActivityAt: now }, { id, now });
    return { id, token };
  }
  /** Resolves a token to its caller; refuses unknown, expired, and disabled-identity sessions alike (401). */
  async resolve(token, now) {
    const tokenHash = hashToken(token);
    let session3 = this.cacheable ? this.resolved.get(tokenHash) : void 0;
    if (!session3 || session3.generation !== this.generation) session3 = await this.read(tokenHash);
    if (!session3) throw UNAUTHORIZED();
    const last = Date.parse(session3.lastActivityAt);
    if (now.getTime() - last > this.timeoutMs) {
      await this.delete(session3.sessionId);
      throw UNAUTHORIZED();
    }
    if (isDisabled(session3, now)) throw UNAUTHORIZED();
    if (now.getTime() - last >= ACTIVITY_WRITE_INTERVAL_MS) {
      const lastActivityAt = now.toISOString();
      await this.sessions().update(session3.sessionId, { lastActivityAt }, session3.updatedAt);
      session3.lastActivityAt = lastActivityAt;
    }
    return {
      apiSessionId: session3.sessionId,
      identityId: session3.identityId,
      identityName: session3.name,
      isAdmin: session3.isAdmin,
      authenticatorId: session3.authenticatorId,
      token,
      expiresAt: new Date(now.getTime() + this.timeoutMs)
    };
  }
  /** One statement for the session and what authorisation needs of its identity; kept for the next request. */
  async read(tokenHash) {
    const generation = this.generation;
    const row = await this.sessions().findOne(
      { tokenHash },
      { columns: ["identityId", "authenticatorId", "lastActivityAt"], include: { identityId: ["name", "isAdmin", "disabledAt", "disabledUntil"] } }
    );
    if (!row) return void 0;
    const identity8 = row.included.identityId;
    const resolved = {
      sessionId: row.id,
      identityId: row.identityId,
      authenticatorId: row.authenticatorId,
      name: identity8.name,
      isAdmin: identity8.isAdmin === true,
      disabledAt: identity8.disabledAt ?? null,
      disabledUntil: identity8.disabledUntil ?? null,
      lastActivityAt: row.lastActivityAt,
      updatedAt: row.updatedAt,
      // Stamped with the generation the read began in: a write during the read already made it stale.
      generation
    };
    if (this.cacheable) this.resolved.set(tokenHash, resolved);
    return resolved;
  }
  expiresAt(lastActivityAt) {
    return new Date(Date.parse(lastActivityAt) + this.timeoutMs);
  }
  async delete(id) {
    await this.sessions().deleteWhere({ id });
  }
  /**
   * Ends the identity's sessions: when its credentials change or go, or it is disabled. `keep` spares one session,
   * the one that made the change itself (an identity changing its own password stays logged in there).
   */
  async deleteForIdentity(identityId, keep) {
    return this.sessions().deleteWhere(keep === void 0 ? { identityId } : { identityId, id: { ne: keep } });
  }
  /** Removes sessions idle past the timeout; run periodically so they do not pile up. */
  async sweep(now) {
    const cutoff = new Date(now.getTime() - this.timeoutMs).toISOString();
    return this.sessions().deleteWhere({ lastActivityAt: { lt: cutoff } });
  }
  sessions() {
    return this.store.repo("api-session");
  }
};

// src/controller/auth/limiter.ts
var ConcurrencyLimiter = class {
  constructor(concurrency, queue) {
    this.concurrency = concurrency;
    this.queue = queue;
  }
  active = 0;
  waiting = [];
  async run(work) {
    if (this.active >= this.concurrency) {
      if (this.waiting.length >= this.queue) {
        throw new ApiError("SERVER_TOO_MANY_REQUESTS", { message: "too many authentication requests at once; try again shortly" });
      }
      await new Promise((resolve2) => this.waiting.push(resolve2));
    }
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
};

// src/controller/auth/password.ts
import { randomBytes as randomBytes3, scrypt, timingSafeEqual } from "node:crypto";
var PASSWORD_COST = { N: 2 ** 15, r: 8, p: 1 };
var KEY_LENGTH = 32;
function derive(password2, salt, N, r, p) {
  return new Promise((resolve2, reject) => {
    scrypt(
      password2.normalize("NFC"),
      salt,
      KEY_LENGTH,
      { N, r, p, maxmem: 256 * N * r },
      (err, key) => err ? reject(err) : resolve2(key)
    );
  });
}
var PasswordHasher = class {
  constructor(cost = PASSWORD_COST) {
    this.cost = cost;
  }
  /** A hash of a random password: verifying against it costs the same as against a real one (no user enumeration by timing). */
  decoy;
  async hash(password2) {
    const { N, r, p } = this.cost;
    const salt = randomBytes3(16);
    const key = await derive(password2, salt, N, r, p);
    return ["scrypt", N, r, p, salt.toString("base64"), key.toString("base64")].join("$");
  }
  /** Constant-time comparison of the derived key; a missing hash still spends the same work on a decoy. */
  async verify(password2, stored) {
    this.decoy ??= this.hash(randomBytes3(16).toString("hex"));
    const target = stored ?? await this.decoy;
    const [scheme, n, r, p, saltB64, keyB64] = target.split("$");
    if (scheme !== "scrypt") return false;
    const expected = Buffer.from(keyB64, "base64");
    const actual = await derive(password2, Buffer.from(saltB64, "base64"), Number(n), Number(r), Number(p));
    return actual.length === expected.length && timingSafeEqual(actual, expected) && stored !== void 0 && stored !== null;
  }
};

// src/controller/auth/throttle.ts
var TokenBuckets = class {
  constructor(options, now = Date.now) {
    this.options = options;
    this.now = now;
  }
  buckets = /* @__PURE__ */ new Map();
  /** Milliseconds until `key` has a token; 0 when it has one now. Does not take it. */
  waitMs(key) {
    const bucket = this.refilled(key);
    if (!bucket || bucket.tokens >= 1) return 0;
    return Math.ceil((1 - bucket.tokens) / this.options.refillPerSecond * 1e3);
  }
  /** Takes a token (the bucket may go empty, never below zero). */
  take(key) {
    const bucket = this.refilled(key) ?? { tokens: this.options.capacity, at: this.now() };
    bucket.tokens = Math.max(bucket.tokens - 1, 0);
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    this.evict();
  }
  /** How many keys are tracked now (for tests and diagnostics). */
  get size() {
    return this.buckets.size;
  }
  /** The bucket brought up to now; a bucket that is full again is forgotten (it is the same as no bucket). */
  refilled(key) {
    const bucket = this.buckets.get(key);
    if (!bucket) return void 0;
    const now = this.now();
    bucket.tokens = Math.min(this.options.capacity, bucket.tokens + (now - bucket.at) / 1e3 * this.options.refillPerSecond);
    bucket.at = now;
    if (bucket.tokens >= this.options.capacity) {
      this.buckets.delete(key);
      return void 0;
    }
    return bucket;
  }
  evict() {
    while (this.buckets.size > this.options.maxKeys) {
      const oldest = this.buckets.keys().next().value;
      this.buckets.delete(oldest);
    }
  }
};
var DEFAULT_LOGIN_THROTTLE = {
  perAddress: { capacity: 10, refillPerSecond: 1 / 6, maxKeys: 1e4 },
  perUsername: { capacity: 5, refillPerSecond: 1 / 12, maxKeys: 1e4 },
  maxTrackedIdentities: 1e4
};
var LoginThrottle = class {
  constructor(options = DEFAULT_LOGIN_THROTTLE, now = Date.now) {
    this.options = options;
    this.now = now;
    this.byAddress = new TokenBuckets(options.perAddress, now);
    this.byUsername = new TokenBuckets(options.perUsername, now);
  }
  byAddress;
  byUsername;
  failures = /* @__PURE__ */ new Map();
  /** Refuses with 429 and `Retry-After` when the address or the username has no attempt left. */
  check(addressKey2, username2) {
    const wait = Math.max(this.byAddress.waitMs(addressKey2), this.byUsername.waitMs(usernameKey(username2)));
    if (wait > 0) throw new ThrottledError(Math.ceil(wait / 1e3));
  }
  /** A failed attempt: takes a token from both buckets; counts against the identity when the username has one. */
  failed(addressKey2, username2, identityId) {
    this.byAddress.take(addressKey2);
    this.byUsername.take(usernameKey(username2));
    if (identityId === void 0) return;
    const previous = this.failures.get(identityId);
    this.failures.delete(identityId);
    this.failures.set(identityId, { consecutive: (previous?.consecutive ?? 0) + 1, lastAt: new Date(this.now()) });
    while (this.failures.size > this.options.maxTrackedIdentities) this.failures.delete(this.failures.keys().next().value);
  }
  /** A successful login resets the identity's count of consecutive failures. */
  succeeded(identityId) {
    this.failures.delete(identityId);
  }
  /** Consecutive failed password checks of an identity since its last success (none: undefined). */
  failuresOf(identityId) {
    const count = this.failures.get(identityId);
    return count && { ...count };
  }
  /** Keys tracked (for tests: the memory stays bounded). */
  get trackedKeys() {
    return { addresses: this.byAddress.size, usernames: this.byUsername.size, identities: this.failures.size };
  }
};
function usernameKey(username2) {
  return username2;
}
var ThrottledError = class extends ApiError {
  constructor(retryAfterSeconds) {
    super("SERVER_TOO_MANY_REQUESTS", { message: `too many failed logins; try again in ${retryAfterSeconds} s` });
    this.retryAfterSeconds = retryAfterSeconds;
  }
};

// src/controller/bootstrap.ts
import { randomBytes as randomBytes5 } from "node:crypto";

// src/controller/store/repository.ts
import { randomBytes as randomBytes4 } from "node:crypto";

// src/protocol/paging.ts
var DEFAULT_LIMIT = 10;
var MAX_LIMIT = 500;
var MAX_OFFSET = 1e5;
var MAX_ALL_ROWS = 1e4;
var UNLIMITED_REPORTED = 9223372036854776e3;
function normaliseLimit(limit) {
  if (limit === void 0 || limit === 0 || limit < -1) return DEFAULT_LIMIT;
  if (limit === -1) return void 0;
  return Math.min(limit, MAX_LIMIT);
}
function normaliseOffset(offset) {
  if (offset === void 0 || offset < 0) return 0;
  return Math.min(offset, MAX_OFFSET);
}

// src/protocol/zitiql/lexer.ts
var ZitiQlError = class extends Error {
  name = "ZitiQlError";
  line;
  column;
  constructor(message, line, column) {
    super(message);
    this.line = line;
    this.column = column;
  }
};
var IDENTIFIER = /[A-Za-z][A-Za-z_]*(?:\.[A-Za-z][A-Za-z_-]*)*/y;
var NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?(?:0|[1-9][0-9]*))?/y;
var NUMBER_TAIL = /[A-Za-z0-9_.]/;
var BAD_NUMBER = /[-+A-Za-z0-9_.]+/y;
var RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
var SYMBOLS = ["!=", "<=", ">=", "(", ")", "[", "]", ",", "=", "<", ">"];
var ESCAPES = /* @__PURE__ */ new Map([
  ['"', '"'],
  ["\\", "\\"],
  ["f", "\f"],
  ["n", "\n"],
  ["r", "\r"],
  ["t", "	"]
]);
var DATETIME_PREFIX = "datetime(";
var isWhitespace = (ch) => ch === " " || ch === "	" || ch === "\r" || ch === "\n";
function tokenize(text2) {
  const positions = new PositionTracker(text2);
  const tokens = [];
  let i = 0;
  function fail2(message, index) {
    const { line, column } = positions.at(index);
    throw new ZitiQlError(`${message} at line ${line}, column ${column}`, line, column);
  }
  while (i < text2.length) {
    const ch = text2[i];
    if (isWhitespace(ch)) {
      i++;
      continue;
    }
    const start = i;
    const at = positions.at(start);
    const datetimePrefix = text2.slice(i, i + DATETIME_PREFIX.length);
    if (datetimePrefix.toLowerCase() === DATETIME_PREFIX) {
      if (datetimePrefix !== DATETIME_PREFIX) {
        fail2(`datetime literals are written in lower case: datetime(2026-01-02T03:04:05Z)`, start);
      }
      const close = text2.indexOf(")", i + DATETIME_PREFIX.length);
      if (close < 0) fail2(`unterminated datetime literal: missing ")"`, start);
      const body = text2.slice(i + DATETIME_PREFIX.length, close).trim();
      const value = parseDatetime(body);
      if (value === void 0) {
        fail2(`invalid datetime "${body}": expected RFC3339 such as datetime(2026-01-02T03:04:05Z)`, start);
      }
      i = close + 1;
      tokens.push({ kind: "datetime", value, text: text2.slice(start, i), ...at });
      continue;
    }
    if (ch === '"') {
      const { value, end } = readString(text2, i, fail2);
      i = end;
      tokens.push({ kind: "string", value, text: text2.slice(start, i), ...at });
      continue;
    }
    if (ch === "'") {
      IDENTIFIER.lastIndex = i + 1;
      const match = IDENTIFIER.exec(text2);
      if (!match || text2[IDENTIFIER.lastIndex] !== "'") {
        fail2(`invalid quoted identifier: expected a field name such as 'tags.my-key'`, start);
      }
      i = IDENTIFIER.lastIndex + 1;
      tokens.push({ kind: "quotedIdentifier", name: match[0], text: text2.slice(start, i), ...at });
      continue;
    }
    IDENTIFIER.lastIndex = i;
    const word = IDENTIFIER.exec(text2);
    if (word) {
      i = IDENTIFIER.lastIndex;
      tokens.push({ kind: "word", text: word[0], ...at });
      continue;
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(text2);
    if (number) {
      if (NUMBER_TAIL.test(text2[NUMBER.lastIndex] ?? "")) {
        BAD_NUMBER.lastIndex = i;
        fail2(`invalid number "${BAD_NUMBER.exec(text2)[0]}"`, start);
      }
      i = NUMBER.lastIndex;
      tokens.push({ kind: "number", value: Number(number[0]), text: number[0], ...at });
      continue;
    }
    const symbol = SYMBOLS.find((s) => text2.startsWith(s, i));
    if (symbol) {
      i += symbol.length;
      tokens.push({ kind: "symbol", text: symbol, ...at });
      continue;
    }
    const bad = String.fromCodePoint(text2.codePointAt(i));
    throw new ZitiQlError(
      `Unexpected symbol: "${bad}" at line: ${at.line} column: ${at.column}`,
      at.line,
      at.column
    );
  }
  tokens.push({ kind: "eof", text: "", ...positions.at(text2.length) });
  return tokens;
}
function readString(text2, start, fail2) {
  let value = "";
  let i = start + 1;
  for (; ; ) {
    const ch = text2[i];
    if (ch === void 0 || ch === "\n" || ch === "\r") {
      fail2(`unterminated string: missing closing '"'`, start);
    }
    if (ch === '"') return { value, end: i + 1 };
    if (ch === "\\") {
      const escaped = ESCAPES.get(text2[i + 1]);
      if (escaped === void 0) {
        const seq2 = text2[i + 1] === void 0 ? "\\" : `\\${text2[i + 1]}`;
        fail2(`invalid escape sequence "${seq2}" in string (allowed: \\" \\\\ \\f \\n \\r \\t)`, i);
      }
      value += escaped;
      i += 2;
      continue;
    }
    if (ch < " ") {
      const code = `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
      fail2(`control character ${code} must be escaped in a string`, i);
    }
    value += ch;
    i++;
  }
}
function parseDatetime(text2) {
  const m = RFC3339.exec(text2);
  if (!m) return void 0;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const millis = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3));
  const offsetMinutes = m[8] ? (m[8] === "-" ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10])) : 0;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 60 || // leap second, rolled into the next minute
  m[8] && (Number(m[9]) > 23 || Number(m[10]) > 59)) {
    return void 0;
  }
  const date = new Date(Date.UTC(2e3, month - 1, day, hour, minute, second, millis));
  date.setUTCFullYear(year);
  const utc = new Date(date.getTime() - offsetMinutes * 6e4);
  const utcYear = utc.getUTCFullYear();
  return utcYear >= 0 && utcYear <= 9999 ? utc.toISOString() : void 0;
}
function daysInMonth(year, month) {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
var PositionTracker = class {
  constructor(text2) {
    this.text = text2;
  }
  index = 0;
  line = 1;
  column = 1;
  at(target) {
    if (target < this.index) {
      this.index = 0;
      this.line = 1;
      this.column = 1;
    }
    for (; this.index < target; this.index++) {
      const code = this.text.charCodeAt(this.index);
      if (code === 10) {
        this.line++;
        this.column = 1;
      } else if (code < 56320 || code > 57343) {
        this.column++;
      }
    }
    return { line: this.line, column: this.column };
  }
};

// src/protocol/zitiql/parser.ts
var MAX_SORT_FIELDS = 5;
var MAX_NESTING = 100;
var MAX_CONDITIONS = 256;
var MAX_LIST_VALUES = 1e3;
var KEYWORDS = /* @__PURE__ */ new Set([
  "and",
  "or",
  "not",
  "true",
  "false",
  "null",
  "contains",
  "icontains",
  "in",
  "between",
  "sort",
  "by",
  "asc",
  "desc",
  "skip",
  "limit",
  "none",
  "from",
  "where",
  "allof",
  "anyof",
  "count",
  "isempty"
]);
var FOLLOWERS = {
  filter: ["'and'", "'or'", "'sort by'", "'skip'", "'limit'"],
  sort: ["','", "'skip'", "'limit'"],
  skip: ["'limit'"],
  limit: []
};
var COMPARISONS = /* @__PURE__ */ new Set(["=", "!=", "<", "<=", ">", ">="]);
var SET_FUNCTIONS = /* @__PURE__ */ new Map([
  ["anyof", "anyOf"],
  ["allof", "allOf"],
  ["count", "count"]
]);
function parseQuery(text2) {
  return new Parser(tokenize(text2)).parseQuery();
}
var Parser = class {
  constructor(tokens) {
    this.tokens = tokens;
  }
  index = 0;
  depth = 0;
  conditions = 0;
  parseQuery() {
    const query = { sort: [] };
    let last = "filter";
    if (!this.atSuffix()) query.filter = this.parseOr();
    if (this.acceptKeyword("sort")) {
      this.expectKeyword("by", "'by' after 'sort'");
      query.sort = this.parseSortFields();
      last = "sort";
    }
    if (this.acceptKeyword("skip")) {
      query.skip = this.expectInteger("skip");
      last = "skip";
    }
    if (this.acceptKeyword("limit")) {
      query.limit = this.acceptKeyword("none") ? "none" : this.expectInteger("limit");
      last = "limit";
    }
    if (this.peek().kind !== "eof") {
      const expected = [...FOLLOWERS[last], "end of input"];
      this.fail(`expected ${joinOptions(expected)} but found ${describe(this.peek())}`);
    }
    return query;
  }
  atSuffix() {
    return ["sort", "skip", "limit"].some((k) => this.isKeyword(this.peek(), k)) || this.peek().kind === "eof";
  }
  parseSortFields() {
    const fields = [];
    do {
      if (fields.length === MAX_SORT_FIELDS) {
        this.fail(`too many sort fields: at most ${MAX_SORT_FIELDS} are allowed`);
      }
      const field = this.expectIdentifier("a field name to sort by");
      let direction = "asc";
      if (this.acceptKeyword("desc")) direction = "desc";
      else this.acceptKeyword("asc");
      fields.push({ field, direction });
    } while (this.acceptSymbol(","));
    return fields;
  }
  parseOr() {
    const operands = [this.parseAnd()];
    while (this.acceptKeyword("or")) operands.push(this.parseAnd());
    return operands.length === 1 ? operands[0] : { kind: "or", operands };
  }
  parseAnd() {
    const operands = [this.parseUnary()];
    while (this.acceptKeyword("and")) operands.push(this.parseUnary());
    return operands.length === 1 ? operands[0] : { kind: "and", operands };
  }
  parseUnary() {
    if (this.acceptKeyword("not")) return { kind: "not", operand: this.nested(() => this.parseOr()) };
    return this.parsePrimary();
  }
  parsePrimary() {
    const token = this.peek();
    if (this.peek().kind !== "symbol" || this.peek().text !== "(") this.countCondition(token);
    if (this.acceptSymbol("(")) {
      const expr = this.nested(() => this.parseOr());
      this.expectSymbol(")", "')' to close the parenthesis");
      return expr;
    }
    if (this.acceptKeyword("true")) return { kind: "const", value: true };
    if (this.acceptKeyword("false")) return { kind: "const", value: false };
    if (this.acceptKeyword("isEmpty")) return { kind: "isEmpty", set: this.parseSetArgument("isEmpty") };
    const left = this.parseOperand();
    if (left === void 0) {
      this.fail(`expected a condition (such as name = "x") but found ${describe(token)}`);
    }
    if (this.atOperator()) return this.parseOperation(left);
    if (left.kind === "symbol") return { kind: "boolSymbol", name: left.name };
    const operators = "=, !=, <, <=, >, >=, contains, icontains, in, between";
    return this.fail(
      `expected an operator (${operators}) after ${left.kind}(${left.set}) but found ${describe(this.peek())}`
    );
  }
  countCondition(at) {
    if (++this.conditions > MAX_CONDITIONS) {
      this.fail(`too many conditions: a filter may have at most ${MAX_CONDITIONS}`, at);
    }
  }
  /** Runs `parse` one nesting level deeper, just after the `(` or `not` that opened the level. */
  nested(parse) {
    if (++this.depth > MAX_NESTING) {
      this.fail(`expression nested too deeply (more than ${MAX_NESTING} levels)`, this.tokens[this.index - 1]);
    }
    const result = parse();
    this.depth--;
    return result;
  }
  parseOperand() {
    const token = this.peek();
    const setFunction = token.kind === "word" ? SET_FUNCTIONS.get(token.text.toLowerCase()) : void 0;
    if (setFunction) {
      this.index++;
      return { kind: setFunction, set: this.parseSetArgument(token.text) };
    }
    if (token.kind === "quotedIdentifier" || token.kind === "word" && !this.isReserved(token)) {
      return { kind: "symbol", name: this.expectIdentifier("a field name") };
    }
    return void 0;
  }
  /** `(field)` after a set function; subqueries (`from X where ...`) are recognised only to reject them. */
  parseSetArgument(fn) {
    this.expectSymbol("(", `'(' after ${fn}`);
    if (this.isKeyword(this.peek(), "from")) {
      this.fail(`subqueries ("from ... where ...") are not supported`);
    }
    const set2 = this.expectIdentifier(`a set field name inside ${fn}()`);
    this.expectSymbol(")", `')' after ${fn}(${set2}`);
    return set2;
  }
  atOperator() {
    const token = this.peek();
    if (token.kind === "symbol") return COMPARISONS.has(token.text);
    return ["contains", "icontains", "in", "between", "not"].some((k) => this.isKeyword(token, k));
  }
  parseOperation(left) {
    const token = this.next();
    if (token.kind === "symbol") {
      const op = token.text;
      const equality = op === "=" || op === "!=";
      const right = this.parseLiteral(
        equality ? ["string", "number", "datetime", "boolean", "null"] : ["string", "number", "datetime"],
        `'${op}'`
      );
      return { kind: "compare", left, op, right };
    }
    const negated = this.isKeyword(token, "not");
    const operator = negated ? this.next() : token;
    const name = operator.kind === "word" ? operator.text.toLowerCase() : "";
    const opText = negated ? `'not ${name}'` : `'${name}'`;
    switch (name) {
      case "contains":
      case "icontains": {
        const right = this.parseLiteral(["string", "number"], opText);
        return { kind: "contains", left, negated, ignoreCase: name === "icontains", right };
      }
      case "in":
        return { kind: "in", left, negated, values: this.parseArray(opText) };
      case "between": {
        const lower = this.parseLiteral(["number", "datetime"], opText);
        this.expectKeyword("and", `'and' between the bounds of ${opText}`);
        const upper = this.parseLiteral([lower.kind], `'and' in ${opText}`);
        return { kind: "between", left, negated, lower, upper };
      }
      default:
        return this.fail(
          `expected 'contains', 'icontains', 'in' or 'between' after 'not' but found ${describe(operator)}`,
          operator
        );
    }
  }
  parseArray(opText) {
    this.expectSymbol("[", `'[' after ${opText}`);
    if (this.peek().kind === "symbol" && this.peek().text === "]") {
      this.fail(`empty list after ${opText} is not allowed: give at least one value`);
    }
    const first = this.parseLiteral(["string", "number", "datetime"], `'['`);
    const values = [first];
    while (this.acceptSymbol(",")) {
      if (values.length === MAX_LIST_VALUES) {
        this.fail(`too many values in the list after ${opText}: at most ${MAX_LIST_VALUES} are allowed`);
      }
      values.push(this.parseLiteral([first.kind], `',' (all values of the list must be of one type)`));
    }
    this.expectSymbol("]", `',' or ']' in the list after ${opText}`);
    return values;
  }
  /** Reads one literal of an allowed kind; `after` names what precedes it for the error message. */
  parseLiteral(allowed, after2) {
    const token = this.peek();
    let literal;
    if (token.kind === "string" || token.kind === "number" || token.kind === "datetime") {
      literal = { kind: token.kind, value: token.value };
    } else if (this.isKeyword(token, "true") || this.isKeyword(token, "false")) {
      literal = { kind: "boolean", value: token.text.toLowerCase() === "true" };
    } else if (this.isKeyword(token, "null")) {
      literal = { kind: "null" };
    }
    if (literal === void 0 || !allowed.includes(literal.kind)) {
      this.fail(`expected ${describeKinds(allowed)} after ${after2} but found ${describe(token)}`);
    }
    this.index++;
    return literal;
  }
  expectInteger(keyword) {
    const token = this.peek();
    if (token.kind !== "number" || !Number.isSafeInteger(token.value)) {
      const options = keyword === "limit" ? "an integer or 'none'" : "an integer";
      this.fail(`expected ${options} after '${keyword}' but found ${describe(token)}`);
    }
    this.index++;
    return token.value;
  }
  expectIdentifier(what) {
    const token = this.peek();
    if (token.kind === "quotedIdentifier") {
      this.index++;
      return token.name;
    }
    if (token.kind === "word" && !this.isReserved(token)) {
      this.index++;
      return token.text;
    }
    const hint = token.kind === "word" ? ` (quote it as '${token.text}' to use a keyword as a field name)` : "";
    return this.fail(`expected ${what} but found ${describe(token)}${hint}`);
  }
  expectKeyword(keyword, what) {
    if (!this.acceptKeyword(keyword)) this.fail(`expected ${what} but found ${describe(this.peek())}`);
  }
  expectSymbol(symbol, what) {
    if (!this.acceptSymbol(symbol)) this.fail(`expected ${what} but found ${describe(this.peek())}`);
  }
  acceptKeyword(keyword) {
    if (!this.isKeyword(this.peek(), keyword)) return false;
    this.index++;
    return true;
  }
  acceptSymbol(symbol) {
    const token = this.peek();
    if (token.kind !== "symbol" || token.text !== symbol) return false;
    this.index++;
    return true;
  }
  isKeyword(token, keyword) {
    return token.kind === "word" && token.text.toLowerCase() === keyword.toLowerCase();
  }
  isReserved(token) {
    return KEYWORDS.has(token.text.toLowerCase());
  }
  peek() {
    return this.tokens[this.index];
  }
  next() {
    return this.tokens[this.index++];
  }
  /** Fails at the current token, unless told otherwise. */
  fail(message, at = this.peek()) {
    const { line, column } = at;
    throw new ZitiQlError(`${message} at line ${line}, column ${column}`, line, column);
  }
};
function describe(token) {
  if (token.kind === "eof") return "end of input";
  return token.kind === "string" || token.kind === "quotedIdentifier" ? token.text : `"${token.text}"`;
}
function describeKinds(kinds) {
  return joinOptions(kinds.map((k) => k === "boolean" ? "true/false" : k === "null" ? "null" : `a ${k}`));
}
function joinOptions(options) {
  return options.length === 1 ? options[0] : `${options.slice(0, -1).join(", ")} or ${options[options.length - 1]}`;
}

// src/controller/store/codec.ts
function isJson(type) {
  const kind = type.kind;
  return kind === "attributes" || kind === "tags" || kind === "object" || kind === "map" || kind === "refList" || kind === "roles" || kind === "array";
}
function isList(type) {
  return type.kind === "attributes" || type.kind === "refList" || type.kind === "roles" || type.kind === "array";
}
function encodeValue(type, value) {
  if (value === null || value === void 0) return null;
  if (type.kind === "boolean") return value ? 1 : 0;
  if (isJson(type)) return JSON.stringify(value);
  return value;
}
function decodeValue(type, value) {
  if (value === null || value === void 0) return isJson(type) ? isList(type) ? [] : {} : null;
  if (type.kind === "boolean") return Number(value) === 1 || value === true;
  if (type.kind === "integer") return Number(value);
  if (isJson(type)) return JSON.parse(value);
  return value;
}

// src/controller/store/fragment.ts
var raw = (sql2) => ({ sql: sql2, params: [] });
var param = (value) => ({
  sql: "?",
  params: [typeof value === "boolean" ? Number(value) : value]
});
function sql(strings2, ...parts) {
  let text2 = strings2[0];
  const params = [];
  parts.forEach((part, i) => {
    text2 += part.sql + strings2[i + 1];
    params.push(...part.params);
  });
  return { sql: text2, params };
}
function join(fragments, separator) {
  return {
    sql: fragments.map((f) => f.sql).join(separator),
    params: fragments.flatMap((f) => f.params)
  };
}
function quote(identifier2) {
  return `"${identifier2.replace(/"/g, '""')}"`;
}

// src/controller/store/dialects/dialect.ts
function renderCreateTable(table, typeOf, suffix = "") {
  const q = (n) => `"${n}"`;
  const lines = table.columns.map((c) => `${q(c.name)} ${typeOf(c)}${c.notNull ? " NOT NULL" : ""}${defaultClause(c)}`);
  lines.push(`PRIMARY KEY (${table.primaryKey.map(q).join(", ")})`);
  for (const fk of table.foreignKeys) {
    lines.push(`FOREIGN KEY (${q(fk.column)}) REFERENCES ${q(fk.table)} ("id") ON DELETE ${fk.onDelete.toUpperCase()}`);
  }
  return `CREATE TABLE ${q(table.name)} (
  ${lines.join(",\n  ")}
)${suffix}`;
}
function defaultClause(column) {
  if (column.default === void 0) return "";
  return typeof column.default === "number" ? ` DEFAULT ${column.default}` : ` DEFAULT '${column.default.replace(/'/g, "''")}'`;
}
function renderCreateIndex(index) {
  const q = (n) => `"${n}"`;
  const where = index.where ? ` WHERE ${Object.entries(index.where).map(([c, v]) => `${q(c)} = '${v.replace(/'/g, "''")}'`).join(" AND ")}` : "";
  return `CREATE ${index.unique ? "UNIQUE " : ""}INDEX ${q(index.name)} ON ${q(index.table)} (${index.columns.map(q).join(", ")})${where}`;
}

// src/controller/store/dialects/sqlite.ts
var TYPES = { text: "TEXT", integer: "INTEGER", json: "TEXT" };
var sqliteDialect = {
  name: "sqlite",
  createTable: (table) => renderCreateTable(table, (c) => TYPES[c.type], " WITHOUT ROWID"),
  createIndex: renderCreateIndex,
  dropIndex: (name) => `DROP INDEX IF EXISTS "${name}"`,
  addColumn: (table, c) => `ALTER TABLE "${table}" ADD COLUMN "${c.name}" ${TYPES[c.type]}${c.notNull ? " NOT NULL" : ""}${defaultClause(c)}`,
  dropColumn: (table, column) => `ALTER TABLE "${table}" DROP COLUMN "${column}"`,
  dropTable: (name) => `DROP TABLE IF EXISTS "${name}"`,
  noLimit: -1,
  // One JSON parameter whatever the list's length: one statement text, prepared once.
  inList: (expr, values) => sql`${expr} IN (SELECT value FROM json_each(${param(JSON.stringify(values))}))`,
  // instr, not LIKE: LIKE is case-insensitive for ASCII in SQLite and treats % and _ as wildcards.
  containsText: (haystack, needle, ignoreCase) => ignoreCase ? sql`instr(upper(${haystack}), upper(${needle})) > 0` : sql`instr(${haystack}, ${needle}) > 0`,
  tagValue(tagsSql, key, view) {
    const path6 = sql`'$."' || ${key} || '"'`;
    const value = sql`json_extract(${raw(tagsSql)}, ${path6})`;
    const type = sql`json_type(${raw(tagsSql)}, ${path6})`;
    return typedTag(value, type, view);
  },
  tagSort: (tagsSql, key) => `json_extract(${tagsSql}, '$."${key}"')`,
  violation(err) {
    const code = err?.code;
    const message = err?.message ?? "";
    if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
      const pairs = message.replace(/^.*failed: /, "").split(", ").map((p) => p.split("."));
      return { kind: "unique", table: pairs[0]?.[0], columns: pairs.map((p) => p[1]).filter(Boolean) };
    }
    if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") return { kind: "foreignKey" };
    return void 0;
  }
};
function typedTag(value, type, view) {
  switch (view) {
    case "any":
      return value;
    case "string":
      return sql`(CASE WHEN ${type} = 'text' THEN ${value} END)`;
    case "number":
      return sql`(CASE WHEN ${type} IN ('integer', 'real') THEN ${value} END)`;
    case "substring":
      return sql`(CASE WHEN ${type} IN ('text', 'integer', 'real') THEN ${value} END)`;
    case "boolean":
      return sql`(CASE ${type} WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
    case "datetime":
      return sql`strftime('%Y-%m-%dT%H:%M:%fZ', CASE WHEN ${type} = 'text' THEN ${value} END)`;
  }
}

// src/controller/store/filter-sql.ts
var FilterError = class extends Error {
  name = "FilterError";
};
function compileQuery(q, schema, dialect = sqliteDialect) {
  const where = q.filter ? new Compiler(schema, dialect).bool(q.filter) : raw("1 = 1");
  const compiled3 = { where: where.sql, params: [...where.params], orderBy: compileOrderBy(q, schema, dialect) };
  if (q.skip !== void 0) compiled3.skip = q.skip;
  if (q.limit !== void 0) compiled3.limit = q.limit;
  return compiled3;
}
var not = (f) => sql`NOT coalesce(${f}, FALSE)`;
var SET_ALIAS = "zq_set";
var TAG_PREFIX = "tags.";
function resolve(name, schema) {
  if (Object.hasOwn(schema.symbols, name)) {
    const symbol = schema.symbols[name];
    return symbol.kind === "set" ? { kind: "set", symbol } : { kind: "scalar", symbol };
  }
  if (name === "id") return { kind: "scalar", symbol: { kind: "scalar", type: "string", sql: schema.idSql } };
  if (schema.tagsSql !== void 0 && name.startsWith(TAG_PREFIX) && name.length > TAG_PREFIX.length) {
    return { kind: "tag", key: name.slice(TAG_PREFIX.length), tagsSql: schema.tagsSql };
  }
  throw new FilterError(`unknown symbol '${name}'`);
}
var Compiler = class {
  constructor(schema, dialect) {
    this.schema = schema;
    this.dialect = dialect;
  }
  bool(expr) {
    switch (expr.kind) {
      case "and":
      case "or":
        return sql`(${join(
          expr.operands.map((e) => this.bool(e)),
          expr.kind === "and" ? " AND " : " OR "
        )})`;
      case "not":
        return not(this.bool(expr.operand));
      case "const":
        return raw(expr.value ? "(1 = 1)" : "(1 = 0)");
      case "boolSymbol":
        return this.boolSymbol(expr.name);
      case "isEmpty":
        return sql`NOT ${this.setExists(this.setSymbol(expr.set, "isEmpty"))}`;
      case "compare":
        return this.compare(expr);
      case "contains":
        return this.contains(expr);
      case "in":
        return this.in(expr);
      case "between":
        return this.between(expr);
    }
  }
  /** A bare field means `field = true`. */
  boolSymbol(name) {
    const target = this.target({ kind: "symbol", name });
    if (target.type !== "boolean" && target.type !== "any") {
      throw new FilterError(
        `symbol '${name}' is of type ${target.type} and cannot be used as a boolean condition`
      );
    }
    return sql`${target.value("boolean")} = ${param(true)}`;
  }
  compare(expr) {
    const target = this.target(expr.left);
    const { op, right } = expr;
    const fail2 = () => this.unsupported(`${target.text} ${op} ${formatLiteral(right)}`, target, right.kind);
    if (right.kind === "null") {
      if (!target.nullable || op !== "=" && op !== "!=") fail2();
      return sql`${target.value("any")} ${raw(op === "=" ? "IS NULL" : "IS NOT NULL")}`;
    }
    if (!accepts(target, right.kind) || right.kind === "boolean" && op !== "=" && op !== "!=") fail2();
    const value = target.value(right.kind);
    const operator = raw(op === "!=" ? "IS DISTINCT FROM" : op);
    return target.wrap(sql`${value} ${operator} ${param(right.value)}`);
  }
  contains(expr) {
    const target = this.target(expr.left);
    const name = `${expr.negated ? "not " : ""}${expr.ignoreCase ? "icontains" : "contains"}`;
    if (target.type !== "string" && target.type !== "number" && target.type !== "any") {
      this.unsupported(`${target.text} ${name} ${formatLiteral(expr.right)}`, target, expr.right.kind);
    }
    const value = target.value("substring");
    const needle = param(String(expr.right.value));
    const found = this.dialect.containsText(value, needle, expr.ignoreCase);
    return target.wrap(expr.negated ? not(found) : found);
  }
  in(expr) {
    const target = this.target(expr.left);
    const kind = expr.values[0].kind;
    if (!accepts(target, kind)) {
      const list2 = `[${expr.values.map(formatLiteral).join(", ")}]`;
      this.unsupported(`${target.text} ${expr.negated ? "not in" : "in"} ${list2}`, target, kind);
    }
    const list = join(expr.values.map((v) => param(v.value)), ", ");
    const found = sql`${target.value(kind)} IN (${list})`;
    return target.wrap(expr.negated ? not(found) : found);
  }
  between(expr) {
    const target = this.target(expr.left);
    const kind = expr.lower.kind;
    if (!accepts(target, kind)) {
      const bounds = `${formatLiteral(expr.lower)} and ${formatLiteral(expr.upper)}`;
      this.unsupported(`${target.text} ${expr.negated ? "not between" : "between"} ${bounds}`, target, kind);
    }
    const value = target.value(kind);
    const found = sql`(${value} >= ${param(expr.lower.value)} AND ${value} < ${param(expr.upper.value)})`;
    return target.wrap(expr.negated ? not(found) : found);
  }
  target(operand) {
    const identity8 = (condition) => condition;
    if (operand.kind === "count") {
      const symbol = this.setSymbol(operand.set, "count");
      const count = sql`(SELECT count(*) FROM ${this.setFrom(symbol)})`;
      const text2 = `count(${operand.set})`;
      return { type: "number", value: () => count, wrap: identity8, nullable: false, text: text2 };
    }
    if (operand.kind === "anyOf" || operand.kind === "allOf") {
      const symbol = this.setSymbol(operand.set, operand.kind);
      const element = raw(`${SET_ALIAS}.${symbol.valueColumn}`);
      const all = operand.kind === "allOf";
      return {
        type: symbol.type,
        value: () => element,
        // allOf = no element violates the condition, so it is true for an empty set (as in the Go controller).
        wrap: (condition) => all ? sql`NOT ${this.setExists(symbol, not(condition))}` : this.setExists(symbol, condition),
        nullable: false,
        text: `${operand.kind}(${operand.set})`
      };
    }
    const resolved = resolve(operand.name, this.schema);
    if (resolved.kind === "set") {
      throw new FilterError(`symbol '${operand.name}' is a set symbol but is used in non-set function context`);
    }
    if (resolved.kind === "tag") {
      const value = (view) => this.dialect.tagValue(resolved.tagsSql, param(resolved.key), view);
      return { type: "any", value, wrap: identity8, nullable: true, text: operand.name };
    }
    const column = raw(resolved.symbol.sql);
    return { type: resolved.symbol.type, value: () => column, wrap: identity8, nullable: true, text: operand.name };
  }
  setSymbol(name, fn) {
    const resolved = resolve(name, this.schema);
    if (resolved.kind !== "set") {
      throw new FilterError(`symbol '${name}' is not a set symbol and cannot be used with ${fn}()`);
    }
    return resolved.symbol;
  }
  /** `<table> AS zq_set WHERE zq_set.<owner> = <id>`: the side-table rows of the current entity. */
  setFrom(symbol) {
    const { table, ownerColumn } = symbol;
    return raw(`${table} AS ${SET_ALIAS} WHERE ${SET_ALIAS}.${ownerColumn} = ${this.schema.idSql}`);
  }
  /** Whether the entity has a set element (satisfying the condition, when given). */
  setExists(symbol, condition) {
    const from = this.setFrom(symbol);
    return condition ? sql`EXISTS (SELECT 1 FROM ${from} AND ${condition})` : sql`EXISTS (SELECT 1 FROM ${from})`;
  }
  unsupported(operation, target, literalKind) {
    throw new FilterError(
      `operation ${operation} is not supported with operands types ${target.type}, ${literalKind}`
    );
  }
};
function accepts(target, kind) {
  return kind !== "null" && (target.type === "any" || target.type === kind);
}
function formatLiteral(literal) {
  switch (literal.kind) {
    case "string":
      return JSON.stringify(literal.value);
    case "datetime":
      return `datetime(${literal.value})`;
    case "null":
      return "null";
    default:
      return String(literal.value);
  }
}
function compileOrderBy(q, schema, dialect) {
  const terms = q.sort.map(({ field, direction }) => ({
    sql: sortExpression(field, schema, dialect),
    direction: direction === "desc" ? "DESC" : "ASC"
  }));
  if (!terms.some((t) => t.sql === schema.idSql)) terms.push({ sql: schema.idSql, direction: "ASC" });
  return terms.map((t) => `${t.sql} ${t.direction}`).join(", ");
}
var SAFE_TAG_KEY = /^[A-Za-z][A-Za-z_-]*(?:\.[A-Za-z][A-Za-z_-]*)*$/;
function sortExpression(field, schema, dialect) {
  const resolved = resolve(field, schema);
  if (resolved.kind === "tag") {
    if (!SAFE_TAG_KEY.test(resolved.key)) throw new FilterError(`sort field '${field}' is not sortable`);
    return dialect.tagSort(schema.tagsSql, resolved.key);
  }
  if (resolved.kind === "set" || resolved.symbol.sortable === false) {
    throw new FilterError(`sort field '${field}' is not sortable`);
  }
  return resolved.symbol.sql;
}

// src/resources/common.ts
var IDENTITY_TYPES = ["User", "Device", "Service", "Router", "Default"];
var TERMINATOR_PRECEDENCES = ["default", "required", "failed"];
var SEMANTICS = ["AllOf", "AnyOf"];
var terminatorCost = { kind: "integer", minimum: 0, maximum: 65535 };
var username = { kind: "string", minLength: 4, maxLength: 100 };
var password = { kind: "string", minLength: 5, maxLength: 100 };
var datetime = { kind: "string", format: "date-time" };
function serverField(type, description, extra = {}) {
  return { type, description, create: "no", replace: "no", patch: "no", readOnly: true, ...extra };
}
function computedField(type, description) {
  return { type, description, create: "no", replace: "no", patch: "no", readOnly: true, computed: true };
}
function nameField(description) {
  return {
    type: { kind: "string", minLength: 1, maxLength: 1024 },
    description,
    create: "required",
    replace: "required",
    patch: "optional",
    unique: true,
    filterable: true,
    sortable: true
  };
}
function createOnly(type, description) {
  return { type, description, create: "required", replace: "no", patch: "no", filterable: true, sortable: true };
}
function roleAttributesField(what) {
  return {
    type: { kind: "attributes" },
    description: `Attributes that policies select the ${what} by (#attribute)`,
    create: "optional",
    replace: "optional",
    patch: "optional",
    nullable: true,
    default: [],
    filterable: true
  };
}
function optionalField(type, description, extra = {}) {
  return { type, description, create: "optional", replace: "optional", patch: "optional", ...extra };
}
function rolesField(resource2, description) {
  return { type: { kind: "roles", resource: resource2 }, description, create: "optional", replace: "optional", patch: "optional", nullable: true, default: [], filterable: true };
}
function namedRolesField(rolesField2) {
  const namedRole = { kind: "object", properties: { role: { kind: "string" }, name: { kind: "string" } }, required: ["role", "name"] };
  return computedField({ kind: "array", items: namedRole }, `The roles of ${rolesField2}, each with the name it stands for`);
}
var semanticField = {
  type: { kind: "enum", values: SEMANTICS },
  description: "AllOf: an entity needs every #attribute of a role set; AnyOf: any one of them",
  create: "required",
  replace: "required",
  patch: "optional",
  filterable: true,
  sortable: true
};

// src/resources/api-session.ts
var apiSession = {
  name: "api-session",
  plural: "api-sessions",
  label: "API session",
  api: "management",
  operations: ["list", "get", "delete"],
  table: "api_sessions",
  description: "An authenticated session of an identity",
  fields: {
    identityId: serverField({ kind: "ref", resource: "identity", as: "identity", onDelete: "cascade" }, "The authenticated identity", {
      filterable: true,
      sortable: true,
      read: { required: true }
    }),
    authenticatorId: serverField({ kind: "string" }, "The authenticator used", { filterable: true, read: { required: true } }),
    ipAddress: serverField({ kind: "string" }, "Address the session was created from", { filterable: true, sortable: true, read: { required: true } }),
    lastActivityAt: serverField(datetime, "Last authenticated request", { filterable: true, sortable: true, read: { required: true } }),
    isMfaRequired: serverField({ kind: "boolean" }, "A second factor is required", { filterable: true, default: false }),
    isMfaComplete: serverField({ kind: "boolean" }, "The second factor was given", { filterable: true, default: false }),
    configTypes: serverField({ kind: "attributes" }, "Config types the client asked for"),
    token: computedField({ kind: "string" }, "The session token: empty here, shown only to its owner (authentication, /current-api-session)"),
    authQueries: computedField({ kind: "array", items: { kind: "object" } }, "Further authentication the session must pass (none: MFA is not supported yet)"),
    cachedLastActivityAt: computedField(datetime, "Last authenticated request (as lastActivityAt)"),
    cachedUpdatedAt: computedField(datetime, "Last update (as updatedAt)"),
    isCertExtendable: computedField({ kind: "boolean" }, "The session could extend its certificate (always false)"),
    isCertExtendRequested: computedField({ kind: "boolean" }, "A certificate extension was requested (always false)"),
    isCertKeyRollRequested: computedField({ kind: "boolean" }, "A key roll was requested (always false)"),
    improperClientCertChain: computedField({ kind: "boolean" }, "The client certificate chain was incomplete (always false)"),
    expiresAt: computedField(datetime, "When the session expires without further activity"),
    expirationSeconds: computedField({ kind: "integer" }, "Session lifetime after the last activity, in seconds"),
    tokenHash: { ...serverField({ kind: "string" }, "SHA-256 of the session token (the token itself is never stored)"), internal: true, unique: true }
  },
  cli: {
    noun: "api-session",
    aliases: ["api-sessions"],
    group: "Identities and authentication",
    columns: [
      { header: "ID", field: "id" },
      { header: "Identity", field: "identity.name" },
      { header: "IP", field: "ipAddress" },
      { header: "Last Activity", field: "lastActivityAt" },
      { header: "Created", field: "createdAt", priority: 1 }
    ]
  }
};

// src/resources/auth-policy.ts
var bool = { kind: "boolean" };
var int = { kind: "integer" };
var primary = {
  kind: "object",
  properties: {
    cert: { kind: "object", properties: { allowed: bool, allowExpiredCerts: bool }, required: ["allowed", "allowExpiredCerts"] },
    updb: {
      kind: "object",
      properties: {
        allowed: bool,
        minPasswordLength: int,
        requireSpecialChar: bool,
        requireNumberChar: bool,
        requireMixedCase: bool,
        maxAttempts: int,
        lockoutDurationMinutes: int
      },
      required: ["allowed", "minPasswordLength", "requireSpecialChar", "requireNumberChar", "requireMixedCase", "maxAttempts", "lockoutDurationMinutes"]
    },
    extJwt: { kind: "object", properties: { allowed: bool, allowedSigners: { kind: "array", items: { kind: "string" } } }, required: ["allowed", "allowedSigners"] }
  },
  required: ["cert", "updb", "extJwt"]
};
var secondary = { kind: "object", properties: { requireTotp: bool }, required: ["requireTotp"] };
var authPolicy = {
  name: "auth-policy",
  plural: "auth-policies",
  label: "auth policy",
  api: "management",
  operations: ["list", "get"],
  table: "auth_policies",
  description: "How identities may authenticate: primary methods and secondary factors",
  hasSystemEntities: true,
  builtIns: [
    {
      id: "default",
      name: "Default",
      primary: {
        cert: { allowed: true, allowExpiredCerts: true },
        updb: {
          allowed: true,
          minPasswordLength: 5,
          requireSpecialChar: false,
          requireNumberChar: false,
          requireMixedCase: false,
          maxAttempts: 0,
          lockoutDurationMinutes: 0
        },
        extJwt: { allowed: true, allowedSigners: [] }
      },
      secondary: { requireTotp: false, requireExtJwtSigner: null }
    }
  ],
  fields: {
    name: nameField("Unique name of the policy"),
    primary: {
      type: primary,
      description: "Primary authentication: {cert, updb, extJwt} settings",
      create: "required",
      replace: "required",
      patch: "optional"
    },
    secondary: {
      type: secondary,
      description: "Secondary factors: {requireTotp, requireExtJwtSigner}",
      create: "required",
      replace: "required",
      patch: "optional"
    }
  },
  cli: {
    noun: "auth-policy",
    aliases: ["auth-policies"],
    group: "Identities and authentication",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Password", field: "primary.updb.allowed" },
      { header: "Certificate", field: "primary.cert.allowed" },
      { header: "Ext JWT", field: "primary.extJwt.allowed" },
      { header: "TOTP Required", field: "secondary.requireTotp" }
    ]
  }
};

// src/resources/authenticator.ts
var authenticator = {
  name: "authenticator",
  plural: "authenticators",
  label: "authenticator",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "authenticators",
  description: "A credential of an identity: a username and password (updb) or a certificate (cert)",
  fields: {
    identityId: createOnly({ kind: "ref", resource: "identity", as: "identity", onDelete: "cascade" }, "The identity the authenticator belongs to"),
    method: createOnly({ kind: "enum", values: ["updb", "cert"] }, "updb (username and password) or cert (client certificate)"),
    username: {
      type: username,
      description: "Login name (updb)",
      create: "optional",
      replace: "required",
      patch: "optional",
      filterable: true,
      sortable: true,
      unique: true
    },
    password: {
      type: password,
      description: "Password (updb); stored only as a memory-hard hash",
      create: "optional",
      replace: "required",
      patch: "optional",
      secret: true
    },
    certPem: {
      type: { kind: "string", minLength: 1, maxLength: 65536 },
      description: "Client certificate (cert)",
      create: "optional",
      replace: "no",
      patch: "no"
    },
    fingerprint: serverField({ kind: "string" }, "SHA-1 fingerprint of the certificate (cert)", { filterable: true }),
    // A certificate issued by extension and not yet verified (extend-verify): the old one works until then.
    pendingCertPem: { ...serverField({ kind: "string" }, "The extended certificate awaiting verification"), internal: true },
    pendingFingerprint: { ...serverField({ kind: "string" }, "SHA-1 fingerprint of the extended certificate"), internal: true },
    isIssuedByNetwork: serverField({ kind: "boolean" }, "The certificate was issued by this controller", { filterable: true, default: false })
  },
  example: { method: "updb", username: "user-$unique", password: "Password-$unique" },
  // One password per identity, decided by the database so that two concurrent creates cannot both succeed.
  indexes: [{ columns: ["identityId"], unique: true, where: { method: "updb" } }],
  cli: {
    noun: "authenticator",
    aliases: ["authenticators", "auth"],
    group: "Identities and authentication",
    columns: [
      { header: "ID", field: "id" },
      { header: "Identity", field: "identity.name" },
      { header: "Method", field: "method" },
      { header: "Username", field: "username" },
      { header: "Fingerprint", field: "fingerprint", priority: 1 },
      { header: "Created", field: "createdAt", priority: 1 }
    ]
  }
};

// src/resources/ca.ts
var EXAMPLE_CA_PEM = [
  "-----BEGIN CERTIFICATE-----",
  "MIIBvjCCAWWgAwIBAgIUcPkbCP3KfdlR9ub0pmfVw0925bEwCgYIKoZIzj0EAwIw",
  "LDETMBEGA1UEAwwKRXhhbXBsZSBDQTEVMBMGA1UECgwMY3RsIGV4YW1wbGVzMCAX",
  "DTI2MTEyMzE0MDkzOVoYDzIxMjYxMDMwMTQwOTM5WjAsMRMwEQYDVQQDDApFeGFt",
  "cGxlIENBMRUwEwYDVQQKDAxjdGwgZXhhbXBsZXMwWTATBgcqhkjOPQIBBggqhkjO",
  "PQMBBwNCAAQpD8hdDafv/QiqUvBkG1a+9b9Z3yI8tKBdzEs/xmqNwcffbqsZN7hu",
  "bDQIn8s2INCrZYFJSKJbpXog9Mr/Jkswo2MwYTAdBgNVHQ4EFgQUiHSYmD3pMd5D",
  "4SzzR7ziOGJW09AwHwYDVR0jBBgwFoAUiHSYmD3pMd5D4SzzR7ziOGJW09AwDwYD",
  "VR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwIDRwAwRAIg",
  "N0ucwoi+HrweXzYfqZ84xOcSwXPdYl/UGROpOor7wx8CIAxY6A1wp8htDZu4X49L",
  "lSS9WqTB1JskzGzlkREso2Wk",
  "-----END CERTIFICATE-----"
].join("\n");
var flag = (description) => ({
  type: { kind: "boolean" },
  description,
  create: "required",
  replace: "required",
  patch: "optional",
  filterable: true,
  sortable: true
});
var ca = {
  name: "ca",
  plural: "cas",
  label: "CA",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "cas",
  description: "A third-party certificate authority whose certificates identities may enroll or authenticate with",
  fields: {
    name: nameField("Unique name of the CA"),
    certPem: {
      type: { kind: "string", minLength: 1, maxLength: 65536, format: "pem" },
      description: "The CA certificate (PEM)",
      create: "required",
      replace: "no",
      patch: "no"
    },
    fingerprint: serverField({ kind: "string" }, "SHA-1 fingerprint of the CA certificate", { filterable: true, read: { required: true } }),
    isVerified: serverField({ kind: "boolean" }, "The CA proved it holds its key (verify)", { filterable: true, default: false, read: { required: true } }),
    verificationToken: serverField({ kind: "string" }, "The common name a verification certificate must carry", { filterable: true, read: { required: true } }),
    isAutoCaEnrollmentEnabled: flag("Certificates of this CA may enroll without a prior identity (/enroll/ca)"),
    isOttCaEnrollmentEnabled: flag("Identities may enroll with a certificate of this CA and a one-time token (ottca)"),
    isAuthEnabled: flag("Certificates of this CA may authenticate (method=cert)"),
    identityRoles: {
      type: { kind: "attributes" },
      description: "Role attributes given to identities created by auto enrollment",
      create: "required",
      replace: "required",
      patch: "optional",
      default: []
    },
    identityNameFormat: {
      type: { kind: "string", minLength: 1, maxLength: 1024 },
      description: "Name of identities created by auto enrollment: [caName], [caId], [commonName], [requestedName], [identityId]",
      create: "optional",
      replace: "optional",
      patch: "optional",
      nullable: true,
      default: "[caName]-[commonName]"
    }
  },
  // A self-signed example CA (EC P-256, valid until 2126) for the generic tests' bodies; its key is nowhere.
  example: { certPem: EXAMPLE_CA_PEM, isAutoCaEnrollmentEnabled: false, isOttCaEnrollmentEnabled: true, isAuthEnabled: true, identityRoles: [] },
  cli: {
    noun: "ca",
    aliases: ["cas"],
    group: "Identities and authentication",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Verified", field: "isVerified" },
      { header: "Auth", field: "isAuthEnabled" },
      { header: "OTT-CA", field: "isOttCaEnrollmentEnabled" },
      { header: "Auto", field: "isAutoCaEnrollmentEnabled", priority: 1 },
      { header: "Fingerprint", field: "fingerprint", priority: 1 }
    ]
  }
};

// src/resources/config-type-schemas.ts
var MAX_PORT = 65535;
var MAX_INT32 = 2147483647;
var port = { type: "integer", minimum: 0, maximum: MAX_PORT };
var protocol = { type: "string", enum: ["tcp", "udp"] };
var address = { type: "string", minLength: 1 };
var duration = { type: "string", pattern: "^([0-9]+(\\.[0-9]+)?(ns|us|\xB5s|ms|s|m|h))+$" };
var portRange = {
  type: "object",
  properties: { low: port, high: port },
  required: ["low", "high"],
  additionalProperties: false
};
function setOf(items, description) {
  return { type: "array", minItems: 1, uniqueItems: true, items, ...description ? { description } : {} };
}
function closed(properties, required = []) {
  return { type: "object", properties, ...required.length ? { required } : {}, additionalProperties: false };
}
var healthAction = closed(
  {
    trigger: { type: "string", enum: ["fail", "pass", "change"] },
    consecutiveEvents: { type: "integer", minimum: 0, maximum: MAX_PORT },
    duration,
    action: { type: "string", pattern: "^(mark (un)?healthy|increase cost [0-9]+|decrease cost [0-9]+|send event)$" }
  },
  ["trigger", "action"]
);
var healthActions = { type: "array", minItems: 1, maxItems: 20, items: healthAction };
var healthChecks = {
  portChecks: {
    type: "array",
    items: closed({ interval: duration, timeout: duration, address: { type: "string" }, actions: healthActions }, ["interval", "timeout", "address"])
  },
  httpChecks: {
    type: "array",
    items: closed(
      {
        url: { type: "string" },
        method: { type: "string", enum: ["GET", "POST", "PUT", "PATCH"] },
        body: { type: "string" },
        interval: duration,
        timeout: duration,
        actions: healthActions,
        expectStatus: { type: "integer", minimum: 100, maximum: 599 },
        expectInBody: { type: "string" }
      },
      ["interval", "timeout", "url"]
    )
  }
};
var translation = (format, maxPrefix) => closed({ from: { type: "string", format }, to: { type: "string", format }, prefixLength: { type: "integer", minimum: 0, maximum: maxPrefix } });
function fixedOrForwarded(field, forward, allowed) {
  return { if: { properties: { [forward]: { const: true } }, required: [forward] }, then: { required: [allowed] }, else: { required: [field] } };
}
var hostTerminator = {
  type: "object",
  properties: {
    protocol,
    forwardProtocol: { const: true, description: "Dial the intercepted protocol ('protocol' then unused)" },
    allowedProtocols: setOf(protocol, "Protocols that may be forwarded"),
    address,
    forwardAddress: { const: true, description: "Dial the intercepted address ('address' then unused)" },
    allowedAddresses: setOf(address, "Addresses that may be forwarded"),
    forwardAddressTranslations: setOf({ oneOf: [translation("ipv4", 32), translation("ipv6", 128)] }),
    port,
    forwardPort: { const: true, description: "Dial the intercepted port ('port' then unused)" },
    allowedPortRanges: setOf(portRange, "Ports that may be forwarded"),
    allowedSourceAddresses: setOf(address, "Source addresses the hosting tunneler routes locally"),
    listenOptions: closed({
      connectTimeoutSeconds: { type: "integer", minimum: 0, maximum: MAX_INT32 },
      connectTimeout: duration,
      maxConnections: { type: "integer", minimum: 1 },
      identity: { type: "string" },
      bindUsingEdgeIdentity: { type: "boolean" },
      cost: { type: "integer", minimum: 0, maximum: MAX_PORT },
      precedence: { type: "string", enum: ["default", "required", "failed"] }
    }),
    proxy: {
      type: "object",
      properties: { type: { type: "string", enum: ["http"] }, address: { type: "string", description: "host:port of the proxy" } },
      required: ["type", "address"]
    },
    ...healthChecks
  },
  additionalProperties: false,
  allOf: [
    fixedOrForwarded("protocol", "forwardProtocol", "allowedProtocols"),
    fixedOrForwarded("address", "forwardAddress", "allowedAddresses"),
    fixedOrForwarded("port", "forwardPort", "allowedPortRanges")
  ]
};
var linkGroups = { oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] };
var channelOptions = closed({
  outQueueSize: { type: "integer", minimum: 0 },
  maxQueuedConnects: { type: "integer", minimum: 0, maximum: 5e3 },
  maxOutstandingConnects: { type: "integer", minimum: 1, maximum: 1e3 },
  connectTimeout: duration,
  writeTimeout: duration
});
var backoff = closed({ retryBackoffFactor: { type: "number", minimum: 1, maximum: 100 }, minRetryInterval: duration, maxRetryInterval: duration });
var BUILT_IN_CONFIG_TYPES = [
  {
    id: "f2dd2df0-9c04-4b84-a91e-71437ac229f1",
    name: "ziti-tunneler-client.v1",
    target: "service",
    schema: closed({ hostname: { type: "string" }, port }, ["hostname", "port"])
  },
  {
    id: "cea49285-6c07-42cf-9f52-09a9b115c783",
    name: "ziti-tunneler-server.v1",
    target: "service",
    schema: closed({ protocol: { type: ["string", "null"], enum: ["tcp", "udp", null] }, hostname: { type: "string" }, port, ...healthChecks }, ["hostname", "port"])
  },
  {
    id: "g7cIWbcGg",
    name: "intercept.v1",
    target: "service",
    schema: closed(
      {
        protocols: setOf(protocol),
        addresses: setOf(address),
        portRanges: setOf(portRange),
        dialOptions: closed({ identity: { type: "string" }, connectTimeoutSeconds: { type: "integer", minimum: 0, maximum: MAX_INT32 } }),
        sourceIp: { type: "string" },
        allowedSourceAddresses: setOf(address)
      },
      ["protocols", "addresses", "portRanges"]
    )
  },
  { id: "NH5p4FpGR", name: "host.v1", target: "service", schema: hostTerminator },
  {
    id: "host.v2",
    name: "host.v2",
    target: "service",
    schema: closed({ terminators: { type: "array", minItems: 1, items: hostTerminator } }, ["terminators"])
  },
  {
    id: "interfaces.v1",
    name: "interfaces.v1",
    target: "service",
    schema: closed({ interfaces: { type: "array", items: { type: "string" } } }, ["interfaces"])
  },
  {
    id: "proxy.v1",
    name: "proxy.v1",
    target: "service",
    schema: closed(
      { port: { type: "integer", minimum: 1, maximum: MAX_PORT }, protocols: { type: "array", minItems: 1, items: protocol }, binding: { type: "string" } },
      ["port", "protocols"]
    )
  },
  {
    id: "router.link.v1",
    name: "router.link.v1",
    target: "router",
    schema: closed({
      listeners: {
        type: "array",
        items: closed(
          {
            binding: { type: "string", minLength: 1 },
            bind: { type: "string", minLength: 1, description: "transport address, e.g. tls:0.0.0.0:6262" },
            advertise: { type: "string" },
            bindInterface: { type: "string" },
            groups: linkGroups,
            options: channelOptions
          },
          ["bind"]
        )
      },
      dialers: {
        type: "array",
        items: closed({
          binding: { type: "string", minLength: 1 },
          maxDefaultConnections: { type: "integer", minimum: 1, maximum: 100 },
          maxAckConnections: { type: "integer", minimum: 0, maximum: 100 },
          startupDelay: duration,
          bindInterface: { type: "string" },
          groups: linkGroups,
          healthyDialBackoff: backoff,
          unhealthyDialBackoff: backoff,
          options: channelOptions
        })
      },
      heartbeats: closed({ sendInterval: duration, checkInterval: duration, closeUnresponsiveTimeout: duration }),
      payloadSenderQueueSize: { type: "integer", minimum: 1 },
      ackSenderQueueSize: { type: "integer", minimum: 1 },
      gcMode: { type: "string", enum: ["preserve", "orphaned", "changed"] }
    })
  }
];

// src/resources/config-type.ts
var configType = {
  name: "config-type",
  plural: "config-types",
  label: "config type",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "config_types",
  description: "A kind of config, with the JSON schema its configs must satisfy (intercept.v1, host.v1, ...)",
  hasSystemEntities: true,
  builtIns: BUILT_IN_CONFIG_TYPES,
  fields: {
    name: nameField("Unique name of the config type, e.g. intercept.v1"),
    schema: {
      type: { kind: "object" },
      description: "JSON schema that the data of every config of this type must satisfy ({} accepts any object)",
      create: "optional",
      replace: "optional",
      patch: "optional",
      default: {}
    },
    target: {
      type: { kind: "enum", values: ["service", "router", "other"] },
      // Fixed at creation, as in OpenZiti (its update models have no target, and its store refuses a change).
      description: "What configs of this type configure; set at creation only",
      create: "optional",
      replace: "no",
      patch: "no",
      nullable: true,
      default: "service",
      filterable: true,
      sortable: true
    }
  },
  relations: {
    configs: { resource: "config", foreignKey: "configTypeId", description: "Configs of this type" }
  },
  cli: {
    noun: "config-type",
    aliases: ["config-types"],
    group: "Services and configs",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Target", field: "target" },
      { header: "Created", field: "createdAt", priority: 1 }
    ]
  }
};

// src/resources/edge-router-policy.ts
var edgeRouterPolicy = {
  name: "edge-router-policy",
  plural: "edge-router-policies",
  label: "edge router policy",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "edge_router_policies",
  description: "Lets the identities it selects connect to the edge routers it selects",
  hasSystemEntities: true,
  fields: {
    name: nameField("Unique name of the policy"),
    semantic: semanticField,
    identityRoles: rolesField("identity", "Identities the policy applies to: #attribute, @id or #all"),
    identityRolesDisplay: namedRolesField("identityRoles"),
    edgeRouterRoles: rolesField("edge-router", "Edge routers they may use: #attribute, @id or #all"),
    edgeRouterRolesDisplay: namedRolesField("edgeRouterRoles")
  },
  relations: {
    identities: { resource: "identity", roles: "identityRoles", description: "Identities the policy selects" },
    "edge-routers": { resource: "edge-router", roles: "edgeRouterRoles", description: "Edge routers the policy selects" }
  },
  cli: {
    noun: "edge-router-policy",
    aliases: ["edge-router-policies", "erp"],
    group: "Policies and posture",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Semantic", field: "semantic" },
      { header: "Identities", field: "identityRoles" },
      { header: "Routers", field: "edgeRouterRoles" }
    ]
  }
};

// src/resources/router-fields.ts
function routerFields(what) {
  return {
    name: nameField(`Unique name of the ${what} (unique among all routers)`),
    cost: {
      type: terminatorCost,
      description: "Cost of routing through the router (0..65535)",
      create: "optional",
      replace: "optional",
      patch: "optional",
      nullable: true,
      default: 0,
      filterable: true,
      sortable: true
    },
    noTraversal: optionalField({ kind: "boolean" }, "Circuits may end here but not pass through", { nullable: true, default: false, filterable: true, sortable: true }),
    disabled: optionalField({ kind: "boolean" }, "A disabled router accepts no connections", { nullable: true, default: false, filterable: true, sortable: true }),
    configs: {
      type: { kind: "refList", resource: "config" },
      description: "Ids of configs for the router (such as router.link.v1)",
      create: "optional",
      replace: "optional",
      patch: "optional",
      nullable: true,
      default: [],
      filterable: true
    },
    ctrlChanListeners: {
      type: { kind: "map", values: { kind: "array", items: { kind: "string", minLength: 1, maxLength: 1024 } } },
      description: "Control channel listener addresses the router may use, each with its groups",
      create: "optional",
      replace: "optional",
      patch: "optional",
      nullable: true,
      default: {}
    },
    fingerprint: serverField({ kind: "string" }, "SHA-1 fingerprint of the router's enrolled certificate (empty until enrolled)", {
      filterable: true,
      read: { required: true }
    }),
    isVerified: serverField({ kind: "boolean" }, "The router has completed enrollment", { filterable: true, sortable: true, default: false }),
    unverifiedCertPem: serverField({ kind: "string" }, "A renewed certificate not yet confirmed by the router", { readsNull: true }),
    unverifiedFingerprint: serverField({ kind: "string" }, "Fingerprint of the unverified certificate", { readsNull: true }),
    enrollmentToken: serverField({ kind: "string" }, "Token of the outstanding enrollment (the JWT jti)", { readsNull: true }),
    enrollmentJwt: serverField({ kind: "string" }, "The enrollment JWT to hand to the router", { readsNull: true }),
    enrollmentCreatedAt: serverField(datetime, "When the outstanding enrollment was created", { readsNull: true }),
    enrollmentExpiresAt: serverField(datetime, "When the outstanding enrollment expires", { readsNull: true }),
    isOnline: computedField(
      { kind: "boolean" },
      "Connected to the controller now; always false here: this controller has no control channel a router could hold"
    )
  };
}

// src/resources/edge-router.ts
var edgeRouter = {
  name: "edge-router",
  plural: "edge-routers",
  label: "edge router",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "edge_routers",
  description: "A router that identities connect to, selected by edge router policies",
  // OpenZiti's /summary counts edge routers under this key (and every router under `routers`).
  summaryKey: "routers.edge",
  fields: {
    ...routerFields("edge router"),
    roleAttributes: roleAttributesField("router"),
    isTunnelerEnabled: {
      type: { kind: "boolean" },
      description: "The router also acts as a tunneler (it gets an identity of type Router and a system edge router policy)",
      create: "optional",
      replace: "optional",
      patch: "optional",
      default: false,
      filterable: true,
      sortable: true
    },
    appData: optionalField({ kind: "object" }, "Free-form data for applications", { nullable: true, default: {} }),
    certPem: serverField({ kind: "string" }, "The router's enrolled client certificate (PEM)", { readsNull: true }),
    hostname: computedField({ kind: "string" }, "Host name the router reported when it connected (empty: never connected)"),
    syncStatus: computedField({ kind: "string" }, "State of the router data model sync (UNKNOWN: never connected)"),
    supportedProtocols: computedField({ kind: "map", values: { kind: "string" } }, "Edge listener address per protocol, as the router reported them"),
    versionInfo: computedField(
      {
        kind: "object",
        properties: { os: { kind: "string" }, arch: { kind: "string" }, version: { kind: "string" }, revision: { kind: "string" }, buildDate: { kind: "string" } },
        required: ["os", "arch", "version", "revision", "buildDate"]
      },
      "Version the router reported when it connected (empty strings: never connected)"
    )
  },
  relations: {
    "edge-router-policies": { resource: "edge-router-policy", policyRoles: "edgeRouterRoles", description: "Edge router policies that select the router" },
    "service-edge-router-policies": {
      resource: "service-edge-router-policy",
      policyRoles: "edgeRouterRoles",
      description: "Service edge router policies that select the router"
    },
    identities: {
      resource: "identity",
      through: "edge-router-policy",
      from: "edgeRouterRoles",
      to: "identityRoles",
      description: "Identities that may connect to the router"
    },
    services: {
      resource: "service",
      through: "service-edge-router-policy",
      from: "edgeRouterRoles",
      to: "serviceRoles",
      description: "Services the router may carry"
    }
  },
  roleAttributes: { field: "roleAttributes", listPath: "edge-router-role-attributes" },
  cli: {
    noun: "router",
    aliases: ["routers", "edge-router", "er"],
    group: "Routers",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Attributes", field: "roleAttributes" },
      { header: "Verified", field: "isVerified" },
      { header: "Online", field: "isOnline" },
      { header: "Tunneler", field: "isTunnelerEnabled" },
      { header: "Disabled", field: "disabled" },
      { header: "Cost", field: "cost", priority: 1 },
      { header: "Enrollment Expires", field: "enrollmentExpiresAt", priority: 1 },
      { header: "Created", field: "createdAt", priority: 1 }
    ],
    showFirst: ["id", "name", "roleAttributes", "isVerified", "isOnline", "isTunnelerEnabled", "disabled", "cost", "noTraversal"]
  }
};

// src/resources/config.ts
var config = {
  name: "config",
  plural: "configs",
  label: "config",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "configs",
  description: "Data of one config type (e.g. how a tunneler intercepts a service), validated against its schema",
  fields: {
    name: nameField("Unique name of the config"),
    configTypeId: createOnly({ kind: "ref", resource: "config-type", as: "configType" }, "The config type whose schema the data satisfies"),
    data: {
      type: { kind: "object" },
      description: "The config's data, validated against its config type's schema",
      create: "required",
      replace: "required",
      patch: "optional"
    }
  },
  relations: {
    services: { resource: "service", listField: "configs", reverse: true, description: "Services that use the config" }
  },
  cli: {
    noun: "config",
    aliases: ["configs"],
    group: "Services and configs",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Type", field: "configType.name" },
      { header: "Created", field: "createdAt", priority: 1 }
    ]
  }
};

// src/resources/enrollment.ts
var enrollment = {
  name: "enrollment",
  plural: "enrollments",
  label: "enrollment",
  api: "management",
  operations: ["list", "get", "create", "delete"],
  table: "enrollments",
  description: "A one-time enrollment of an identity (ott, ottca or updb); redeemed once at /enroll, refreshed with a new token",
  fields: {
    identityId: createOnly({ kind: "ref", resource: "identity", as: "identity", onDelete: "cascade" }, "The identity that enrolls"),
    method: createOnly({ kind: "enum", values: ["ott", "ottca", "updb"] }, "Enrollment method"),
    expiresAt: createOnly(datetime, "When the token stops being accepted"),
    username: {
      type: { kind: "string", minLength: 4, maxLength: 100 },
      description: "Username the updb enrollment creates",
      create: "optional",
      replace: "no",
      patch: "no",
      nullable: true
    },
    caId: {
      // The id of a CA, kept as a plain column: the enrollments table predates CAs, and a foreign key added later
      // would mean rebuilding it. The handler checks the CA exists; deleting a CA deletes its enrollments.
      type: { kind: "string", minLength: 1, maxLength: 1024 },
      description: "The certificate authority of an ottca enrollment: the enrolling client presents a certificate it issued",
      create: "optional",
      replace: "no",
      patch: "no",
      nullable: true,
      filterable: true
    },
    token: serverField({ kind: "string" }, "The one-time token (the JWT `jti`)", { filterable: true, unique: true, read: { required: true } }),
    jwt: serverField({ kind: "string" }, "The signed enrollment JWT to hand to the enrolling client", { read: { required: true } }),
    details: computedField({ kind: "object" }, "Method-specific details (none yet)")
  },
  // One outstanding enrollment per method and identity (a second is 409 ENROLLMENT_EXISTS).
  indexes: [{ columns: ["identityId", "method"], unique: true }],
  example: { method: "ott", expiresAt: "2099-01-01T00:00:00.000Z" },
  cli: {
    noun: "enrollment",
    aliases: ["enrollments"],
    group: "Identities and authentication",
    columns: [
      { header: "ID", field: "id" },
      { header: "Identity", field: "identity.name" },
      { header: "Method", field: "method" },
      { header: "Expires", field: "expiresAt" },
      { header: "Username", field: "username", priority: 1 }
    ]
  }
};

// src/resources/external-jwt-signer.ts
var CLIENT_VIEW_FIELDS = ["name", "externalAuthUrl", "clientId", "scopes", "audience", "targetToken"];
var TARGET_TOKENS = ["ACCESS", "ID"];
var text = (maxLength = 1024) => ({ kind: "string", minLength: 1, maxLength });
var url = { kind: "string", minLength: 1, maxLength: 2048, format: "uri" };
var optionalText = (type, description, extra = {}) => optionalField(type, description, { nullable: true, default: null, ...extra });
var externalJwtSigner = {
  name: "external-jwt-signer",
  plural: "external-jwt-signers",
  label: "external JWT signer",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "external_jwt_signers",
  description: "A trusted issuer of JWTs that identities may authenticate with (authentication not implemented yet)",
  fields: {
    name: nameField("Unique name of the signer"),
    enabled: {
      type: { kind: "boolean" },
      description: "Tokens of a disabled signer are refused, and it is not offered to clients",
      create: "required",
      replace: "required",
      patch: "optional",
      filterable: true,
      sortable: true
    },
    issuer: {
      type: text(),
      description: "The `iss` claim of its tokens; unique among signers",
      create: "required",
      replace: "required",
      patch: "optional",
      unique: true,
      filterable: true,
      sortable: true
    },
    audience: {
      type: text(),
      description: "The `aud` claim its tokens must carry",
      create: "required",
      replace: "required",
      patch: "optional",
      nullable: true,
      filterable: true,
      sortable: true
    },
    certPem: optionalText({ kind: "string", minLength: 1, maxLength: 65536, format: "pem" }, "The signing certificate (PEM); exclusive with jwksEndpoint, needs kid", { readsNull: true }),
    kid: optionalText(text(), "Key id of certPem: the `kid` header of its tokens", { filterable: true }),
    jwksEndpoint: optionalText(url, "HTTPS URL of the key set (JWKS); exclusive with certPem", { readsNull: true, filterable: true }),
    claimsProperty: optionalField(text(), "The claim matched to an identity (default sub)", { nullable: true, default: "sub" }),
    useExternalId: optionalField({ kind: "boolean" }, "Match the claim to identities' externalId instead of their id", { nullable: true, default: false }),
    externalAuthUrl: optionalText(url, "Where clients obtain tokens (the provider's URL)", { filterable: true }),
    clientId: optionalText(text(), "OAuth client id clients use with the provider"),
    scopes: optionalField({ kind: "array", items: text(), maxItems: 64 }, "OAuth scopes clients request", { nullable: true, default: [] }),
    targetToken: optionalField({ kind: "enum", values: TARGET_TOKENS }, "Which token clients present: ACCESS or ID", { default: "ACCESS", filterable: true }),
    fingerprint: serverField({ kind: "string" }, "SHA-1 fingerprint of certPem (hex)", { filterable: true }),
    commonName: serverField({ kind: "string" }, "Common name of certPem's subject", { filterable: true }),
    notBefore: serverField(datetime, "Start of certPem's validity"),
    notAfter: serverField(datetime, "End of certPem's validity", { filterable: true })
  },
  // Any certificate will do for the generic tests' bodies: the CA example's (its key is nowhere).
  example: { certPem: EXAMPLE_CA_PEM, kid: "example-kid", jwksEndpoint: null, issuer: "https://issuer.example/$unique", audience: "ctl" },
  cli: {
    noun: "signer",
    aliases: ["signers", "ext-jwt-signer"],
    group: "Identities and authentication",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Enabled", field: "enabled" },
      { header: "Issuer", field: "issuer" },
      { header: "Audience", field: "audience" },
      { header: "Kid", field: "kid", priority: 1 },
      { header: "JWKS", field: "jwksEndpoint", priority: 1 },
      { header: "Not after", field: "notAfter", priority: 1 }
    ],
    showFirst: ["id", "name", "enabled", "issuer", "audience", "kid", "jwksEndpoint", "fingerprint", "commonName", "notBefore", "notAfter"]
  }
};

// src/resources/identity-service-config.ts
function fixedRef(type, description) {
  return { type, description, create: "required", replace: "no", patch: "no", filterable: true, sortable: true };
}
var identityServiceConfig = {
  name: "identity-service-config",
  plural: "identity-service-configs",
  label: "service config of an identity",
  api: "client",
  operations: [],
  table: "identity_service_configs",
  description: "An identity's config for a service, in place of the service's config of the same type",
  fields: {
    identityId: fixedRef({ kind: "ref", resource: "identity", as: "identity", onDelete: "cascade" }, "The identity the override is for"),
    serviceId: fixedRef({ kind: "ref", resource: "service", as: "service", onDelete: "cascade" }, "The service whose config is overridden"),
    configId: fixedRef({ kind: "ref", resource: "config", as: "config" }, "The config used instead"),
    configTypeId: fixedRef({ kind: "ref", resource: "config-type", onDelete: "cascade" }, "The config's type (one override per service and type)")
  },
  indexes: [{ columns: ["identityId", "serviceId", "configTypeId"], unique: true }]
};

// src/resources/identity-type.ts
var identityType = {
  name: "identity-type",
  plural: "identity-types",
  label: "identity type",
  api: "management",
  operations: ["list", "get"],
  table: "identity_types",
  description: "Built-in identity types (Default, Router)",
  hasSystemEntities: true,
  builtIns: [
    { id: "Default", name: "Default" },
    { id: "Router", name: "Router" }
  ],
  fields: {
    name: { ...nameField("Name of the type"), create: "no", replace: "no", patch: "no", readOnly: true }
  },
  cli: {
    noun: "identity-type",
    aliases: ["identity-types"],
    group: "Identities and authentication",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" }
    ]
  }
};

// src/resources/identity.ts
var outstandingEnrollment = {
  kind: "object",
  properties: { id: { kind: "string" }, jwt: { kind: "string" }, token: { kind: "string" }, expiresAt: datetime },
  required: ["id", "jwt", "token", "expiresAt"]
};
var identity = {
  name: "identity",
  plural: "identities",
  label: "identity",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "identities",
  description: "A user, device or service that authenticates to the network",
  fields: {
    name: nameField("Unique name of the identity"),
    type: {
      type: { kind: "enum", values: IDENTITY_TYPES },
      description: "Identity type; stored as the built-in type Default (Router identities belong to routers)",
      // Written as a type name, read as a reference to the identity type (with its id in `typeId`).
      read: { type: { kind: "entityRef", resource: "identity-type" } },
      create: "required",
      replace: "required",
      patch: "optional",
      filterable: true,
      sortable: true
    },
    isAdmin: {
      type: { kind: "boolean" },
      description: "Grants full access to the management API",
      create: "required",
      replace: "required",
      patch: "optional",
      filterable: true,
      sortable: true
    },
    roleAttributes: roleAttributesField("identity"),
    externalId: {
      // No minimum length, as in OpenZiti's write models: clients (ZAC) send "" for "none", stored as null.
      type: { kind: "string", maxLength: 1024 },
      description: "Identifier of the identity in an external identity provider; unique; an empty string means none (null)",
      create: "optional",
      replace: "optional",
      patch: "optional",
      nullable: true,
      readsNull: true,
      default: null,
      unique: true,
      filterable: true,
      sortable: true
    },
    authPolicyId: {
      type: { kind: "ref", resource: "auth-policy", as: "authPolicy" },
      description: "Auth policy that decides how the identity may authenticate",
      create: "optional",
      replace: "optional",
      patch: "optional",
      nullable: true,
      default: "default",
      filterable: true,
      sortable: true
    },
    appData: optionalField({ kind: "object" }, "Free-form data for applications", { nullable: true, default: {} }),
    defaultHostingCost: optionalField(terminatorCost, "Cost of terminators this identity hosts, unless set per service", { default: 0 }),
    defaultHostingPrecedence: {
      type: { kind: "enum", values: TERMINATOR_PRECEDENCES },
      description: "Precedence of terminators this identity hosts, unless set per service",
      create: "optional",
      replace: "optional",
      patch: "optional",
      default: "default"
    },
    serviceHostingCosts: optionalField({ kind: "map", values: terminatorCost }, "Hosting cost per service id", { nullable: true, default: {} }),
    serviceHostingPrecedences: {
      type: { kind: "map", values: { kind: "enum", values: TERMINATOR_PRECEDENCES } },
      description: "Hosting precedence per service id",
      create: "optional",
      replace: "optional",
      patch: "optional",
      nullable: true,
      default: {}
    },
    enrollment: {
      type: { kind: "object" },
      description: 'Enrollment to create with the identity: {"ott": true} or {"updb": "<username>"}',
      create: "optional",
      replace: "no",
      patch: "no",
      virtual: true,
      // Read back as the identity's outstanding enrollments, by method.
      read: {
        type: {
          kind: "object",
          properties: {
            ott: outstandingEnrollment,
            updb: outstandingEnrollment,
            // A one-time token whose certificate a third-party CA signs: that CA beside it.
            ottca: { kind: "object", properties: { ...outstandingEnrollment.properties, caId: { kind: "string" }, ca: { kind: "entityRef", resource: "ca" } }, required: ["id", "jwt", "token", "expiresAt", "caId", "ca"] }
          }
        }
      }
    },
    isDefaultAdmin: serverField({ kind: "boolean" }, "The administrator created with the controller", { filterable: true, default: false }),
    disabledAt: serverField(datetime, "When the identity was disabled", { readsNull: true }),
    disabledUntil: serverField(datetime, "When a timed disable ends; null while disabled indefinitely", { readsNull: true }),
    envInfo: serverField({ kind: "object" }, "Environment the identity last authenticated from (os, arch, hostname, ...)"),
    sdkInfo: serverField({ kind: "object" }, "SDK the identity last authenticated with (type, version, ...)"),
    typeId: computedField({ kind: "string" }, "Id of the identity type (Default)"),
    disabled: computedField({ kind: "boolean" }, "Disabled now (disabledAt set and disabledUntil not yet passed)"),
    authenticators: computedField(
      {
        kind: "object",
        properties: {
          updb: { kind: "object", properties: { id: { kind: "string" }, username: { kind: "string" } }, required: ["id", "username"] },
          cert: { kind: "object", properties: { id: { kind: "string" }, fingerprint: { kind: "string" } }, required: ["id"] }
        }
      },
      "The identity's authenticators, by method"
    ),
    hasApiSession: computedField({ kind: "boolean" }, "The identity has at least one API session"),
    isMfaEnabled: computedField({ kind: "boolean" }, "A second factor is enrolled (always false: MFA is not supported yet)"),
    hasEdgeRouterConnection: computedField({ kind: "boolean" }, "Connected to an edge router (always false: this controller has no data plane for a connection to exist)"),
    edgeRouterConnectionStatus: computedField({ kind: "enum", values: ["online", "offline", "unknown"] }, "Edge router connection status"),
    permissions: computedField({ kind: "array", items: { kind: "string" } }, "Fine-grained permissions (none yet: isAdmin decides)")
  },
  relations: {
    authenticators: { resource: "authenticator", foreignKey: "identityId", description: "The identity's authenticators" },
    enrollments: { resource: "enrollment", foreignKey: "identityId", description: "The identity's outstanding enrollments" },
    "service-policies": { resource: "service-policy", policyRoles: "identityRoles", description: "Service policies that select the identity" },
    "edge-router-policies": { resource: "edge-router-policy", policyRoles: "identityRoles", description: "Edge router policies that select the identity" },
    services: {
      resource: "service",
      through: "service-policy",
      from: "identityRoles",
      to: "serviceRoles",
      typeQuery: { name: "policyType", field: "type" },
      description: "Services the identity may dial or bind (policyType=dial|bind for one of them)"
    },
    "edge-routers": {
      resource: "edge-router",
      aliases: ["routers"],
      through: "edge-router-policy",
      from: "identityRoles",
      to: "edgeRouterRoles",
      description: "Edge routers the identity may connect to"
    },
    "service-configs": { resource: "identity-service-config", foreignKey: "identityId", description: "The identity's own configs for services" }
  },
  links: ["posture-data", "failed-service-requests"],
  roleAttributes: { field: "roleAttributes", listPath: "identity-role-attributes" },
  cli: {
    noun: "identity",
    aliases: ["identities", "id"],
    group: "Identities and authentication",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Type", field: "typeId" },
      { header: "Attributes", field: "roleAttributes" },
      { header: "Admin", field: "isAdmin" },
      { header: "Disabled", field: "disabled" },
      { header: "Auth Policy", field: "authPolicy.name", priority: 1 },
      { header: "External ID", field: "externalId", priority: 1 },
      { header: "Created", field: "createdAt", priority: 1 }
    ],
    showFirst: ["id", "name", "typeId", "isAdmin", "roleAttributes", "disabled", "authPolicy"]
  }
};

// src/resources/posture-check.ts
var POSTURE_CHECK_TYPES = ["OS", "PROCESS", "PROCESS_MULTI", "DOMAIN", "MAC", "MFA"];
var OS_TYPES = ["Windows", "WindowsServer", "Android", "iOS", "Linux", "macOS"];
var LIST_MAX = 256;
var strings = (minItems) => ({ kind: "array", items: { kind: "string", minLength: 1 }, maxItems: LIST_MAX, ...minItems ? { minItems } : {} });
var operatingSystem = {
  kind: "object",
  properties: { type: { kind: "enum", values: OS_TYPES }, versions: strings() },
  required: ["type", "versions"],
  checked: true
};
var processMatch = {
  kind: "object",
  properties: {
    osType: { kind: "enum", values: OS_TYPES },
    path: { kind: "string", minLength: 1 },
    hashes: strings(),
    signerFingerprint: { kind: "string" }
  },
  required: ["osType", "path"],
  checked: true
};
var processMultiMatch = {
  kind: "object",
  properties: {
    osType: { kind: "enum", values: OS_TYPES },
    path: { kind: "string", minLength: 1 },
    hashes: strings(),
    signerFingerprints: strings()
  },
  required: ["osType", "path"],
  checked: true
};
function kindField(kinds, type, description, presence2, extra = {}) {
  return { type, description, create: presence2, replace: presence2, patch: "optional", when: { field: "typeId", in: kinds }, ...extra };
}
var postureCheck = {
  name: "posture-check",
  plural: "posture-checks",
  label: "posture check",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "posture_checks",
  description: "A condition on a client's device (OS, process, domain, MAC address, MFA) that service policies require",
  fields: {
    name: nameField("Unique name of the posture check"),
    typeId: {
      type: { kind: "enum", values: POSTURE_CHECK_TYPES },
      // OpenZiti's patch requires it (it picks the body's shape); our patch may leave it out. Either way it never
      // changes: a body naming another kind is refused.
      description: "Kind of check; fixed at creation (a replace or patch may repeat it, never change it)",
      create: "required",
      replace: "optional",
      patch: "optional",
      filterable: true,
      sortable: true
    },
    version: {
      type: { kind: "integer" },
      description: "Version of the check (always 1, as in OpenZiti)",
      create: "no",
      replace: "no",
      patch: "no",
      readOnly: true,
      default: 1
    },
    roleAttributes: roleAttributesField("check"),
    operatingSystems: kindField(["OS"], { kind: "array", items: operatingSystem, minItems: 1, maxItems: OS_TYPES.length }, "OS: the operating systems that pass, each with the versions that pass (none: any version)", "required"),
    process: kindField(["PROCESS"], processMatch, "PROCESS: the process that must run", "required"),
    semantic: kindField(["PROCESS_MULTI"], { kind: "enum", values: SEMANTICS }, "PROCESS_MULTI: AllOf (every process must run) or AnyOf (one is enough)", "required"),
    processes: kindField(["PROCESS_MULTI"], { kind: "array", items: processMultiMatch, minItems: 1, maxItems: LIST_MAX }, "PROCESS_MULTI: the processes", "required"),
    domains: kindField(["DOMAIN"], strings(1), "DOMAIN: the Windows domains that pass", "required"),
    macAddresses: kindField(["MAC"], strings(1), "MAC: the MAC addresses that pass (any one present on the device)", "required"),
    // MFA options have no declared default: the behaviour fills -1/false into MFA checks only, so that the other
    // kinds hold null there, and `promptOnWake = false` finds MFA checks only, as in OpenZiti.
    timeoutSeconds: kindField(["MFA"], { kind: "integer" }, "MFA: seconds an MFA code stays good (-1, or 0 or less: no timeout; default -1)", "optional", { nullable: true }),
    promptOnWake: kindField(["MFA"], { kind: "boolean" }, "MFA: ask for a code again when the device wakes (default false)", "optional", { nullable: true, filterable: true }),
    promptOnUnlock: kindField(["MFA"], { kind: "boolean" }, "MFA: ask for a code again when the device is unlocked (default false)", "optional", { nullable: true, filterable: true }),
    ignoreLegacyEndpoints: kindField(["MFA"], { kind: "boolean" }, "MFA: let clients that cannot prompt pass on MFA at login alone (default false)", "optional", { nullable: true })
  },
  roleAttributes: { field: "roleAttributes", listPath: "posture-check-role-attributes" },
  example: { typeId: "MFA" },
  cli: {
    noun: "posture-check",
    aliases: ["posture-checks", "pc"],
    group: "Policies and posture",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Type", field: "typeId" },
      { header: "Attributes", field: "roleAttributes" },
      { header: "Created", field: "createdAt", priority: 1 }
    ]
  }
};

// src/resources/posture-check-type.ts
var android = { type: "Android", versions: ["9", "10", "11"] };
var linux = { type: "Linux", versions: ["4.14", "4.19", "5.4", "5.9"] };
var windows = { type: "Windows", versions: ["Vista", "7", "8", "10", "2000"] };
var iOS = { type: "iOS", versions: ["11", "12"] };
var macOS = { type: "macOS", versions: ["10.15", "11.0"] };
var anyVersion = (os3) => ({ type: os3.type, versions: [] });
var postureCheckType = {
  name: "posture-check-type",
  plural: "posture-check-types",
  label: "posture check type",
  api: "management",
  operations: ["list", "get"],
  table: "posture_check_types",
  description: "Built-in kinds of posture check (OS, PROCESS, PROCESS_MULTI, DOMAIN, MAC) and the operating systems each applies to",
  hasSystemEntities: true,
  builtIns: [
    { id: "OS", name: "Operating System Check", operatingSystems: [android, linux, windows, iOS, macOS] },
    { id: "PROCESS", name: "Process Check", operatingSystems: [linux, windows, macOS] },
    { id: "DOMAIN", name: "Windows Domain Check", operatingSystems: [windows] },
    { id: "MAC", name: "MAC Address Check", operatingSystems: [android, linux, windows, macOS] },
    { id: "PROCESS_MULTI", name: "Process Multi Check", operatingSystems: [linux, windows, macOS].map(anyVersion) }
  ],
  fields: {
    name: serverField({ kind: "string" }, "Name of the kind of check", { filterable: true, sortable: true, read: { required: true } }),
    operatingSystems: serverField({ kind: "array", items: operatingSystem }, "Operating systems this kind of check applies to", { read: { required: true } }),
    version: serverField({ kind: "string" }, "Version of the type", { default: "1" })
  },
  cli: {
    noun: "posture-check-type",
    aliases: ["posture-check-types"],
    group: "Policies and posture",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" }
    ]
  }
};

// src/resources/router.ts
var router = {
  name: "transit-router",
  plural: "transit-routers",
  label: "router",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "routers",
  description: "A router of the fabric: transit routers, and every edge router as a router",
  // OpenZiti's /summary counts every router (edge ones included) under `routers`.
  summaryKey: "routers",
  fields: {
    ...routerFields("router"),
    isEdgeRouter: {
      type: { kind: "boolean" },
      description: "The row is the router side of an edge router (kept in step with it; not changed here)",
      create: "no",
      replace: "no",
      patch: "no",
      internal: true,
      default: false
    }
  },
  cli: {
    noun: "transit-router",
    aliases: ["transit-routers", "tr"],
    group: "Routers",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Verified", field: "isVerified" },
      { header: "Online", field: "isOnline" },
      { header: "Disabled", field: "disabled" },
      { header: "Cost", field: "cost", priority: 1 },
      { header: "Enrollment Expires", field: "enrollmentExpiresAt", priority: 1 },
      { header: "Created", field: "createdAt", priority: 1 }
    ]
  }
};

// src/resources/service-edge-router-policy.ts
var serviceEdgeRouterPolicy = {
  name: "service-edge-router-policy",
  plural: "service-edge-router-policies",
  label: "service edge router policy",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "service_edge_router_policies",
  description: "Lets the services it selects be reached through the edge routers it selects",
  fields: {
    name: nameField("Unique name of the policy"),
    semantic: semanticField,
    serviceRoles: rolesField("service", "Services the policy applies to: #attribute, @id or #all"),
    serviceRolesDisplay: namedRolesField("serviceRoles"),
    edgeRouterRoles: rolesField("edge-router", "Edge routers that may carry them: #attribute, @id or #all"),
    edgeRouterRolesDisplay: namedRolesField("edgeRouterRoles")
  },
  relations: {
    services: { resource: "service", roles: "serviceRoles", description: "Services the policy selects" },
    "edge-routers": { resource: "edge-router", roles: "edgeRouterRoles", description: "Edge routers the policy selects" }
  },
  cli: {
    noun: "service-edge-router-policy",
    aliases: ["service-edge-router-policies", "serp"],
    group: "Policies and posture",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Semantic", field: "semantic" },
      { header: "Services", field: "serviceRoles" },
      { header: "Routers", field: "edgeRouterRoles" }
    ]
  }
};

// src/resources/service-policy.ts
var servicePolicy = {
  name: "service-policy",
  plural: "service-policies",
  label: "service policy",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "service_policies",
  description: "Lets the identities it selects dial or bind the services it selects, if their posture checks pass",
  fields: {
    name: nameField("Unique name of the policy"),
    type: {
      type: { kind: "enum", values: ["Dial", "Bind"] },
      description: "Dial (use the services) or Bind (host them)",
      create: "required",
      replace: "required",
      patch: "optional",
      filterable: true,
      sortable: true
    },
    semantic: semanticField,
    identityRoles: rolesField("identity", "Identities the policy applies to: #attribute, @id or #all"),
    identityRolesDisplay: namedRolesField("identityRoles"),
    serviceRoles: rolesField("service", "Services the policy grants: #attribute, @id or #all"),
    serviceRolesDisplay: namedRolesField("serviceRoles"),
    postureCheckRoles: rolesField("posture-check", "Posture checks an identity must pass: #attribute, @id or #all"),
    postureCheckRolesDisplay: namedRolesField("postureCheckRoles")
  },
  relations: {
    identities: { resource: "identity", roles: "identityRoles", description: "Identities the policy selects" },
    services: { resource: "service", roles: "serviceRoles", description: "Services the policy selects" },
    "posture-checks": { resource: "posture-check", roles: "postureCheckRoles", description: "Posture checks the policy requires" }
  },
  cli: {
    noun: "service-policy",
    aliases: ["service-policies", "sp"],
    group: "Policies and posture",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Type", field: "type" },
      { header: "Semantic", field: "semantic" },
      { header: "Identities", field: "identityRoles" },
      { header: "Services", field: "serviceRoles" },
      { header: "Posture Checks", field: "postureCheckRoles", priority: 1 }
    ]
  }
};

// src/resources/service.ts
var service = {
  name: "service",
  plural: "services",
  label: "service",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "services",
  description: "An application or network resource that identities dial (use) and bind (host)",
  fields: {
    name: nameField("Unique name of the service"),
    roleAttributes: roleAttributesField("service"),
    configs: {
      // Deleting a config takes it out of every service that uses it, as OpenZiti does.
      type: { kind: "refList", resource: "config", onDelete: "clear" },
      description: "Ids of the configs of the service: at most one per config type, each of a type that targets services",
      create: "optional",
      replace: "optional",
      patch: "optional",
      nullable: true,
      default: [],
      filterable: true
    },
    encryptionRequired: {
      type: { kind: "boolean" },
      // OpenZiti's update and patch models carry it ("read-only property, set at create") and its manager drops it:
      // accepted in a body, ignored after create (the service behaviour removes it from updates).
      description: "Connections must be end-to-end encrypted; set at creation only",
      create: "required",
      replace: "optional",
      patch: "optional",
      filterable: true,
      sortable: true
    },
    terminatorStrategy: {
      type: { kind: "string", minLength: 1, maxLength: 256 },
      description: "How a router picks among the terminators of the service",
      create: "optional",
      replace: "optional",
      patch: "optional",
      default: "smartrouting",
      filterable: true,
      sortable: true
    },
    maxIdleTimeMillis: {
      type: { kind: "integer", minimum: 0 },
      description: "Idle time after which a circuit is closed; 0 for never",
      create: "optional",
      replace: "optional",
      patch: "optional",
      default: 0,
      filterable: true,
      sortable: true
    },
    config: computedField(
      { kind: "map", values: { kind: "object" } },
      "Config data by config type name, for the config types the request asks for (configTypes; `all` for every one)"
    ),
    permissions: computedField(
      { kind: "array", items: { kind: "enum", values: ["Dial", "Bind", "Invalid"] } },
      "What the identity the service is read for may do with it: Dial, Bind, or Invalid for neither"
    ),
    postureQueries: computedField(
      {
        kind: "array",
        items: {
          kind: "object",
          properties: {
            policyId: { kind: "string" },
            policyType: { kind: "enum", values: ["Dial", "Bind", "Invalid"] },
            isPassing: { kind: "boolean" },
            postureQueries: { kind: "array", items: { kind: "object" } }
          },
          required: ["policyId", "isPassing", "postureQueries"]
        }
      },
      "Posture queries per policy that grants a permission"
    )
  },
  relations: {
    configs: { resource: "config", listField: "configs", description: "Configs of the service" },
    terminators: { resource: "terminator", foreignKey: "service", description: "Where the service is hosted: its terminators" },
    "service-policies": { resource: "service-policy", policyRoles: "serviceRoles", description: "Service policies that select the service" },
    "service-edge-router-policies": {
      resource: "service-edge-router-policy",
      policyRoles: "serviceRoles",
      description: "Service edge router policies that select the service"
    },
    identities: {
      resource: "identity",
      through: "service-policy",
      from: "serviceRoles",
      to: "identityRoles",
      typeQuery: { name: "policyType", field: "type" },
      description: "Identities that may dial or bind the service (policyType=dial|bind for one of them)"
    },
    "edge-routers": {
      resource: "edge-router",
      aliases: ["routers"],
      through: "service-edge-router-policy",
      from: "serviceRoles",
      to: "edgeRouterRoles",
      description: "Edge routers that may carry the service"
    }
  },
  roleAttributes: { field: "roleAttributes", listPath: "service-role-attributes" },
  cli: {
    noun: "service",
    aliases: ["services", "svc"],
    group: "Services and configs",
    columns: [
      { header: "ID", field: "id" },
      { header: "Name", field: "name" },
      { header: "Attributes", field: "roleAttributes" },
      { header: "Encryption", field: "encryptionRequired" },
      { header: "Strategy", field: "terminatorStrategy", priority: 1 },
      { header: "Created", field: "createdAt", priority: 1 }
    ]
  }
};

// src/resources/session.ts
var sessionEdgeRouter = {
  kind: "object",
  properties: {
    name: { kind: "string" },
    hostname: { kind: "string" },
    isOnline: { kind: "boolean" },
    cost: { kind: "integer" },
    noTraversal: { kind: "boolean" },
    disabled: { kind: "boolean" },
    syncStatus: { kind: "string" },
    supportedProtocols: { kind: "map", values: { kind: "string" } },
    urls: { kind: "map", values: { kind: "string" } }
  },
  required: ["name", "hostname", "isOnline", "cost", "noTraversal", "disabled", "syncStatus", "supportedProtocols", "urls"]
};
var session = {
  name: "session",
  plural: "sessions",
  label: "session",
  api: "management",
  operations: ["list", "get", "delete"],
  table: "sessions",
  description: "A service session: an API session's permission to dial or bind a service",
  fields: {
    apiSessionId: serverField({ kind: "ref", resource: "api-session", onDelete: "cascade" }, "The API session it belongs to (ends with it)", {
      filterable: true,
      sortable: true,
      read: { required: true }
    }),
    identityId: serverField({ kind: "ref", resource: "identity", onDelete: "cascade" }, "The identity of the API session", {
      filterable: true,
      sortable: true,
      read: { required: true }
    }),
    serviceId: serverField({ kind: "ref", resource: "service", as: "service", onDelete: "cascade" }, "The service dialed or bound (the session goes with it)", {
      filterable: true,
      sortable: true,
      read: { required: true }
    }),
    type: serverField({ kind: "enum", values: ["Dial", "Bind"] }, "Dial (connect to the service) or Bind (host it)", {
      filterable: true,
      sortable: true,
      read: { required: true }
    }),
    servicePolicies: serverField({ kind: "refList", resource: "service-policy", onDelete: "clear" }, "The service policies that granted the session when it was created", {
      default: [],
      read: { type: { kind: "array", items: { kind: "entityRef", resource: "service-policy" } }, required: true }
    }),
    // API sessions have no name: the reference is served with an empty one, as OpenZiti does.
    apiSession: computedField({ kind: "entityRef", resource: "api-session" }, "The API session it belongs to"),
    token: computedField({ kind: "string" }, "The session token: empty here, only its hash is stored (its creator saw it once)"),
    edgeRouters: computedField({ kind: "array", items: sessionEdgeRouter }, "Edge routers the identity may use for the service, by policy"),
    tokenHash: { ...serverField({ kind: "string" }, "SHA-256 of the session token (the token itself is never stored)"), internal: true, unique: true }
  },
  cli: {
    noun: "session",
    aliases: ["sessions"],
    group: "Identities and authentication",
    columns: [
      { header: "ID", field: "id" },
      { header: "Type", field: "type" },
      { header: "Service", field: "service.name" },
      { header: "Identity", field: "identityId" },
      { header: "API Session", field: "apiSessionId", priority: 1 },
      { header: "Created", field: "createdAt", priority: 1 }
    ]
  }
};

// src/resources/controller.ts
var apiAddresses = {
  kind: "map",
  values: { kind: "array", items: { kind: "object", properties: { url: { kind: "string" }, version: { kind: "string" } }, required: ["url", "version"] } }
};
var controller = {
  name: "controller",
  plural: "controllers",
  label: "controller",
  api: "management",
  operations: ["list", "get"],
  table: "controllers",
  description: "A controller of the network (this one: the reference controller runs alone)",
  fields: {
    name: serverField({ kind: "string" }, "Common name of the controller server certificate", { filterable: true, sortable: true, read: { required: true } }),
    ctrlAddress: serverField({ kind: "string" }, "Control channel address for routers; null: this controller has no control channel", {
      readsNull: true
    }),
    apiAddresses: serverField(apiAddresses, "Where each API is served, by API binding", { default: {} }),
    certPem: serverField({ kind: "string" }, "The server certificate (PEM)", { read: { required: true } }),
    fingerprint: serverField({ kind: "string" }, "SHA-1 fingerprint of the server certificate (lowercase hex), as OpenZiti gives it", {
      filterable: true,
      read: { required: true }
    }),
    lastJoinedAt: serverField(datetime, "When the controller last started", { filterable: true, sortable: true, read: { required: true } }),
    isOnline: computedField({ kind: "boolean" }, "This controller, which answers the request, is online; any other row is not")
  }
};

// src/resources/terminator.ts
var terminator = {
  name: "terminator",
  plural: "terminators",
  label: "terminator",
  api: "management",
  operations: ["list", "get", "create", "replace", "patch", "delete"],
  table: "terminators",
  description: "Where circuits of a service leave the network: a router and an address its binding understands",
  fields: {
    service: {
      type: { kind: "ref", resource: "service", onDelete: "cascade", filterByName: true },
      description: "Id of the service the terminator serves",
      read: { type: { kind: "entityRef", resource: "service" } },
      create: "required",
      replace: "required",
      patch: "optional",
      filterable: true,
      sortable: true
    },
    router: {
      type: { kind: "ref", resource: "transit-router", onDelete: "cascade", filterByName: true },
      description: "Id of the router (edge or transit) the terminator is on",
      read: { type: { kind: "entityRef", resource: "transit-router" } },
      create: "required",
      replace: "required",
      patch: "optional",
      filterable: true,
      sortable: true
    },
    binding: {
      type: { kind: "string", minLength: 1, maxLength: 1024 },
      description: "The router binding that handles the address (edge, transport, tunnel, ...)",
      create: "required",
      replace: "required",
      patch: "optional",
      filterable: true,
      sortable: true
    },
    address: {
      type: { kind: "string", minLength: 1, maxLength: 4096 },
      description: "Where the binding sends circuits (e.g. tcp:host:port, or an edge hosting token)",
      create: "required",
      replace: "required",
      patch: "optional",
      filterable: true,
      sortable: true
    },
    cost: optionalField(terminatorCost, "Static cost the terminator strategy adds (0..65535)", { default: 0, filterable: true, sortable: true }),
    precedence: {
      type: { kind: "enum", values: TERMINATOR_PRECEDENCES },
      description: "default, required (preferred over default) or failed (used only when nothing else is left)",
      create: "optional",
      replace: "optional",
      patch: "optional",
      default: "default",
      filterable: true,
      sortable: true
    },
    identity: {
      type: { kind: "string", maxLength: 1024 },
      description: "Instance id for addressable terminators (dial a specific host); set at creation only",
      create: "optional",
      replace: "no",
      patch: "no",
      default: "",
      filterable: true,
      sortable: true
    },
    identitySecret: {
      type: { kind: "string", maxLength: 4096 },
      description: "Base64 secret that proves a later terminator with the same identity belongs to the same host; never served",
      create: "optional",
      replace: "no",
      patch: "no",
      secret: true
    },
    serviceId: computedField({ kind: "string" }, "Id of the service"),
    routerId: computedField({ kind: "string" }, "Id of the router"),
    dynamicCost: computedField(terminatorCost, "Cost as the strategy sees it now: the static cost (no circuits run through this controller)")
  },
  cli: {
    noun: "terminator",
    aliases: ["terminators", "term"],
    group: "Routers",
    columns: [
      { header: "ID", field: "id" },
      { header: "Service", field: "service.name" },
      { header: "Router", field: "router.name" },
      { header: "Binding", field: "binding" },
      { header: "Address", field: "address" },
      { header: "Identity", field: "identity", priority: 1 },
      { header: "Cost", field: "cost", priority: 1 },
      { header: "Precedence", field: "precedence", priority: 1 }
    ]
  }
};

// src/resources/index.ts
var CATALOGUE = [
  identity,
  authenticator,
  enrollment,
  authPolicy,
  identityType,
  apiSession,
  configType,
  config,
  service,
  edgeRouter,
  postureCheckType,
  postureCheck,
  servicePolicy,
  edgeRouterPolicy,
  serviceEdgeRouterPolicy,
  session,
  controller,
  identityServiceConfig,
  router,
  terminator,
  ca,
  externalJwtSigner
];
var byName = new Map(CATALOGUE.map((r) => [r.name, r]));
function resource(name) {
  const def = byName.get(name);
  if (!def) throw new Error(`unknown resource '${name}' in the catalogue`);
  return def;
}

// src/controller/store/schema-model.ts
import { createHash as createHash3 } from "node:crypto";
var COMMON_COLUMNS = [
  { name: "id", type: "text", notNull: true },
  { name: "createdAt", type: "text", notNull: true },
  { name: "updatedAt", type: "text", notNull: true },
  { name: "tags", type: "json", notNull: true, default: "{}" },
  { name: "isSystem", type: "integer", notNull: true, default: 0 }
];
function isSetField(field) {
  const kind = field.type.kind;
  return kind === "refList" || kind === "roles" || kind === "attributes" && field.filterable === true;
}
function isStored(field) {
  return !field.virtual && !field.computed;
}
function setTableName(def, field) {
  return `${def.table}_${field}`;
}
function matchTableName(def, field) {
  return `${setTableName(def, field)}_matches`;
}
var MAX_IDENTIFIER = 63;
function identifier(name) {
  if (name.length <= MAX_IDENTIFIER) return name;
  return `${name.slice(0, MAX_IDENTIFIER - 9)}_${createHash3("sha256").update(name).digest("hex").slice(0, 8)}`;
}
function columnType(field) {
  switch (field.type.kind) {
    case "boolean":
    case "integer":
      return "integer";
    case "attributes":
    case "tags":
    case "object":
    case "map":
    case "refList":
    case "roles":
    case "array":
      return "json";
    default:
      return "text";
  }
}
function sqlDefault(value) {
  if (value === void 0 || value === null) return void 0;
  if (typeof value === "boolean") return Number(value);
  if (typeof value === "number" || typeof value === "string") return value;
  return JSON.stringify(value);
}
function foreignKeyAction(onDelete) {
  return onDelete === "cascade" ? "cascade" : onDelete === "clear" ? "set null" : "restrict";
}
function declaredSchema(catalogue, resolve2) {
  const schema = { tables: {}, indexes: {} };
  const addIndex = (index) => {
    const name = identifier(`${index.table}_${index.columns.join("_")}${index.unique ? "_key" : "_idx"}`);
    schema.indexes[name] = { name, ...index };
  };
  for (const def of catalogue) {
    const table = { name: def.table, columns: [...COMMON_COLUMNS], primaryKey: ["id"], foreignKeys: [] };
    schema.tables[def.table] = table;
    addIndex({ table: def.table, columns: ["createdAt"], unique: false });
    for (const [name, field] of Object.entries(def.fields)) {
      if (!isStored(field)) continue;
      const notNull = field.create === "required" && !field.nullable && !field.when;
      const fallback = sqlDefault(field.default);
      table.columns.push({ name, type: columnType(field), notNull, ...fallback === void 0 ? {} : { default: fallback } });
      if (field.unique) addIndex({ table: def.table, columns: [name], unique: true });
      if (field.type.kind === "ref") {
        table.foreignKeys.push({ column: name, table: resolve2(field.type.resource).table, onDelete: foreignKeyAction(field.type.onDelete) });
        if (!field.unique) addIndex({ table: def.table, columns: [name], unique: false });
      }
      if (isSetField(field)) {
        const side = setTableName(def, name);
        const valueKey = field.type.kind === "refList" ? [{ column: "value", table: resolve2(field.type.resource).table, onDelete: foreignKeyAction(field.type.onDelete) }] : [];
        schema.tables[side] = {
          name: side,
          columns: [
            { name: "ownerId", type: "text", notNull: true },
            { name: "value", type: "text", notNull: true }
          ],
          primaryKey: ["ownerId", "value"],
          foreignKeys: [{ column: "ownerId", table: def.table, onDelete: "cascade" }, ...valueKey]
        };
        addIndex({ table: side, columns: ["value", "ownerId"], unique: false });
      }
      if (field.type.kind === "roles") {
        const matches = matchTableName(def, name);
        schema.tables[matches] = {
          name: matches,
          columns: [
            { name: "policyId", type: "text", notNull: true },
            { name: "entityId", type: "text", notNull: true }
          ],
          primaryKey: ["policyId", "entityId"],
          foreignKeys: [
            { column: "policyId", table: def.table, onDelete: "cascade" },
            { column: "entityId", table: resolve2(field.type.resource).table, onDelete: "cascade" }
          ]
        };
        addIndex({ table: matches, columns: ["entityId", "policyId"], unique: false });
      }
    }
    for (const index of def.indexes ?? []) {
      addIndex({ table: def.table, columns: [...index.columns], unique: index.unique ?? false, ...index.where ? { where: { ...index.where } } : {} });
    }
  }
  return schema;
}

// src/controller/store/filter-schema.ts
function filterSchema(def, alias = "e") {
  const col = (name) => `${alias}.${quote(name)}`;
  const symbols = {
    id: { kind: "scalar", type: "string", sql: col("id"), sortable: true },
    createdAt: { kind: "scalar", type: "datetime", sql: col("createdAt"), sortable: true },
    updatedAt: { kind: "scalar", type: "datetime", sql: col("updatedAt"), sortable: true },
    isSystem: { kind: "scalar", type: "boolean", sql: col("isSystem"), sortable: true }
  };
  for (const [name, field] of Object.entries(def.fields)) {
    if (!field.filterable) continue;
    if (isSetField(field)) {
      symbols[name] = { kind: "set", type: "string", table: quote(setTableName(def, name)), ownerColumn: '"ownerId"', valueColumn: '"value"' };
      continue;
    }
    const symbol = { kind: "scalar", type: symbolType(field.type), sql: col(name), sortable: field.sortable };
    symbols[name] = symbol;
    if (field.type.kind === "ref" && field.type.as) symbols[field.type.as] = symbol;
    if (field.type.kind === "ref" && field.type.filterByName) {
      const target = quote(resource(field.type.resource).table);
      symbols[`${field.type.as ?? name}.name`] = { kind: "scalar", type: "string", sql: `(SELECT r."name" FROM ${target} r WHERE r."id" = ${col(name)})`, sortable: true };
    }
  }
  return { idSql: col("id"), symbols, tagsSql: col("tags") };
}
function symbolType(type) {
  switch (type.kind) {
    case "boolean":
      return "boolean";
    case "integer":
      return "number";
    case "string":
      return type.format === "date-time" ? "datetime" : "string";
    default:
      return "string";
  }
}
function filterableFields(schema) {
  return Object.keys(schema.symbols);
}

// src/controller/store/repository.ts
var ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
function newId(length = 10) {
  const bytes = randomBytes4(length);
  let id = "";
  for (const b of bytes) id += ID_ALPHABET[b % ID_ALPHABET.length];
  return id;
}
function pageBounds(compiled3, params) {
  return {
    limit: compiled3.limit === "none" ? void 0 : normaliseLimit(compiled3.limit ?? params.limit),
    offset: normaliseOffset(compiled3.skip ?? params.offset)
  };
}
function reportedLimit(limit, total) {
  if (limit !== void 0) return limit;
  return total > MAX_ALL_ROWS ? MAX_ALL_ROWS : UNLIMITED_REPORTED;
}
var Repository = class {
  constructor(driver, def, resolve2, referrers = [], uniqueIndexes = {}, roleIndexes = { own: [], selectedBy: [] }, onWrite = () => {
  }) {
    this.driver = driver;
    this.def = def;
    this.resolve = resolve2;
    this.referrers = referrers;
    this.uniqueIndexes = uniqueIndexes;
    this.roleIndexes = roleIndexes;
    this.onWrite = onWrite;
    this.table = quote(def.table);
    this.schema = filterSchema(def);
    this.filterableFields = filterableFields(this.schema);
    this.columns = Object.keys(def.fields).filter((name) => isStored(def.fields[name]));
    this.setFields = this.columns.filter((c) => isSetField(def.fields[c]));
    this.refSelect = Object.entries(def.fields).filter(([, f]) => f.type.kind === "ref" && f.type.as && isStored(f)).map(([name, f]) => {
      const target = resolve2(f.type.resource);
      return `, (SELECT r."name" FROM ${quote(target.table)} r WHERE r."id" = e.${quote(name)}) AS ${quote(`ref:${name}`)}`;
    }).join("");
  }
  schema;
  filterableFields;
  columns;
  setFields;
  refSelect;
  table;
  selects = /* @__PURE__ */ new Map();
  get dialect() {
    return this.driver.dialect;
  }
  async find(id) {
    const raw2 = await this.driver.get(`SELECT e.*${this.refSelect} FROM ${this.table} e WHERE e."id" = ?`, [id]);
    return raw2 ? this.decode(raw2) : void 0;
  }
  async get(id) {
    const row = await this.find(id);
    if (!row) throw notFound(this.def.name, id);
    return row;
  }
  async findOne(where, opts = {}) {
    return (await this.findAll(where, { ...opts, limit: 1 }))[0];
  }
  /**
   * Rows matching `where`, in id order (at most `limit`): the store's own lookups, so without the names of
   * referenced entities (`refNames` is empty), which only read models need and which cost a subquery per row.
   * `columns` reads only those fields (and the common ones): hot paths read a few columns of wide rows.
   * `include` reads fields of the entity a reference points at in the same statement (`row.included[field]`).
   */
  async findAll(where, opts = {}) {
    const cond = this.whereClause(where);
    const limit = opts.limit === void 0 ? "" : ` LIMIT ${Number(opts.limit)}`;
    const rows = await this.driver.all(`SELECT ${this.selectFrom(opts)} WHERE ${cond.sql} ORDER BY e."id"${limit}`, cond.params);
    return rows.map((r) => this.decode(r, opts.include));
  }
  /** `<columns> FROM <table> e [JOIN ...]` of a lookup, made once per shape: lookups run on every request. */
  selectFrom(opts) {
    const key = `${opts.columns?.join(",") ?? "*"}|${opts.include ? JSON.stringify(opts.include) : ""}`;
    let text2 = this.selects.get(key);
    if (text2 !== void 0) return text2;
    const select = [opts.columns ? ["id", "createdAt", "updatedAt", "tags", "isSystem", ...opts.columns].map((c) => `e.${quote(c)}`).join(", ") : "e.*"];
    const joins = [];
    for (const [i, [field, columns]] of Object.entries(opts.include ?? {}).entries()) {
      const type = this.def.fields[field]?.type;
      if (type?.kind !== "ref") throw new Error(`${this.def.name}.${field} is not a reference`);
      joins.push(` JOIN ${quote(this.resolve(type.resource).table)} j${i} ON j${i}."id" = e.${quote(field)}`);
      for (const c of columns) select.push(`j${i}.${quote(c)} AS ${quote(`include:${field}:${c}`)}`);
    }
    text2 = `${select.join(", ")} FROM ${this.table} e${joins.join("")}`;
    this.selects.set(key, text2);
    return text2;
  }
  /** The distinct values of one stored field among the rows matching `where` (e.g. which identities have a session). */
  async distinct(field, where) {
    if (!this.columns.includes(field)) throw new Error(`${this.def.name} has no stored field '${field}'`);
    const cond = this.whereClause(where);
    const rows = await this.driver.all(`SELECT DISTINCT e.${quote(field)} AS v FROM ${this.table} e WHERE ${cond.sql}`, cond.params);
    return rows.map((r) => decodeValue(this.def.fields[field].type, r.v));
  }
  async count(where = {}) {
    const cond = this.whereClause(where);
    return (await this.driver.get(`SELECT count(*) AS n FROM ${this.table} e WHERE ${cond.sql}`, cond.params)).n;
  }
  async exists(where) {
    return await this.findOne(where) !== void 0;
  }
  async list(params = {}) {
    const compiled3 = this.compile(params);
    const parts = [{ sql: compiled3.where, params: compiled3.params }];
    if (params.scope) parts.push(await this.scopeClause(params.scope));
    const role = this.roleClause(params.roleFilter, params.roleSemantic);
    if (role) parts.push(role);
    const where = join(parts.map((p) => sql`(${p})`), " AND ");
    const { limit, offset } = pageBounds(compiled3, params);
    const total = (await this.driver.get(`SELECT count(*) AS n FROM ${this.table} e WHERE ${where.sql}`, where.params)).n;
    const rows = await this.driver.all(
      `SELECT e.*${this.refSelect} FROM ${this.table} e WHERE ${where.sql} ORDER BY ${compiled3.orderBy} LIMIT ? OFFSET ?`,
      [...where.params, limit ?? MAX_ALL_ROWS, offset]
    );
    return { rows: rows.map((r) => this.decode(r)), totalCount: total, limit: reportedLimit(limit, total), offset };
  }
  compile(params) {
    const query = parseQuery(params.filter ?? "");
    if (query.sort.length === 0 && params.sort) {
      try {
        query.sort = parseQuery(`sort by ${params.sort}`).sort;
      } catch (err) {
        throw new ApiError("INVALID_SORT_IDENTIFIER", { cause: { code: "UNHANDLED", message: err.message } });
      }
    }
    return compileQuery(query, this.schema, this.dialect);
  }
  /** Conditions as SQL text and parameters; written with plain strings, as every store lookup runs it. */
  whereClause(where) {
    let text2 = "1 = 1";
    const params = [];
    for (const name in where) {
      const value = where[name];
      if (name !== "id" && !this.columns.includes(name)) throw new Error(`${this.def.name} has no stored field '${name}'`);
      const column = `e."${name}"`;
      if (value === null) text2 += ` AND ${column} IS NULL`;
      else if (Array.isArray(value) && value.length === 1) {
        text2 += ` AND ${column} = ?`;
        params.push(value[0]);
      } else if (Array.isArray(value)) {
        const list = this.dialect.inList(raw(column), value);
        text2 += ` AND ${list.sql}`;
        params.push(...list.params);
      } else if (typeof value === "object") {
        const [op, operand] = "lt" in value ? ["<", value.lt] : ["IS DISTINCT FROM", value.ne];
        text2 += ` AND ${column} ${op} ?`;
        params.push(operand);
      } else {
        text2 += ` AND ${column} = ?`;
        params.push(typeof value === "boolean" ? Number(value) : value);
      }
    }
    return { sql: text2, params };
  }
  async scopeClause(scope) {
    if ("where" in scope) return this.whereClause(scope.where);
    if ("selectedBy" in scope) {
      const { index, policyIds } = scope.selectedBy;
      if (policyIds.length === 0) return raw("1 = 0");
      return await index.anySelectsAll(policyIds) ? raw("1 = 1") : index.selectedBy('e."id"', policyIds);
    }
    if ("selecting" in scope) return sql`e."id" IN (${scope.selecting.index.selecting(scope.selecting.entityId)})`;
    if ("ids" in scope) return this.dialect.inList(raw('e."id"'), scope.ids);
    if ("memberOf" in scope) {
      const { def, field, ownerId } = scope.memberOf;
      return sql`e."id" IN (SELECT s."value" FROM ${raw(quote(setTableName(def, field)))} s WHERE s."ownerId" = ${param(ownerId)})`;
    }
    const side = quote(setTableName(this.def, scope.holding.field));
    return sql`EXISTS (SELECT 1 FROM ${raw(side)} s WHERE s."ownerId" = e."id" AND s."value" = ${param(scope.holding.value)})`;
  }
  /**
   * `roleFilter`/`roleSemantic` on role-aware lists: `@id` values match by id, `#attr` values by attribute
   * (all of them for AllOf, any for AnyOf), `#all` matches everything; ids and attributes are OR-ed, as policies do.
   */
  roleClause(roles, semantic) {
    if (!roles || roles.length === 0) return void 0;
    const field = this.def.roleAttributes?.field;
    if (!field) throw invalidField("roleFilter", `${this.def.plural} do not accept a role filter`, roles);
    if (semantic !== void 0 && semantic !== "AllOf" && semantic !== "AnyOf") {
      throw invalidField("roleSemantic", "must be one of AllOf, AnyOf", semantic);
    }
    const ids = [];
    const attrs = [];
    for (const role of roles) {
      if (role.startsWith("@") && role.length > 1) ids.push(role.slice(1));
      else if (role.startsWith("#") && role.length > 1) attrs.push(role.slice(1));
      else throw invalidField("roleFilter", `'${role}' is neither a role attribute (prefixed with #) nor an entity id (prefixed with @)`, role);
    }
    if (attrs.includes("all")) return void 0;
    const parts = [];
    if (ids.length) parts.push(this.dialect.inList(raw('e."id"'), ids));
    if (attrs.length) {
      const side = raw(quote(setTableName(this.def, field)));
      const found = this.dialect.inList(raw('s."value"'), attrs);
      if ((semantic ?? "AllOf") === "AnyOf") parts.push(sql`EXISTS (SELECT 1 FROM ${side} s WHERE s."ownerId" = e."id" AND ${found})`);
      else parts.push(sql`(SELECT count(DISTINCT s."value") FROM ${side} s WHERE s."ownerId" = e."id" AND ${found}) = ${param(new Set(attrs).size)}`);
    }
    return join(parts, " OR ");
  }
  /** Inserts a row; `values` are field values (already validated) plus server and internal fields. */
  async insert(values, opts) {
    const id = opts.id ?? newId();
    const names = ["id", "createdAt", "updatedAt", "tags", "isSystem"];
    const args = [id, opts.now, opts.now, JSON.stringify(values.tags ?? {}), opts.isSystem ? 1 : 0];
    for (const name of this.columns) {
      const value = values[name] === void 0 ? this.def.fields[name].default : values[name];
      if (value === void 0) continue;
      names.push(name);
      args.push(this.encode(name, value));
    }
    await this.unique(
      values,
      () => this.driver.run(`INSERT INTO ${this.table} (${names.map(quote).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`, args)
    );
    await this.writeSets(id, values, true);
    await this.refreshRoleIndexes(id, values, true);
    this.onWrite({ resource: this.def.name, op: "insert" });
    return id;
  }
  /** Inserts a built-in row unless one with its id exists (built-ins are never overwritten). */
  async ensure(values, now) {
    if (await this.find(values.id)) return;
    await this.insert(values, { id: values.id, now, isSystem: true });
  }
  /** Updates only the given fields (PATCH semantics); `updatedAt` becomes `now` (bookkeeping writes pass the old value). */
  async update(id, values, now) {
    const sets = ['"updatedAt" = ?'];
    const args = [now];
    if (values.tags !== void 0) {
      sets.push('"tags" = ?');
      args.push(JSON.stringify(values.tags ?? {}));
    }
    for (const name of this.columns) {
      if (values[name] === void 0) continue;
      sets.push(`${quote(name)} = ?`);
      args.push(this.encode(name, values[name]));
    }
    const result = await this.unique(values, () => this.driver.run(`UPDATE ${this.table} SET ${sets.join(", ")} WHERE "id" = ?`, [...args, id]));
    if (result.changes === 0) throw notFound(this.def.name, id);
    this.onWrite({ resource: this.def.name, op: "update", fields: Object.keys(values).filter((k) => values[k] !== void 0) });
    await this.writeSets(id, values);
    await this.refreshRoleIndexes(id, values, false);
  }
  /**
   * Keeps the access index in step with a write, in its transaction: a policy whose roles or semantic changed is
   * re-evaluated against every entity; an entity whose attributes changed against every policy.
   */
  async refreshRoleIndexes(id, values, created2) {
    const { own, selectedBy } = this.roleIndexes;
    if (own.length && (created2 || values.semantic !== void 0 || own.some((i) => values[i.field] !== void 0))) {
      const row = created2 ? values : await this.find(id);
      for (const index of own) await index.refreshPolicy(id, row[index.field] ?? [], row.semantic);
    }
    const attributesField = this.def.roleAttributes?.field;
    if (selectedBy.length && attributesField && (created2 || values[attributesField] !== void 0)) {
      const attributes = values[attributesField] ?? [];
      for (const index of selectedBy) await index.refreshEntity(id, attributes, created2);
    }
  }
  /**
   * Deletes an entity and settles what refers to it, in the caller's transaction: a restricting reference is a
   * 409 naming the referencing field; reference lists and role sets lose the id; cascading references go too.
   */
  async delete(id) {
    for (const ref2 of this.referrers) await this.settleReferrer(ref2, id);
    const result = await this.driver.run(`DELETE FROM ${this.table} WHERE "id" = ?`, [id]);
    if (result.changes === 0) throw notFound(this.def.name, id);
    this.onWrite({ resource: this.def.name, op: "delete" });
  }
  /** Deletes the rows matching `where` (their dependants go by cascade); returns how many. */
  async deleteWhere(where) {
    const cond = this.whereClause(where);
    const deleted = (await this.driver.run(`DELETE FROM ${this.table} AS e WHERE ${cond.sql}`, cond.params)).changes;
    if (deleted > 0) this.onWrite({ resource: this.def.name, op: "delete" });
    return deleted;
  }
  async settleReferrer(ref2, id) {
    const holderTable = quote(ref2.def.table);
    if (ref2.kind === "ref") {
      if (ref2.onDelete !== "restrict") return;
      const holder = await this.driver.get(`SELECT "id" FROM ${holderTable} WHERE ${quote(ref2.field)} = ? LIMIT 1`, [id]);
      if (holder) throw referenced(this.def, id, ref2, holder.id);
      return;
    }
    const side = quote(setTableName(ref2.def, ref2.field));
    const value = ref2.kind === "roles" ? `@${id}` : id;
    const owners = await this.driver.all(`SELECT "ownerId" FROM ${side} WHERE "value" = ?`, [value]);
    if (owners.length === 0) return;
    if (ref2.kind === "refList" && ref2.onDelete === "restrict") throw referenced(this.def, id, ref2, owners[0].ownerId);
    for (const { ownerId } of owners) {
      const row = await this.driver.get(`SELECT ${quote(ref2.field)} AS v FROM ${holderTable} WHERE "id" = ?`, [ownerId]);
      const values = JSON.parse(row?.v ?? "[]").filter((v) => v !== value);
      await this.driver.run(`UPDATE ${holderTable} SET ${quote(ref2.field)} = ? WHERE "id" = ?`, [JSON.stringify(values), ownerId]);
    }
    await this.driver.run(`DELETE FROM ${side} WHERE "value" = ?`, [value]);
  }
  /** Distinct values of a set field in use (`/identity-role-attributes`), filtered and paged like any list. */
  async setValues(field, params) {
    const side = quote(setTableName(this.def, field));
    const schema = { idSql: 'v."value"', symbols: { id: { kind: "scalar", type: "string", sql: 'v."value"', sortable: true } } };
    const compiled3 = compileQuery(parseQuery(params.filter ?? ""), schema, this.dialect);
    const { limit, offset } = pageBounds(compiled3, params);
    const from = `(SELECT DISTINCT "value" FROM ${side}) v`;
    const total = (await this.driver.get(`SELECT count(*) AS n FROM ${from} WHERE ${compiled3.where}`, compiled3.params)).n;
    const values = await this.driver.all(
      `SELECT v."value" AS value FROM ${from} WHERE ${compiled3.where} ORDER BY ${compiled3.orderBy} LIMIT ? OFFSET ?`,
      [...compiled3.params, limit ?? MAX_ALL_ROWS, offset]
    );
    return { values: values.map((v) => v.value), totalCount: total, limit: reportedLimit(limit, total), offset };
  }
  /**
   * Runs a write, turning a unique-index violation into the client error OpenZiti gives (400 COULD_NOT_VALIDATE
   * naming the field and value). The index decides, not a read beforehand, so concurrent writers cannot both win.
   */
  async unique(values, write2) {
    try {
      return await write2();
    } catch (err) {
      const violation = this.dialect.violation(err);
      if (violation?.kind !== "unique") throw err;
      const fields = violation.columns ?? (violation.constraint ? this.uniqueIndexes[violation.constraint] : void 0) ?? ["id"];
      const field = fields[fields.length - 1];
      const value = values[field];
      throw invalidField(field, `duplicate value '${renderValue(value)}' in unique index on ${this.def.plural} store`, value);
    }
  }
  encode(name, value) {
    const field = this.def.fields[name];
    return encodeValue(field.type, value === null && field.default !== void 0 ? field.default : value);
  }
  /** The side rows of each set field written: replaced on update, one statement for all of a set's values. */
  async writeSets(id, values, fresh = false) {
    for (const field of this.setFields) {
      if (values[field] === void 0) continue;
      const side = quote(setTableName(this.def, field));
      if (!fresh) await this.driver.run(`DELETE FROM ${side} WHERE "ownerId" = ?`, [id]);
      const set2 = [...new Set(values[field] ?? [])];
      if (set2.length === 0) continue;
      await this.driver.run(
        `INSERT INTO ${side} ("ownerId", "value") VALUES ${set2.map(() => "(?, ?)").join(", ")}`,
        set2.flatMap((value) => [id, value])
      );
    }
  }
  decode(raw2, include) {
    const row = {
      id: raw2.id,
      createdAt: raw2.createdAt,
      updatedAt: raw2.updatedAt,
      tags: JSON.parse(raw2.tags ?? "{}"),
      isSystem: Number(raw2.isSystem) === 1,
      refNames: {}
    };
    for (const name of this.columns) if (name in raw2) row[name] = decodeValue(this.def.fields[name].type, raw2[name]);
    for (const key of Object.keys(raw2)) {
      if (key.startsWith("ref:")) row.refNames[key.slice(4)] = raw2[key];
    }
    if (include) {
      const included = {};
      for (const [field, columns] of Object.entries(include)) {
        const target = this.resolve(this.def.fields[field].type.resource);
        included[field] = Object.fromEntries(columns.map((c) => [c, decodeValue(target.fields[c].type, raw2[`include:${field}:${c}`])]));
      }
      row.included = included;
    }
    return row;
  }
};
function referenced(target, id, ref2, holderId) {
  return new ApiError("CAN_NOT_DELETE_REFERENCED_ENTITY", {
    message: `the ${target.label} '${id}' is referenced by ${ref2.def.label} '${holderId}' (field ${ref2.field}); remove that reference first`,
    cause: { field: ref2.field, reason: `referenced by ${ref2.def.plural}/${holderId}`, value: id }
  });
}

// src/controller/bootstrap.ts
async function ensureDefaultAdmin(store, opts) {
  if (await store.repo("identity").exists({ isDefaultAdmin: true })) return;
  const password2 = opts.password ?? randomBytes5(18).toString("base64url");
  const hash = await opts.passwords.hash(password2);
  if (!opts.password) opts.announce?.(password2);
  const now = opts.now.toISOString();
  await store.tx(async () => {
    const identityId = await store.repo("identity").insert(
      { name: "Default Admin", type: "Default", isAdmin: true, isDefaultAdmin: true, authPolicyId: "default" },
      { now }
    );
    await store.repo("authenticator").insert({ identityId, method: "updb", username: opts.username, password: hash }, { id: newId(), now });
  });
}

// src/controller/pki/enrollment-jwt.ts
import { createPrivateKey as createPrivateKey2, createPublicKey, X509Certificate as X509Certificate4 } from "node:crypto";
import { exportJWK, jwtVerify, SignJWT } from "jose";

// src/controller/pki/fingerprint.ts
import { createHash as createHash4, X509Certificate as X509Certificate3 } from "node:crypto";

// src/protocol/pkcs7.ts
import { X509Certificate as X509Certificate2 } from "node:crypto";
import forge2 from "node-forge";
var { asn1 } = forge2;
var fromDer = asn1.fromDer;
var OID_SIGNED_DATA = "1.2.840.113549.1.7.2";
var OID_DATA = "1.2.840.113549.1.7.1";
function pemCertsToDer(pem) {
  const out = [];
  const re = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;
  for (const m of pem.matchAll(re)) out.push(Buffer.from(m[1].replace(/\s+/g, ""), "base64"));
  return out;
}
function derToAsn1(der) {
  return fromDer(forge2.util.createBuffer(der.toString("binary")), { strict: true, decodeBitStrings: false });
}
function asn1ToBuffer(node) {
  return Buffer.from(asn1.toDer(node).getBytes(), "binary");
}
function certsOnlyPkcs7Base64(pems) {
  const certs = pems.flatMap(pemCertsToDer);
  if (certs.length === 0) throw new Error("certsOnlyPkcs7Base64: no certificates given");
  for (const der of certs) new X509Certificate2(der);
  const { Class, Type } = asn1;
  const signedData = asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
    asn1.create(Class.UNIVERSAL, Type.INTEGER, false, String.fromCharCode(1)),
    // version 1
    asn1.create(Class.UNIVERSAL, Type.SET, true, []),
    // digestAlgorithms: none
    asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
      asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(OID_DATA).getBytes())
    ]),
    // certificates [0] IMPLICIT SET OF Certificate; kept in the given order (root first), as Go does.
    asn1.create(Class.CONTEXT_SPECIFIC, 0, true, certs.map(derToAsn1)),
    asn1.create(Class.UNIVERSAL, Type.SET, true, [])
    // signerInfos: none
  ]);
  const contentInfo = asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
    asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(OID_SIGNED_DATA).getBytes()),
    asn1.create(Class.CONTEXT_SPECIFIC, 0, true, [signedData])
  ]);
  const b64 = asn1ToBuffer(contentInfo).toString("base64");
  return (b64.match(/.{1,64}/g) ?? []).join("\n");
}

// src/controller/pki/fingerprint.ts
function sha1FingerprintHex(certPem) {
  return createHash4("sha1").update(new X509Certificate3(certPem).raw).digest("hex");
}

// src/controller/pki/enrollment-jwt.ts
var ALG = "RS256";
function createEnrollmentJwtSigner(pki, issuer) {
  const privateKey = createPrivateKey2(pki.serverKeyPem);
  const kid = sha1FingerprintHex(pki.serverCertPem);
  return {
    issuer,
    async sign({ em, sub, jti, exp, ctrls }) {
      return new SignJWT({ em, ctrls: ctrls ?? [] }).setProtectedHeader({ alg: ALG, kid, typ: "JWT" }).setIssuer(issuer).setSubject(sub).setJti(jti).setAudience([""]).setIssuedAt().setExpirationTime(Math.floor(exp.getTime() / 1e3)).sign(privateKey);
    },
    async jwks() {
      const jwk = await exportJWK(createPublicKey(privateKey));
      return { keys: [{ ...jwk, kid, alg: ALG, use: "sig" }] };
    }
  };
}
async function signStaticJwt(pki, claims) {
  return new SignJWT({ em: claims.em }).setProtectedHeader({ alg: ALG, kid: sha1FingerprintHex(pki.serverCertPem), typ: "JWT" }).setIssuer(claims.iss).setSubject(claims.sub).setJti(claims.jti).setAudience(claims.aud).setIssuedAt().sign(createPrivateKey2(pki.serverKeyPem));
}

// src/controller/api/controllers.ts
import { X509Certificate as X509Certificate5 } from "node:crypto";

// src/protocol/envelope.ts
var API_VERSION = "0.0.1";
var API_ENROLLMENT_VERSION = "0.0.1";
var ERROR_META = { apiEnrollmentVersion: API_ENROLLMENT_VERSION, apiVersion: API_VERSION };
var MANAGEMENT_BASE = "/edge/management/v1";
var CLIENT_BASE = "/edge/client/v1";
var FABRIC_BASE = "/fabric/v1";

// src/controller/api/crud.ts
import { isDeepStrictEqual } from "node:util";

// src/controller/api/present.ts
function links(def, id) {
  const self = `./${def.plural}/${id}`;
  const out = { self: { href: self } };
  for (const name of Object.keys(def.relations ?? {})) out[name] = { href: `${self}/${name}` };
  for (const name of def.links ?? []) out[name] = { href: `${self}/${name}` };
  return out;
}
function entityRef(def, id, name) {
  return { _links: { self: { href: `./${def.plural}/${id}` } }, entity: def.plural, id, name: name ?? "" };
}
function toWire(def, row) {
  const out = {
    id: row.id,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    tags: row.tags,
    _links: links(def, row.id)
  };
  if (def.hasSystemEntities) out.isSystem = row.isSystem;
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.secret || field.virtual || field.internal || field.computed) continue;
    const value = row[name] ?? null;
    if (value !== null || field.readsNull) out[name] = value;
    if (field.type.kind === "ref" && field.type.as && typeof row[name] === "string") {
      out[field.type.as] = entityRef(resource(field.type.resource), row[name], row.refNames[name]);
    }
  }
  return out;
}

// src/controller/api/query.ts
function listParams(query) {
  return {
    filter: query.get("filter") ?? void 0,
    sort: query.get("sort") ?? void 0,
    limit: integerParam(query, "limit"),
    offset: integerParam(query, "offset"),
    roleFilter: query.getAll("roleFilter"),
    roleSemantic: query.get("roleSemantic") ?? void 0
  };
}
function integerParam(query, name) {
  const raw2 = query.get(name);
  if (raw2 === null || raw2 === "") return void 0;
  if (!/^-?\d+$/.test(raw2.trim())) {
    throw new ApiError("INVALID_PAGINATION", { cause: { field: name, reason: `${name} must be an integer`, value: raw2 } });
  }
  return Number(raw2);
}

// src/controller/api/crud.ts
function crudRoutes(rt, taken) {
  const routes = [];
  const add = (route) => {
    if (!taken(route)) routes.push(route);
  };
  for (const def of CATALOGUE) {
    const base = `/${def.plural}`;
    const item = `${base}/{id}`;
    const ops = new Set(def.operations);
    const api = def.api;
    const access = "admin";
    if (ops.has("list")) add({ method: "GET", path: base, api, access, handler: (ctx) => listResource(rt, def, ctx) });
    if (ops.has("get")) add({ method: "GET", path: item, api, access, handler: (ctx) => getResource(rt, def, ctx) });
    if (ops.has("create")) add({ method: "POST", path: base, api, access, handler: (ctx) => createResource(rt, def, ctx) });
    if (ops.has("replace")) add({ method: "PUT", path: item, api, access, handler: (ctx) => updateResource(rt, def, ctx, "replace") });
    if (ops.has("patch")) add({ method: "PATCH", path: item, api, access, handler: (ctx) => updateResource(rt, def, ctx, "patch") });
    if (ops.has("delete")) add({ method: "DELETE", path: item, api, access, handler: (ctx) => deleteResource(rt, def, ctx) });
    for (const [name, rel] of Object.entries(def.relations ?? {})) {
      add({ method: "GET", path: `${item}/${name}`, api, access, handler: (ctx) => listRelation(rt, def, rel, ctx) });
    }
    if (def.roleAttributes) {
      const field = def.roleAttributes.field;
      add({ method: "GET", path: `/${def.roleAttributes.listPath}`, api, access, handler: (ctx) => listAttributes(rt, def, field, ctx) });
    }
  }
  return routes;
}
async function listResource(rt, def, ctx, scope) {
  const repo = rt.store.repoFor(def);
  const result = await repo.list({ ...listParams(ctx.query), scope });
  return { data: await rt.present(def, result.rows), meta: listMeta(result, repo.filterableFields) };
}
function listMeta(page, filterableFields2) {
  return { pagination: { limit: page.limit, offset: page.offset, totalCount: page.totalCount }, filterableFields: filterableFields2 };
}
async function getResource(rt, def, ctx) {
  const row = await rt.store.repoFor(def).get(ctx.params.id);
  return { data: (await rt.present(def, [row]))[0] };
}
async function listRelation(rt, parent, rel, ctx) {
  const id = (await rt.store.repoFor(parent).get(ctx.params.id)).id;
  return listResource(rt, resource(rel.resource), ctx, await relationScope(rt, parent, rel, id, ctx.query));
}
async function relationScope(rt, parent, rel, id, query) {
  if ("foreignKey" in rel) return { where: { [rel.foreignKey]: id } };
  if ("listField" in rel) return rel.reverse ? { holding: { field: rel.listField, value: id } } : { memberOf: { def: parent, field: rel.listField, ownerId: id } };
  if ("policyRoles" in rel) return { selecting: { index: rt.store.roleIndex(rel.resource, rel.policyRoles), entityId: id } };
  if ("roles" in rel) return { selectedBy: { index: rt.store.roleIndex(parent.name, rel.roles), policyIds: [id] } };
  const policyWhere = rel.typeQuery ? policyTypeWhere(resource(rel.through), rel.typeQuery, query) : void 0;
  const policyIds = await rt.store.roleIndex(rel.through, rel.from).policiesSelecting(id, policyWhere);
  return { selectedBy: { index: rt.store.roleIndex(rel.through, rel.to), policyIds } };
}
function policyTypeWhere(policy, typeQuery, query) {
  const wanted = query.get(typeQuery.name);
  if (wanted === null || wanted === "") return void 0;
  const type = policy.fields[typeQuery.field].type;
  const values = type.kind === "enum" ? type.values : [];
  const value = values.find((v) => v.toLowerCase() === wanted.toLowerCase());
  if (!value) throw invalidField(typeQuery.name, `must be one of ${values.map((v) => v.toLowerCase()).join(", ")}`, wanted);
  return { [typeQuery.field]: value };
}
async function listAttributes(rt, def, field, ctx) {
  const repo = rt.store.repoFor(def);
  const result = await repo.setValues(field, listParams(ctx.query));
  return { data: result.values, meta: listMeta(result, ["id"]) };
}
async function validBody(rt, def, verb, ctx, existing) {
  const body = rt.validators.body(def, verb, withoutEchoes(def, verb, await ctx.json(), existing));
  for (const [name, field] of Object.entries(def.fields)) {
    const type = field.type;
    if (type.kind !== "ref" && type.kind !== "refList" && type.kind !== "roles") continue;
    const value = body[name];
    if (value === void 0 || value === null) continue;
    const target = resource(type.resource);
    const ids = type.kind === "ref" ? [value] : type.kind === "refList" ? value : roleIds(name, value);
    const found = new Set((await rt.store.repoFor(target).findAll({ id: [...new Set(ids)] }, { columns: [] })).map((r) => r.id));
    const missing = ids.find((id) => !found.has(id));
    if (missing !== void 0) throw invalidField(name, `no ${target.label} found with id '${missing}'`, missing);
  }
  return body;
}
function withoutEchoes(def, verb, raw2, existing) {
  if (raw2 === null || typeof raw2 !== "object" || Array.isArray(raw2)) return raw2;
  const body = { ...raw2 };
  if (body.id === "" || existing && body.id === existing.id) delete body.id;
  for (const [name, field] of Object.entries(def.fields)) {
    if (!(name in body)) continue;
    const presence2 = verb === "patch" ? field.patch : field[verb];
    if (existing && (presence2 === "no" || field.readOnly) && !field.computed && !field.virtual) {
      if (!isDeepStrictEqual(body[name], existing[name] ?? null)) {
        throw invalidField(name, field.readOnly ? "is set by the controller and cannot be written" : "cannot be changed once the entity exists", body[name]);
      }
      delete body[name];
    } else if (body[name] === "" && presence2 === "optional" && field.create !== "required" && (field.type.kind === "string" || field.type.kind === "enum")) {
      if (field.nullable && field.default === null) body[name] = null;
      else delete body[name];
    }
  }
  return body;
}
function roleIds(field, roles) {
  if (roles.includes("#all") && roles.length > 1) throw invalidField(field, "#all must be the only role when it is used", roles);
  return roles.filter((r) => r.startsWith("@")).map((r) => r.slice(1));
}
function withReplaceDefaults(def, body) {
  const out = { tags: {}, ...body };
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.replace === "no" || field.readOnly || field.virtual || field.internal || field.computed || name in out) continue;
    if (field.create === "required" && field.default === void 0) continue;
    out[name] = field.default ?? null;
  }
  return out;
}
function created(def, id) {
  return { status: 201, data: { _links: { self: links(def, id).self }, id } };
}
async function createResource(rt, def, ctx) {
  const body = await validBody(rt, def, "create", ctx);
  const hooks = rt.hooks(def.name);
  const now = ctx.now.toISOString();
  const id = await rt.store.tx(async () => {
    const write2 = { verb: "create", values: body, now };
    write2.values = await hooks.beforeWrite?.(rt, write2) ?? write2.values;
    const newId2 = await rt.store.repoFor(def).insert(write2.values, { now });
    await hooks.afterWrite?.(rt, { ...write2, id: newId2 });
    return newId2;
  });
  return created(def, id);
}
async function updateResource(rt, def, ctx, verb, transform = (body) => body) {
  const repo = rt.store.repoFor(def);
  const existing = await repo.get(ctx.params.id);
  if (existing.isSystem) throw new ApiError("ENTITY_CAN_NOT_BE_UPDATED", { message: `the ${def.label} '${existing.id}' is built in and cannot be updated` });
  const body = await validBody(rt, def, verb, ctx, existing);
  const hooks = rt.hooks(def.name);
  const now = ctx.now.toISOString();
  const write2 = { verb, values: transform(verb === "replace" ? withReplaceDefaults(def, body) : body, existing), existing, now };
  await rt.store.tx(async () => {
    write2.values = await hooks.beforeWrite?.(rt, write2) ?? write2.values;
    await repo.update(existing.id, write2.values, now);
    await hooks.afterWrite?.(rt, { ...write2, id: existing.id });
  });
  return { data: {} };
}
async function deleteResource(rt, def, ctx) {
  const repo = rt.store.repoFor(def);
  const existing = await repo.get(ctx.params.id);
  if (existing.isSystem) throw new ApiError("ENTITY_CAN_NOT_BE_DELETED", { message: `the ${def.label} '${existing.id}' is built in and cannot be deleted` });
  const hooks = rt.hooks(def.name);
  await rt.store.tx(async () => {
    await hooks.beforeDelete?.(rt, existing);
    await repo.delete(existing.id);
    await hooks.afterDelete?.(rt, existing);
  });
  return { data: {} };
}

// src/controller/api/controllers.ts
var controller2 = resource("controller");
var CLIENT_BINDINGS = /* @__PURE__ */ new Set(["edge-client", "edge-oidc"]);
function selfId(rt) {
  return rt.pki.trustDomain;
}
async function recordSelf(rt) {
  const leaf = rt.pki.serverCertPem;
  const base = rt.config.publicUrl;
  const values = {
    name: commonName(leaf),
    ctrlAddress: null,
    apiAddresses: {
      "edge-client": [{ url: `${base}${CLIENT_BASE}`, version: "v1" }],
      "edge-management": [{ url: `${base}${MANAGEMENT_BASE}`, version: "v1" }]
    },
    certPem: leaf,
    fingerprint: sha1FingerprintHex(leaf),
    lastJoinedAt: rt.clock().toISOString()
  };
  const repo = rt.store.repoFor(controller2);
  const now = rt.clock().toISOString();
  await rt.store.tx(async () => {
    if (await repo.find(selfId(rt))) await repo.update(selfId(rt), values, now);
    else await repo.insert(values, { id: selfId(rt), now });
  });
}
function commonName(pem) {
  return /^CN=(.*)$/m.exec(new X509Certificate5(pem).subject)?.[1] ?? "";
}
function controllerRoutes(rt) {
  const management = (ctx) => listResource(rt, controller2, ctx);
  const detail = async (ctx) => ({ data: (await rt.present(controller2, [await rt.store.repoFor(controller2).get(ctx.params.id)]))[0] });
  const client2 = async (ctx) => {
    const page = await management(ctx);
    return { ...page, data: page.data.map(forClients) };
  };
  return [
    { method: "GET", path: "/controllers", api: "management", access: "admin", handler: management },
    { method: "GET", path: "/controllers/{id}", api: "management", access: "admin", handler: detail },
    { method: "GET", path: "/controllers", api: "client", access: "session", handler: client2 }
  ];
}
function forClients(entity) {
  const addresses = entity.apiAddresses ?? {};
  return { ...entity, ctrlAddress: null, apiAddresses: Object.fromEntries(Object.entries(addresses).filter(([binding]) => CLIENT_BINDINGS.has(binding))) };
}
function presentControllers(rows, rt) {
  return rows.map((row) => ({ ...toWire(controller2, row), isOnline: row.id === selfId(rt) }));
}
var controllerBehaviour = { resource: "controller", routes: controllerRoutes, present: presentControllers };

// src/controller/api/access.ts
var service2 = resource("service");
var edgeRouter2 = resource("edge-router");
var identity2 = resource("identity");
async function grantingPolicies(rt, identityId) {
  const index = rt.store.roleIndex("service-policy", "identityRoles");
  const [dial, bind] = await Promise.all([index.policiesSelecting(identityId, { type: "Dial" }), index.policiesSelecting(identityId, { type: "Bind" })]);
  return { dial, bind };
}
async function permissionsOf(rt, identityId, serviceIds) {
  const { dial, bind } = await grantingPolicies(rt, identityId);
  const services = rt.store.roleIndex("service-policy", "serviceRoles");
  const [dialable, bindable] = await Promise.all([services.selectedAmong(dial, serviceIds), services.selectedAmong(bind, serviceIds)]);
  return new Map(serviceIds.map((id) => [id, [...bindable.has(id) ? ["Bind"] : [], ...dialable.has(id) ? ["Dial"] : []]]));
}
async function accessibleServices(rt, identityId) {
  const { dial, bind } = await grantingPolicies(rt, identityId);
  return { selectedBy: { index: rt.store.roleIndex("service-policy", "serviceRoles"), policyIds: [.../* @__PURE__ */ new Set([...dial, ...bind])] } };
}
async function ownEdgeRouters(rt, ctx) {
  const { identityId, isAdmin } = ctx.principal;
  if (isAdmin) return listResource(rt, edgeRouter2, ctx);
  const policyIds = await rt.store.roleIndex("edge-router-policy", "identityRoles").policiesSelecting(identityId);
  const selected = await rt.store.roleIndex("edge-router-policy", "edgeRouterRoles").selectedIds(policyIds);
  const verified = selected.length ? await rt.store.repoFor(edgeRouter2).findAll({ id: selected, isVerified: true }, { columns: ["id"] }) : [];
  return listResource(rt, edgeRouter2, ctx, { ids: verified.map((r) => r.id) });
}
async function edgeRoutersFor(rt, identityId, serviceId) {
  const identityPolicies = await rt.store.roleIndex("edge-router-policy", "identityRoles").policiesSelecting(identityId);
  const servicePolicies = await rt.store.roleIndex("service-edge-router-policy", "serviceRoles").policiesSelecting(serviceId);
  const identity8 = await rt.store.roleIndex("edge-router-policy", "edgeRouterRoles").selectedIds(identityPolicies);
  const service5 = new Set(await rt.store.roleIndex("service-edge-router-policy", "edgeRouterRoles").selectedIds(servicePolicies));
  return { identity: identity8, service: service5, shared: identity8.filter((id) => service5.has(id)) };
}
async function policyAdvice(rt, ctx) {
  const who = await rt.store.repoFor(identity2).get(ctx.params.id);
  const what = await rt.store.repoFor(service2).get(ctx.params.serviceId);
  const permissions = (await permissionsOf(rt, who.id, [what.id])).get(what.id);
  const { identity: identityRouters, service: serviceRouters, shared: shared2 } = await edgeRoutersFor(rt, who.id, what.id);
  const routers = shared2.length ? await rt.store.repoFor(edgeRouter2).findAll({ id: shared2 }) : [];
  const presented = await rt.present(edgeRouter2, routers);
  return {
    data: {
      identityId: who.id,
      identity: entityRef(identity2, who.id, who.name),
      serviceId: what.id,
      service: entityRef(service2, what.id, what.name),
      isDialAllowed: permissions.includes("Dial"),
      isBindAllowed: permissions.includes("Bind"),
      identityRouterCount: identityRouters.length,
      serviceRouterCount: serviceRouters.size,
      commonRouters: presented.map((r) => ({ ...entityRef(edgeRouter2, r.id, r.name), isOnline: r.isOnline === true }))
    }
  };
}
function accessRoutes(rt) {
  return [
    { method: "GET", path: "/current-identity/edge-routers", api: "client", access: "session", handler: (ctx) => ownEdgeRouters(rt, ctx) },
    { method: "GET", path: "/identities/{id}/policy-advice/{serviceId}", api: "management", access: "admin", handler: (ctx) => policyAdvice(rt, ctx) }
  ];
}

// src/controller/api/posture-data.ts
var identity3 = resource("identity");
var NEVER = "0001-01-01T00:00:00.000Z";
var unreported = { postureCheckId: "", timedOut: false, lastUpdatedAt: NEVER };
function postureDataRoutes(rt) {
  const exists2 = async (id) => (await rt.store.repoFor(identity3).get(id)).id;
  return [
    {
      method: "GET",
      path: "/identities/{id}/posture-data",
      api: "management",
      access: "admin",
      handler: async (ctx) => {
        await exists2(ctx.params.id);
        return {
          data: {
            os: { ...unreported, type: "", version: "", build: "" },
            mac: { ...unreported, addresses: [] },
            domain: { ...unreported, domain: "" },
            processes: [],
            apiSessionPostureData: {}
          }
        };
      }
    },
    {
      method: "GET",
      path: "/identities/{id}/failed-service-requests",
      api: "management",
      access: "admin",
      handler: async (ctx) => {
        await exists2(ctx.params.id);
        return { data: [] };
      }
    }
  ];
}

// src/controller/server/listener.ts
var TLS_CIPHERS = [
  "TLS_AES_256_GCM_SHA384",
  "TLS_CHACHA20_POLY1305_SHA256",
  "TLS_AES_128_GCM_SHA256",
  "ECDHE-ECDSA-AES256-GCM-SHA384",
  "ECDHE-RSA-AES256-GCM-SHA384",
  "ECDHE-ECDSA-CHACHA20-POLY1305",
  "ECDHE-RSA-CHACHA20-POLY1305",
  "ECDHE-ECDSA-AES128-GCM-SHA256",
  "ECDHE-RSA-AES128-GCM-SHA256"
].join(":");
function addressKey(address2) {
  if (!address2) return "";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address2);
  if (mapped) return mapped[1];
  if (!address2.includes(":")) return address2;
  return expandIpv6(address2).slice(0, 4).join(":") + "::/64";
}
function expandIpv6(address2) {
  const bare = address2.split("%")[0].toLowerCase();
  const [head, tail] = bare.includes("::") ? bare.split("::") : [bare, void 0];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const fill = tail === void 0 ? [] : Array(Math.max(8 - left.length - right.length, 0)).fill("0");
  return [...left, ...fill, ...right].map((g) => g.replace(/^0+(?=.)/, ""));
}

// src/controller/server/limits.ts
var FIELD_LIMITS = {
  /** A string field without a declared maximum. */
  stringMaxLength: 4096,
  /** An id referring to another entity. */
  refMaxLength: 256,
  /** Any key of any object in a body (tags, envInfo, appData, ...). */
  keyMaxLength: 128,
  /** Tags: keys per map, string value length. */
  tagsMaxKeys: 64,
  tagValueMaxLength: 1024,
  /** Entries of a typed map (serviceHostingCosts, serviceHostingPrecedences). */
  mapMaxKeys: 256,
  /** Role attributes per entity (each at most 1,024 characters, as before). */
  attributesMaxItems: 128,
  /** A free-form object such as appData, serialised as JSON. */
  objectMaxBytes: 16 * 1024,
  /** Nesting of any JSON body (free-form objects included). */
  bodyMaxDepth: 32,
  /** Login body: config types (count, length of each), envInfo/sdkInfo (keys, value length). */
  configTypesMaxItems: 32,
  configTypeMaxLength: 128,
  infoMaxKeys: 16,
  infoValueMaxLength: 256
};
var BOUNDED_TAGS_SCHEMA = {
  type: "object",
  maxProperties: FIELD_LIMITS.tagsMaxKeys,
  additionalProperties: { type: ["string", "boolean", "number", "null"], maxLength: FIELD_LIMITS.tagValueMaxLength }
};
var INFO_SCHEMA = {
  type: ["object", "null"],
  maxProperties: FIELD_LIMITS.infoMaxKeys,
  additionalProperties: { type: "string", maxLength: FIELD_LIMITS.infoValueMaxLength }
};
var LOGIN_EXTRAS_SCHEMA = {
  configTypes: {
    type: ["array", "null"],
    maxItems: FIELD_LIMITS.configTypesMaxItems,
    items: { type: "string", minLength: 1, maxLength: FIELD_LIMITS.configTypeMaxLength }
  },
  envInfo: INFO_SCHEMA,
  sdkInfo: INFO_SCHEMA
};
var FORBIDDEN = new RegExp("[\\u0000-\\u001f\\u007f-\\u009f]|\\p{Cs}", "u");
var FORBIDDEN_IN_FREE_FORM = new RegExp("[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]|\\p{Cs}", "u");
function checkBody(body, def) {
  const freeForm = new Set(Object.entries(def?.fields ?? {}).filter(([, f]) => f.type.kind === "object").map(([name]) => name));
  const multiLine = new Set(Object.entries(def?.fields ?? {}).filter(([, f]) => f.type.kind === "string" && f.type.format === "pem").map(([name]) => name));
  walk(body, [], 0, false, /* @__PURE__ */ new Set([...freeForm, ...multiLine]));
  if (!body || typeof body !== "object") return;
  for (const name of freeForm) {
    const value = body[name];
    if (value === void 0 || value === null) continue;
    const bytes = Buffer.byteLength(JSON.stringify(value));
    if (bytes > FIELD_LIMITS.objectMaxBytes) {
      throw refuse(name, `${name} is ${bytes} bytes as JSON; at most ${FIELD_LIMITS.objectMaxBytes} are allowed`, `<${bytes} bytes>`);
    }
  }
}
function walk(value, path6, depth, freeForm, freeFormFields) {
  if (depth > FIELD_LIMITS.bodyMaxDepth) {
    throw refuse(path6.join("."), `${path6.join(".")} is nested more than ${FIELD_LIMITS.bodyMaxDepth} levels deep`, "<nested>");
  }
  if (typeof value === "string") {
    checkText(value, path6, freeForm);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, [...path6, String(i)], depth + 1, freeForm, freeFormFields));
  } else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key.length > FIELD_LIMITS.keyMaxLength) {
        const field = path6.join(".") || "body";
        throw refuse(field, `${field} has a key longer than ${FIELD_LIMITS.keyMaxLength} characters`, visible(key));
      }
      checkText(key, [...path6, key], freeForm, "key");
      walk(item, [...path6, key], depth + 1, freeForm || depth === 0 && freeFormFields.has(key), freeFormFields);
    }
  }
}
function checkText(text2, path6, freeForm, what = "value") {
  if (!(freeForm ? FORBIDDEN_IN_FREE_FORM : FORBIDDEN).test(text2)) return;
  const field = path6.join(".") || "body";
  throw refuse(field, `${field} ${what === "key" ? "has a key that contains" : "contains"} a control character or an invalid character (not allowed)`, visible(text2));
}
function visible(text2) {
  const escaped = JSON.stringify(text2.length > 64 ? `${text2.slice(0, 64)}...` : text2).slice(1, -1);
  return escaped.replace(new RegExp("[\\u007f-\\u009f]|\\p{Cs}", "gu"), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
function refuse(field, reason, value) {
  return new ApiError("COULD_NOT_VALIDATE", { cause: { field: field || "body", reason, value } });
}

// src/controller/server/schemas.ts
var TAGS_SCHEMA = BOUNDED_TAGS_SCHEMA;
function typeSchema(type) {
  switch (type.kind) {
    case "string": {
      const s = { type: "string" };
      if (type.minLength !== void 0) s.minLength = type.minLength;
      s.maxLength = type.maxLength ?? FIELD_LIMITS.stringMaxLength;
      if (type.format) s.format = type.format;
      return s;
    }
    case "boolean":
      return { type: "boolean" };
    case "integer": {
      const s = { type: "integer" };
      if (type.minimum !== void 0) s.minimum = type.minimum;
      if (type.maximum !== void 0) s.maximum = type.maximum;
      return s;
    }
    case "enum":
      return { type: "string", enum: [...type.values] };
    case "attributes":
      return { type: "array", maxItems: FIELD_LIMITS.attributesMaxItems, items: { type: "string", minLength: 1, maxLength: 1024, pattern: "^[^#@]" } };
    case "tags":
      return TAGS_SCHEMA;
    case "object":
      return type.checked ? checkedObjectSchema(type) : { type: "object" };
    case "entityRef":
      return { type: "object" };
    case "array": {
      const s = { type: "array", items: typeSchema(type.items) };
      if (type.minItems !== void 0) s.minItems = type.minItems;
      if (type.maxItems !== void 0) s.maxItems = type.maxItems;
      return s;
    }
    case "map":
      return { type: "object", maxProperties: FIELD_LIMITS.mapMaxKeys, additionalProperties: typeSchema(type.values) };
    case "ref":
      return { type: "string", minLength: 1, maxLength: FIELD_LIMITS.refMaxLength };
    case "refList":
      return { type: "array", items: { type: "string", minLength: 1, maxLength: FIELD_LIMITS.refMaxLength } };
    case "roles":
      return { type: "array", items: { type: "string", pattern: "^[#@].+", maxLength: FIELD_LIMITS.refMaxLength } };
  }
}
function checkedObjectSchema(type) {
  const properties = Object.fromEntries(Object.entries(type.properties ?? {}).map(([k, t]) => [k, typeSchema(t)]));
  return { type: "object", properties, required: [...type.required ?? []] };
}
function withNull(schema) {
  const t = schema.type;
  return { ...schema, type: Array.isArray(t) ? [...t, "null"] : [t, "null"], ...schema.enum ? { enum: [...schema.enum, null] } : {} };
}
function presence(field, verb) {
  return verb === "patch" ? field.patch : field[verb];
}
function bodySchema(def, verb) {
  const properties = { tags: withNull(TAGS_SCHEMA) };
  const required = [];
  const conditional = [];
  for (const [name, field] of Object.entries(def.fields)) {
    const p = presence(field, verb);
    if (p === "no" || field.readOnly || field.internal || field.computed) continue;
    const schema = field.nullable ? withNull(typeSchema(field.type)) : typeSchema(field.type);
    if (field.when) {
      properties[name] = {};
      conditional.push(whenSchema(name, schema, field.when, p === "required"));
    } else {
      properties[name] = schema;
      if (p === "required") required.push(name);
    }
  }
  return { type: "object", properties, required, additionalProperties: false, ...conditional.length ? { allOf: conditional } : {} };
}
function whenSchema(name, schema, when, required) {
  return {
    if: { properties: { [when.field]: { enum: [...when.in] } }, required: [when.field] },
    then: { properties: { [name]: schema }, ...required ? { required: [name] } : {} },
    else: { if: { not: { required: [when.field] } }, then: { properties: { [name]: schema } } }
  };
}
function readTypeSchema(type) {
  switch (type.kind) {
    case "string":
      return type.format && type.format !== "pem" ? { type: "string", format: type.format } : { type: "string" };
    case "boolean":
      return { type: "boolean" };
    case "integer":
      return { type: "integer" };
    case "enum":
      return { type: "string", enum: [...type.values] };
    case "attributes":
    case "refList":
    case "roles":
      return { type: "array", items: { type: "string" } };
    case "tags":
      return { $ref: "#/definitions/tags" };
    case "object": {
      const s = { type: "object" };
      if (type.properties) s.properties = Object.fromEntries(Object.entries(type.properties).map(([k, t]) => [k, readTypeSchema(t)]));
      if (type.required?.length) s.required = [...type.required];
      return s;
    }
    case "array": {
      const s = { type: "array", items: readTypeSchema(type.items) };
      if (type.minItems !== void 0) s.minItems = type.minItems;
      return s;
    }
    case "map":
      return { type: "object", additionalProperties: readTypeSchema(type.values) };
    case "ref":
      return { type: "string" };
    case "entityRef":
      return { $ref: "#/definitions/entityRef" };
  }
}
function readNullable(schema) {
  return schema.$ref ? { allOf: [schema], "x-nullable": true } : { ...schema, "x-nullable": true };
}
var JSON_KINDS = /* @__PURE__ */ new Set(["attributes", "tags", "object", "map", "refList", "roles", "array"]);
function neverNull(field) {
  if (field.read?.required) return true;
  if (field.default !== void 0 && field.default !== null) return true;
  return field.create === "required" && !field.nullable || JSON_KINDS.has(field.type.kind);
}
function alwaysServed(field) {
  return Boolean(field.computed || field.virtual && field.read?.type || field.readsNull) || neverNull(field);
}
function readSchema(def) {
  const properties = {
    id: { type: "string" },
    createdAt: { type: "string", format: "date-time" },
    updatedAt: { type: "string", format: "date-time" },
    tags: { $ref: "#/definitions/tags" },
    _links: { $ref: "#/definitions/links" }
  };
  const required = ["id", "createdAt", "updatedAt", "_links"];
  if (def.hasSystemEntities) {
    properties.isSystem = { type: "boolean", description: "Built in: may not be changed or deleted" };
    required.push("isSystem");
  }
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.secret || field.internal || field.virtual && !field.read?.type) continue;
    const schema = readTypeSchema(field.read?.type ?? field.type);
    properties[name] = field.readsNull ? readNullable(schema) : schema;
    if (!("$ref" in properties[name])) properties[name].description = field.description;
    if (alwaysServed(field) && !field.when) required.push(name);
    if (field.type.kind === "ref" && field.type.as && !field.read?.type) {
      properties[field.type.as] = { $ref: "#/definitions/entityRef" };
      if (neverNull(field)) required.push(field.type.as);
    }
  }
  return { type: "object", description: def.description, properties, required };
}

// src/controller/api/cert-auth.ts
import { createHash as createHash6, X509Certificate as X509Certificate7 } from "node:crypto";

// src/controller/api/cas.ts
import { createHash as createHash5, randomUUID as randomUUID2, X509Certificate as X509Certificate6 } from "node:crypto";
var ca2 = resource("ca");
var PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
function pemCertificates(pem) {
  return [...pem.matchAll(PEM_BLOCK)].map((m) => {
    if (m[1] !== "CERTIFICATE") throw new ApiError("EXPECTED_PEM_CERTIFICATE", { message: `expected PEM CERTIFICATE blocks, found ${m[1]}` });
    try {
      return new X509Certificate6(Buffer.from(m[2].replace(/\s+/g, ""), "base64"));
    } catch (err) {
      throw new ApiError("COULD_NOT_PARSE_DER_BLOCK", { message: `a certificate cannot be parsed: ${err.message}` });
    }
  });
}
async function createCa(rt, ctx) {
  const body = rt.validators.body(ca2, "create", await ctx.json());
  const certPem = body.certPem;
  const certs = pemCertificates(certPem);
  if (certs.length === 0) throw new ApiError("INVALID_CERT_PEM", { message: "certPem holds no PEM certificate", cause: { field: "certPem", reason: "no PEM certificate", value: "<pem>" } });
  const notCa = certs.find((c) => !c.ca);
  if (notCa) throw new ApiError("CERTIFICATE_IS_NOT_CA", { message: `${notCa.subject.replace(/\n/g, ", ")} is not a CA certificate (basicConstraints CA:TRUE)` });
  const fingerprint = createHash5("sha1").update(certs[0].raw).digest("hex");
  const values = { ...body, certPem, fingerprint, isVerified: false, verificationToken: randomUUID2() };
  const id = await rt.store.tx(() => rt.store.repoFor(ca2).insert(values, { now: ctx.now.toISOString() }));
  return created(ca2, id);
}
function commonName2(cert) {
  return cert.subject.split("\n").find((line) => line.startsWith("CN="))?.slice(3);
}
function signedByCa(row, cert) {
  return pemCertificates(row.certPem).some((issuer) => cert.checkIssued(issuer) && cert.verify(issuer.publicKey));
}
async function verifyCa(rt, ctx) {
  const row = await rt.store.repoFor(ca2).get(ctx.params.id);
  if (row.isVerified) throw new ApiError("CA_ALREADY_VERIFIED");
  const text2 = await ctx.text();
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text2)) throw new ApiError("COULD_NOT_PARSE_BODY", { message: "the body is not a PEM certificate" });
  const [cert] = pemCertificates(text2);
  if (!cert) throw new ApiError("COULD_NOT_PARSE_BODY", { message: "the body is not a PEM certificate" });
  if (commonName2(cert) !== row.verificationToken) {
    throw new ApiError("INVALID_COMMON_NAME", { message: `the certificate's common name must be the CA's verification token (${row.verificationToken})` });
  }
  if (!signedByCa(row, cert)) throw new ApiError("CERTIFICATE_FAILED_VALIDATION", { message: "the certificate was not signed by this CA" });
  await rt.store.repoFor(ca2).update(row.id, { isVerified: true }, ctx.now.toISOString());
  return { data: {} };
}
async function caJwt(rt, ctx) {
  const row = await rt.store.repoFor(ca2).get(ctx.params.id);
  const iss = `${rt.config.publicUrl.replace(/\/+$/, "")}/`;
  const jwt = await signStaticJwt(rt.pki, { em: "ca", iss, sub: row.id, jti: row.id, aud: ["openziti-enroller"] });
  return { raw: jwt, contentType: "application/jwt" };
}
var caBehaviour = {
  resource: "ca",
  // An ottca enrollment is worthless without its CA: they go with it, in the delete's transaction.
  hooks: {
    async beforeDelete(rt, row) {
      await rt.store.repo("enrollment").deleteWhere({ caId: row.id });
    }
  },
  routes: (rt) => [
    { method: "POST", path: "/cas", api: "management", access: "admin", handler: (ctx) => createCa(rt, ctx) },
    { method: "POST", path: "/cas/{id}/verify", api: "management", access: "admin", handler: (ctx) => verifyCa(rt, ctx) },
    { method: "GET", path: "/cas/{id}/jwt", api: "management", access: "admin", handler: (ctx) => caJwt(rt, ctx) }
  ]
};

// src/controller/api/cert-auth.ts
var INVALID_AUTH = (why) => new ApiError("INVALID_AUTH", { message: `The authentication request failed: ${why}` });
function peerCertificate(ctx) {
  const socket = ctx.req.socket;
  if (typeof socket.getPeerCertificate !== "function") return void 0;
  const cert = socket.getPeerCertificate(false);
  return cert && cert.raw && cert.raw.length > 0 ? cert.raw : void 0;
}
function issuedByUs(rt, leaf) {
  const intermediate = new X509Certificate7(rt.pki.intermediateCertPem);
  return leaf.checkIssued(intermediate) && leaf.verify(intermediate.publicKey);
}
async function issuedByTrustedCa(rt, leaf) {
  const cas = await rt.store.repo("ca").findAll({ isVerified: true, isAuthEnabled: true }, { columns: ["certPem"] });
  return cas.some((ca3) => signedByCa(ca3, leaf));
}
async function resolveCertificate(rt, der, now) {
  if (!der) throw INVALID_AUTH("no client certificate was presented on the TLS connection");
  let leaf;
  try {
    leaf = new X509Certificate7(der);
  } catch {
    throw INVALID_AUTH("the client certificate cannot be read");
  }
  if (!issuedByUs(rt, leaf) && !await issuedByTrustedCa(rt, leaf)) {
    throw INVALID_AUTH("the client certificate was issued neither by this controller nor by a verified CA that allows authentication");
  }
  const fingerprint = createHash6("sha1").update(der).digest("hex");
  const authenticator3 = await rt.store.repo("authenticator").findOne({ method: "cert", fingerprint });
  if (!authenticator3) throw INVALID_AUTH("the client certificate belongs to no identity");
  const identity8 = await rt.store.repo("identity").get(authenticator3.identityId);
  const policy = await rt.store.repo("auth-policy").find(identity8.authPolicyId);
  const cert = policy?.primary?.cert;
  if (cert?.allowed !== true) throw INVALID_AUTH("the identity's auth policy does not allow certificates");
  const expired = Date.parse(leaf.validTo) < now.getTime() || Date.parse(leaf.validFrom) > now.getTime();
  if (expired && cert.allowExpiredCerts !== true) throw INVALID_AUTH("the client certificate is outside its validity and the identity's auth policy requires a valid one");
  if (isDisabled(identity8, now)) throw INVALID_AUTH("the identity is disabled");
  return { identity: identity8, authenticator: authenticator3 };
}

// src/controller/api/current.ts
var apiSession2 = resource("api-session");
var identity4 = resource("identity");
function currentRoutes(rt) {
  return [
    { method: "GET", path: "/current-api-session", api: "both", access: "session", handler: async (ctx) => ({ data: await presentCurrentSession(rt, ctx.principal.apiSessionId, ctx.principal.token) }) },
    { method: "DELETE", path: "/current-api-session", api: "both", access: "session", handler: (ctx) => logout(rt, ctx) },
    { method: "GET", path: "/current-identity", api: "both", access: "session", handler: (ctx) => currentIdentity(rt, ctx) }
  ];
}
async function logout(rt, ctx) {
  await rt.apiSessions.delete(ctx.principal.apiSessionId);
  return { data: {} };
}
async function currentIdentity(rt, ctx) {
  const row = await rt.store.repoFor(identity4).get(ctx.principal.identityId);
  return { data: (await rt.present(identity4, [row]))[0] };
}
function presentApiSessions(rows, rt) {
  return rows.map((row) => {
    const wire = toWire(apiSession2, row);
    return {
      ...wire,
      token: "",
      identity: entityRef(identity4, row.identityId, row.refNames.identityId),
      authQueries: [],
      cachedLastActivityAt: row.lastActivityAt,
      cachedUpdatedAt: row.updatedAt,
      isCertExtendable: false,
      isCertExtendRequested: false,
      isCertKeyRollRequested: false,
      improperClientCertChain: false,
      expiresAt: rt.apiSessions.expiresAt(row.lastActivityAt).toISOString(),
      expirationSeconds: Math.round(rt.config.sessionTimeoutMs / 1e3)
    };
  });
}
async function presentCurrentSession(rt, id, token) {
  const row = await rt.store.repoFor(apiSession2).find(id);
  if (!row) throw notFound("api-session", id);
  return { ...presentApiSessions([row], rt)[0], token };
}
var apiSessionBehaviour = { resource: "api-session", present: presentApiSessions };

// src/controller/api/authenticate.ts
var PASSWORD_BODY = {
  type: "object",
  properties: {
    username: typeSchema(username),
    password: typeSchema(password),
    ...LOGIN_EXTRAS_SCHEMA
  },
  required: ["username", "password"],
  additionalProperties: false
};
var CERT_BODY = { type: "object", properties: { ...LOGIN_EXTRAS_SCHEMA }, additionalProperties: false };
var INVALID_AUTH2 = () => new ApiError("INVALID_AUTH");
function authenticateRoutes(rt) {
  return [{ method: "POST", path: "/authenticate", api: "both", access: "public", handler: (ctx) => authenticate(rt, ctx) }];
}
async function authenticate(rt, ctx) {
  const method = ctx.query.get("method");
  if (method === null || method === "") throw invalidField("method", "method in query is required (password, cert or ext-jwt)", "");
  if (method === "cert") return certAuthenticate(rt, ctx);
  if (method === "ext-jwt") {
    throw new ApiError("INVALID_AUTH_METHOD", { message: `authentication method '${method}' is not supported by this controller yet; use method=password or cert` });
  }
  if (method !== "password") throw invalidField("method", "method must be one of password, cert, ext-jwt", method);
  const body = rt.validators.custom(PASSWORD_BODY, await ctx.json());
  const { store } = rt;
  const client2 = addressKey(ctx.remoteAddress);
  rt.loginThrottle.check(client2, body.username);
  const credential = await store.repo("authenticator").findOne({ method: "updb", username: body.username });
  const ok = await rt.passwordChecks.run(() => rt.passwords.verify(body.password, credential?.password));
  const identity8 = ok && credential ? await store.repo("identity").get(credential.identityId) : void 0;
  const policy = identity8 ? await store.repo("auth-policy").find(identity8.authPolicyId) : void 0;
  const allowed = policy?.primary?.updb?.allowed === true;
  if (!identity8 || !credential || isDisabled(identity8, ctx.now) || !allowed) {
    rt.loginThrottle.failed(client2, body.username, credential?.identityId);
    throw INVALID_AUTH2();
  }
  rt.loginThrottle.succeeded(identity8.id);
  return startSession(rt, ctx, identity8, credential.id, body);
}
async function certAuthenticate(rt, ctx) {
  const text2 = await ctx.text();
  const body = rt.validators.custom(CERT_BODY, text2.trim() === "" ? {} : await ctx.json());
  const { identity: identity8, authenticator: authenticator3 } = await resolveCertificate(rt, peerCertificate(ctx), ctx.now);
  return startSession(rt, ctx, identity8, authenticator3.id, body);
}
async function startSession(rt, ctx, identity8, authenticatorId, body) {
  const { store } = rt;
  const { id, token } = await store.tx(async () => {
    const session3 = await rt.apiSessions.create({
      identityId: identity8.id,
      authenticatorId,
      ipAddress: ctx.remoteAddress,
      configTypes: body.configTypes ?? [],
      now: ctx.now
    });
    const info = {};
    if (body.envInfo) info.envInfo = body.envInfo;
    if (body.sdkInfo) info.sdkInfo = body.sdkInfo;
    if (Object.keys(info).length > 0) await store.repo("identity").update(identity8.id, info, identity8.updatedAt);
    return session3;
  });
  return { data: await presentCurrentSession(rt, id, token), headers: { "zt-session": token } };
}

// src/controller/api/authenticators.ts
var authenticator2 = resource("authenticator");
var nullable = (schema) => ({ ...schema, type: [schema.type, "null"] });
var tags = { ...TAGS_SCHEMA, type: ["object", "null"] };
var OWN_REPLACE = {
  type: "object",
  properties: { username: typeSchema(username), password: typeSchema(password), currentPassword: typeSchema(password), tags },
  required: ["username", "password", "currentPassword"],
  additionalProperties: false
};
var OWN_PATCH = {
  type: "object",
  properties: {
    username: nullable(typeSchema(username)),
    password: nullable(typeSchema(password)),
    currentPassword: typeSchema(password),
    tags
  },
  required: ["currentPassword"],
  additionalProperties: false
};
function authenticatorRoutes(rt) {
  return [
    { method: "POST", path: "/authenticators", api: "management", access: "admin", handler: (ctx) => createAuthenticator(rt, ctx) },
    { method: "PUT", path: "/authenticators/{id}", api: "management", access: "admin", handler: (ctx) => adminUpdate(rt, ctx, "replace") },
    { method: "PATCH", path: "/authenticators/{id}", api: "management", access: "admin", handler: (ctx) => adminUpdate(rt, ctx, "patch") },
    { method: "DELETE", path: "/authenticators/{id}", api: "management", access: "admin", handler: (ctx) => adminDelete(rt, ctx) },
    { method: "GET", path: "/current-identity/authenticators", api: "both", access: "session", handler: (ctx) => listOwn(rt, ctx) },
    { method: "GET", path: "/current-identity/authenticators/{id}", api: "both", access: "session", handler: async (ctx) => ({ data: (await rt.present(authenticator2, [await ownAuthenticator(rt, ctx)]))[0] }) },
    { method: "PUT", path: "/current-identity/authenticators/{id}", api: "both", access: "session", handler: (ctx) => updateOwn(rt, ctx, OWN_REPLACE) },
    { method: "PATCH", path: "/current-identity/authenticators/{id}", api: "both", access: "session", handler: (ctx) => updateOwn(rt, ctx, OWN_PATCH) }
  ];
}
async function createAuthenticator(rt, ctx) {
  const body = await validBody(rt, authenticator2, "create", ctx);
  if (body.method !== "updb") {
    throw new ApiError("INVALID_AUTHENTICATOR_PROPERTIES", {
      message: "only updb authenticators can be created here; certificate authenticators are created by enrollment",
      cause: { field: "method", reason: "must be updb", value: String(body.method) }
    });
  }
  if (body.certPem !== void 0) throw invalidField("certPem", "is only valid for method cert", "<certificate>");
  if (typeof body.username !== "string") throw invalidField("username", "username in body is required for method updb", body.username);
  if (typeof body.password !== "string") throw invalidField("password", "password in body is required for method updb", "");
  const repo = rt.store.repoFor(authenticator2);
  const oneMore = () => new ApiError("MAX_AUTHENTICATOR_METHODS_REACHED", { message: "the identity already has a updb authenticator; update it instead" });
  if (await repo.exists({ identityId: body.identityId, method: "updb" })) throw oneMore();
  const hash = await rt.passwords.hash(body.password);
  const id = await repo.insert({ ...body, password: hash }, { now: ctx.now.toISOString() }).catch((err) => {
    throw err instanceof ApiError && err.cause?.field === "identityId" ? oneMore() : err;
  });
  return created(authenticator2, id);
}
async function adminUpdate(rt, ctx, verb) {
  const existing = await rt.store.repoFor(authenticator2).get(ctx.params.id);
  const body = await validBody(rt, authenticator2, verb, ctx);
  await applyUpdate(rt, existing, body, ctx.now, ctx.principal?.apiSessionId);
  return { data: {} };
}
async function adminDelete(rt, ctx) {
  const existing = await rt.store.repoFor(authenticator2).get(ctx.params.id);
  await rt.store.tx(async () => {
    await rt.store.repoFor(authenticator2).delete(existing.id);
    await rt.apiSessions.deleteForIdentity(existing.identityId, ctx.principal?.apiSessionId);
  });
  return { data: {} };
}
async function applyUpdate(rt, existing, body, now, keep) {
  if (existing.method !== "updb") {
    throw new ApiError("CAN_NOT_UPDATE_AUTHENTICATOR", { message: "only updb authenticators have a username and password to change" });
  }
  const values = {};
  if (typeof body.username === "string") values.username = body.username;
  if (typeof body.password === "string") values.password = await rt.passwords.hash(body.password);
  if (body.tags !== void 0) values.tags = body.tags ?? {};
  await rt.store.tx(async () => {
    await rt.store.repoFor(authenticator2).update(existing.id, values, now.toISOString());
    if (values.password !== void 0) await rt.apiSessions.deleteForIdentity(existing.identityId, keep);
  });
}
function listOwn(rt, ctx) {
  return listResource(rt, authenticator2, ctx, { where: { identityId: ctx.principal.identityId } });
}
async function ownAuthenticator(rt, ctx) {
  const row = await rt.store.repoFor(authenticator2).find(ctx.params.id);
  if (!row || row.identityId !== ctx.principal.identityId) throw notFound("authenticator", ctx.params.id);
  return row;
}
async function updateOwn(rt, ctx, schema) {
  const existing = await ownAuthenticator(rt, ctx);
  const body = rt.validators.custom(schema, await ctx.json());
  if (typeof body.username === "string" && body.username !== existing.username) {
    throw invalidField("username", "a username is changed by an administrator; send the current one or leave it out", "<redacted>");
  }
  const stored = existing.password ?? null;
  const client2 = addressKey(ctx.remoteAddress);
  rt.loginThrottle.check(client2, String(existing.username));
  if (!await rt.passwordChecks.run(() => rt.passwords.verify(body.currentPassword, stored))) {
    rt.loginThrottle.failed(client2, String(existing.username), existing.identityId);
    throw invalidField("currentPassword", "does not match the current password", "<redacted>");
  }
  await applyUpdate(rt, existing, body, ctx.now, ctx.principal.apiSessionId);
  return { data: {} };
}
var authenticatorBehaviour = { resource: "authenticator", routes: authenticatorRoutes };

// src/protocol/config-data.ts
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
function configSchemaAjv() {
  const ajv3 = new Ajv({ allErrors: false, strict: false, logger: false });
  addFormatsModule(ajv3);
  return ajv3;
}
function compilable(schema) {
  const { $id: _id, ...anonymous } = schema;
  return anonymous;
}
function decodePointer(segment) {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}
function valueAt(data, path6) {
  let v = data;
  for (const p of path6) v = v && typeof v === "object" ? v[p] : void 0;
  return v;
}
function describeFailure(error, data) {
  if (!error) return { field: "data", reason: "data does not satisfy the schema", value: data };
  const path6 = error.instancePath.split("/").filter(Boolean).map(decodePointer);
  let reason;
  switch (error.keyword) {
    case "required":
      path6.push(error.params.missingProperty);
      reason = "is required";
      break;
    case "additionalProperties":
      path6.push(error.params.additionalProperty);
      reason = "is not a known field";
      break;
    case "enum":
      reason = `must be one of: ${error.params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
      break;
    default:
      reason = error.message ?? "is invalid";
  }
  const field = ["data", ...path6].join(".");
  return { field, reason: `${field} ${reason}`, value: valueAt(data, path6) };
}
function checkData(validate, data) {
  return validate(data) ? void 0 : describeFailure(validate.errors?.[0], data);
}

// src/controller/api/configs.ts
var ajv = configSchemaAjv();
var compiled = new LruCache(256, (entry) => ajv.removeSchema(entry.schema));
function compile(schema, field) {
  const anonymous = compilable(schema);
  try {
    return { schema: anonymous, validate: ajv.compile(anonymous) };
  } catch (err) {
    throw invalidField(field, `is not a usable JSON schema: ${err.message}`, schema);
  }
}
function validatorOf(type) {
  const key = `${type.id}@${type.updatedAt}`;
  let entry = compiled.get(key);
  if (!entry) {
    entry = compile(type.schema ?? {}, "schema");
    compiled.set(key, entry);
  }
  return entry.validate;
}
var configTypeBehaviour = {
  resource: "config-type",
  hooks: {
    async beforeWrite(_rt, write2) {
      if (write2.values.schema === void 0 || write2.values.schema === null) return;
      ajv.removeSchema(compile(write2.values.schema, "schema").schema);
    }
  }
};
async function checkData2(rt, write2) {
  if (write2.values.data === void 0) return;
  const typeId = write2.values.configTypeId ?? write2.existing?.configTypeId;
  const type = await rt.store.repo("config-type").get(typeId);
  const validate = validatorOf(type);
  const failure = checkData(validate, write2.values.data);
  if (!failure) return;
  throw new ApiError("COULD_NOT_VALIDATE", {
    message: `the data does not satisfy the schema of config type '${type.name}'`,
    cause: { field: failure.field, reason: `${failure.reason} (schema of config type ${type.name})`, value: renderValue(failure.value) }
  });
}
var configBehaviour = { resource: "config", hooks: { beforeWrite: checkData2 } };

// src/controller/api/enrollments.ts
import { randomUUID as randomUUID4 } from "node:crypto";

// src/controller/api/enroll.ts
import { createHash as createHash10, randomUUID as randomUUID3, X509Certificate as X509Certificate10 } from "node:crypto";

// src/protocol/csr.ts
import { createPublicKey as createPublicKey2, sign, verify } from "node:crypto";

// src/protocol/der.ts
var DerError = class extends Error {
  name = "DerError";
};
function readTlv(buf, offset = 0) {
  if (offset + 2 > buf.length) throw new DerError("truncated element");
  const tag = buf[offset];
  if ((tag & 31) === 31) throw new DerError("unsupported high tag number");
  let len = buf[offset + 1];
  let header = 2;
  if (len & 128) {
    const n = len & 127;
    if (n === 0) throw new DerError("indefinite length is not DER");
    if (n > 4) throw new DerError("element too long");
    if (offset + 2 + n > buf.length) throw new DerError("truncated length");
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[offset + 2 + i];
    if (len < 128 || n > 1 && buf[offset + 2] === 0) throw new DerError("length is not minimally encoded");
    header += n;
  }
  const end = offset + header + len;
  if (end > buf.length) throw new DerError("truncated content");
  return { tag, raw: buf.subarray(offset, end), content: buf.subarray(offset + header, end), end };
}
function readOne(buf, expectTag) {
  const tlv2 = readTlv(buf, 0);
  if (tlv2.end !== buf.length) throw new DerError("trailing bytes after the element");
  if (expectTag !== void 0 && tlv2.tag !== expectTag) throw new DerError(`expected tag 0x${expectTag.toString(16)}, found 0x${tlv2.tag.toString(16)}`);
  return tlv2;
}
function children(content) {
  const out = [];
  for (let offset = 0; offset < content.length; ) {
    const tlv2 = readTlv(content, offset);
    out.push(tlv2);
    offset = tlv2.end;
  }
  return out;
}
function decodeOid(content) {
  if (content.length === 0) throw new DerError("empty OID");
  const parts = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 127);
    if (value > Number.MAX_SAFE_INTEGER / 128) throw new DerError("OID arc too large");
    if (!(byte & 128)) {
      parts.push(value);
      value = 0;
    }
  }
  if (content[content.length - 1] & 128) throw new DerError("truncated OID");
  const first = parts.shift();
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...parts].join(".");
}
var TAG = {
  BOOLEAN: 1,
  INTEGER: 2,
  BIT_STRING: 3,
  OCTET_STRING: 4,
  NULL: 5,
  OID: 6,
  UTF8_STRING: 12,
  PRINTABLE_STRING: 19,
  IA5_STRING: 22,
  UTC_TIME: 23,
  GENERALIZED_TIME: 24,
  SEQUENCE: 48,
  SET: 49
};
function lengthBytes(n) {
  if (n < 128) return Buffer.from([n]);
  const bytes = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 255);
  return Buffer.from([128 | bytes.length, ...bytes]);
}
function tlv(tag, ...content) {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), lengthBytes(body.length), body]);
}
var seq = (...items) => tlv(TAG.SEQUENCE, ...items);
var nullValue = () => tlv(TAG.NULL);
var octets = (b) => tlv(TAG.OCTET_STRING, b);
var bool2 = (v) => tlv(TAG.BOOLEAN, Buffer.from([v ? 255 : 0]));
var bits = (b, unusedBits = 0) => tlv(TAG.BIT_STRING, Buffer.from([unusedBits]), b);
var explicit = (n, ...items) => tlv(160 | n, ...items);
function unsignedInt(magnitude) {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const trimmed = magnitude.subarray(i);
  return tlv(TAG.INTEGER, trimmed[0] & 128 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}
var smallInt = (n) => unsignedInt(Buffer.from([n]));
function oid(dotted) {
  const arcs = dotted.split(".").map(Number);
  const out = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const chunk = [arc & 127];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(128 | v & 127);
    out.push(...chunk);
  }
  return tlv(TAG.OID, Buffer.from(out));
}
function time(d) {
  const iso = d.toISOString();
  const digits = iso.slice(0, 19).replace(/[-T:]/g, "");
  return d.getUTCFullYear() < 2050 ? tlv(TAG.UTC_TIME, Buffer.from(`${digits.slice(2)}Z`)) : tlv(TAG.GENERALIZED_TIME, Buffer.from(`${digits}Z`));
}
function pemEncode(label, der) {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----
${lines.join("\n")}
-----END ${label}-----
`;
}
function pemDecode(pem, ...labels) {
  const blocks = [...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g)];
  const label = labels[0];
  if (blocks.length === 0) throw new DerError(`no PEM block found (expected ${label})`);
  if (blocks.length > 1) throw new DerError(`expected one PEM block, found ${blocks.length}`);
  const [, found, body] = blocks[0];
  if (!labels.includes(found)) throw new DerError(`expected a PEM ${label}, found ${found}`);
  const b64 = body.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length === 0) throw new DerError("PEM body is not base64");
  return Buffer.from(b64, "base64");
}

// src/protocol/csr.ts
var OID = {
  commonName: "2.5.4.3",
  rsaEncryption: "1.2.840.113549.1.1.1",
  sha256WithRSA: "1.2.840.113549.1.1.11",
  sha384WithRSA: "1.2.840.113549.1.1.12",
  sha512WithRSA: "1.2.840.113549.1.1.13",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  ecdsaWithSha384: "1.2.840.10045.4.3.3",
  ecdsaWithSha512: "1.2.840.10045.4.3.4"
};
var SIGNATURE_ALGORITHMS = {
  [OID.sha256WithRSA]: { keyType: "rsa", hash: "sha256" },
  [OID.sha384WithRSA]: { keyType: "rsa", hash: "sha384" },
  [OID.sha512WithRSA]: { keyType: "rsa", hash: "sha512" },
  [OID.ecdsaWithSha256]: { keyType: "ec", hash: "sha256" },
  [OID.ecdsaWithSha384]: { keyType: "ec", hash: "sha384" },
  [OID.ecdsaWithSha512]: { keyType: "ec", hash: "sha512" }
};
var CsrError = class extends Error {
  name = "CsrError";
};
function signatureAlgorithmFor(key) {
  if (key.asymmetricKeyType === "rsa") return { algorithmId: seq(oid(OID.sha256WithRSA), nullValue()), hash: "sha256" };
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const [id, hash] = curve === "secp384r1" ? [OID.ecdsaWithSha384, "sha384"] : curve === "secp521r1" ? [OID.ecdsaWithSha512, "sha512"] : [OID.ecdsaWithSha256, "sha256"];
    return { algorithmId: seq(oid(id)), hash };
  }
  throw new CsrError(`keys of type ${key.asymmetricKeyType} are not supported (use RSA or EC)`);
}
function parseCsr(pem) {
  try {
    const der = pemDecode(pem, "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST");
    const [info, algorithm, signature, ...rest] = children(readOne(der, TAG.SEQUENCE).content);
    if (!info || !algorithm || !signature || rest.length > 0 || info.tag !== TAG.SEQUENCE || algorithm.tag !== TAG.SEQUENCE || signature.tag !== TAG.BIT_STRING) {
      throw new CsrError("not a PKCS#10 certificate request");
    }
    const [version, subject, spki] = children(info.content);
    if (!version || version.tag !== TAG.INTEGER || !version.content.equals(Buffer.from([0]))) throw new CsrError("unsupported CSR version");
    if (!subject || subject.tag !== TAG.SEQUENCE || !spki || spki.tag !== TAG.SEQUENCE) throw new CsrError("not a PKCS#10 certificate request");
    let publicKey;
    try {
      publicKey = createPublicKey2({ key: spki.raw, format: "der", type: "spki" });
    } catch (err) {
      throw new CsrError(`the CSR's public key cannot be read: ${err.message}`);
    }
    const algOid = children(algorithm.content)[0];
    if (!algOid || algOid.tag !== TAG.OID) throw new CsrError("the CSR has no signature algorithm");
    const alg = SIGNATURE_ALGORITHMS[decodeOid(algOid.content)];
    if (!alg) throw new CsrError(`the CSR is signed with an algorithm not accepted (${decodeOid(algOid.content)}); use SHA-256 or stronger with RSA or ECDSA`);
    if (alg.keyType !== publicKey.asymmetricKeyType) throw new CsrError(`the CSR's signature algorithm does not fit its ${publicKey.asymmetricKeyType} key`);
    if (signature.content[0] !== 0) throw new CsrError("malformed CSR signature");
    if (!verify(alg.hash, info.raw, publicKey, signature.content.subarray(1))) throw new CsrError("the CSR signature does not verify: it was not signed by the key it carries");
    return { subjectDer: subject.raw, spkiDer: spki.raw, publicKey, keyDescription: describeKey(publicKey) };
  } catch (err) {
    if (err instanceof CsrError) throw err;
    if (err instanceof DerError) throw new CsrError(`the CSR cannot be parsed: ${err.message}`);
    throw new CsrError(`the CSR cannot be processed: ${err.message}`);
  }
}
function describeKey(key) {
  const d = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === "rsa") return `RSA ${d.modulusLength ?? "?"} bits`;
  if (key.asymmetricKeyType === "ec") return `EC ${d.namedCurve ?? "?"}`;
  return String(key.asymmetricKeyType);
}

// src/controller/pki/issue.ts
import { createHash as createHash8, createPrivateKey as createPrivateKey3, X509Certificate as X509Certificate8 } from "node:crypto";

// src/protocol/x509.ts
import { createHash as createHash7, randomBytes as randomBytes6, sign as sign2 } from "node:crypto";
var EXTENSION_OIDS = {
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  subjectKeyIdentifier: "2.5.29.14",
  authorityKeyIdentifier: "2.5.29.35",
  clientAuth: "1.3.6.1.5.5.7.3.2"
};
function extension(id, critical, value) {
  return seq(oid(id), ...critical ? [bool2(true)] : [], octets(value));
}
function certificateParts(certPem) {
  const der = pemDecode(certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/)?.[0] ?? certPem, "CERTIFICATE");
  const [tbs] = children(readOne(der, TAG.SEQUENCE).content);
  const fields = children(tbs.content);
  const offset = fields[0].tag === 160 ? 1 : 0;
  const subjectDer = fields[offset + 4].raw;
  let keyId;
  const extensions = fields.find((f) => f.tag === 163);
  if (extensions) {
    for (const ext of children(children(extensions.content)[0].content)) {
      const [id, ...rest] = children(ext.content);
      if (decodeOid(id.content) === EXTENSION_OIDS.subjectKeyIdentifier) keyId = readOne(rest[rest.length - 1].content, TAG.OCTET_STRING).content;
    }
  }
  return { subjectDer, keyId };
}
function buildCertificate(spec) {
  const serial = randomBytes6(16);
  serial[0] = serial[0] & 127 || 1;
  const spkiBits = children(readOne(spec.spkiDer, TAG.SEQUENCE).content)[1].content.subarray(1);
  const { algorithmId, hash } = signatureAlgorithmFor(spec.issuer.key);
  const extensions = [
    ...spec.extensions,
    extension(EXTENSION_OIDS.subjectKeyIdentifier, false, octets(createHash7("sha1").update(spkiBits).digest())),
    ...spec.issuer.keyId ? [extension(EXTENSION_OIDS.authorityKeyIdentifier, false, seq(tlv(128, spec.issuer.keyId)))] : []
  ];
  const tbs = seq(
    explicit(0, smallInt(2)),
    unsignedInt(serial),
    algorithmId,
    spec.issuer.subjectDer,
    seq(time(spec.notBefore), time(spec.notAfter)),
    spec.subjectDer,
    spec.spkiDer,
    explicit(3, seq(...extensions))
  );
  const der = seq(tbs, algorithmId, bits(sign2(hash, tbs, spec.issuer.key)));
  return { der, pem: pemEncode("CERTIFICATE", der) };
}

// src/controller/pki/issue.ts
function checkKeyPolicy(key) {
  const d = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === "rsa") {
    const bitsLen = d.modulusLength ?? 0;
    if (bitsLen < 2048) throw new CsrError(`the CSR's RSA key has ${bitsLen} bits, fewer than the 2048 required`);
    if (bitsLen > 4096) throw new CsrError(`the CSR's RSA key has ${bitsLen} bits, more than the 4096 accepted`);
    return;
  }
  if (key.asymmetricKeyType === "ec") {
    if (d.namedCurve === "prime256v1" || d.namedCurve === "secp384r1") return;
    throw new CsrError(`the CSR's EC key is on curve ${d.namedCurve ?? "unknown"}; P-256 or P-384 is required`);
  }
  throw new CsrError(`the CSR's key is of type ${key.asymmetricKeyType}; RSA or EC is required`);
}
function acceptCsr(pem) {
  const csr = parseCsr(pem);
  checkKeyPolicy(csr.publicKey);
  return csr;
}
var MINUTE2 = 6e4;
function identitySpiffeId(trustDomain, identityId) {
  return `spiffe://${trustDomain}/identity/${encodeURIComponent(identityId)}`;
}
function issuerParts(pki) {
  return { ...certificateParts(pki.intermediateCertPem), notAfter: new Date(new X509Certificate8(pki.intermediateCertPem).validTo), key: createPrivateKey3(pki.intermediateKeyPem) };
}
function issueCert(pki, csr, opts) {
  const issuer = issuerParts(pki);
  const notBefore = new Date(opts.now.getTime() - MINUTE2);
  const wanted = new Date(opts.now.getTime());
  wanted.setUTCDate(wanted.getUTCDate() + (opts.validityDays ?? 365));
  const notAfter = new Date(Math.min(wanted.getTime(), issuer.notAfter.getTime()));
  const { der, pem: leafPem } = buildCertificate({ issuer, subjectDer: csr.subjectDer, spkiDer: csr.spkiDer, notBefore, notAfter, extensions: opts.extensions });
  const intermediate = pki.intermediateCertPem.endsWith("\n") ? pki.intermediateCertPem : `${pki.intermediateCertPem}
`;
  return { leafPem, chainPem: leafPem + intermediate, fingerprint: createHash8("sha1").update(der).digest("hex") };
}
function subjectAltNames(names) {
  return names.length > 0 ? [extension(EXTENSION_OIDS.subjectAltName, false, seq(...names))] : [];
}
function issueClientCert(pki, csr, opts) {
  return issueCert(pki, csr, {
    now: opts.now,
    validityDays: opts.validityDays,
    extensions: [
      extension(EXTENSION_OIDS.basicConstraints, true, seq()),
      // digitalSignature, keyEncipherment, dataEncipherment (bits 0, 2, 3), as OpenZiti's client signer.
      extension(EXTENSION_OIDS.keyUsage, true, bits(Buffer.from([176]), 4)),
      extension(EXTENSION_OIDS.extKeyUsage, false, seq(oid(EXTENSION_OIDS.clientAuth))),
      // uniformResourceIdentifier is [6] IMPLICIT IA5String.
      ...subjectAltNames(opts.uris.map((u) => tlv(134, Buffer.from(u, "ascii"))))
    ]
  });
}

// src/controller/api/router-enroll.ts
import { X509Certificate as X509Certificate9, createHash as createHash9 } from "node:crypto";

// src/controller/pki/router-certs.ts
var EXTENSION_REQUEST = "1.2.840.113549.1.9.14";
var SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
var COPIED_NAMES = /* @__PURE__ */ new Set([129, 130, 134, 135]);
var URI = 134;
function isSpiffeId(uri) {
  return uri.toString("latin1").toLowerCase().startsWith("spiffe:");
}
function requestedAltNames(pem) {
  const der = pemDecode(pem, "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST");
  const [info] = children(readOne(der, TAG.SEQUENCE).content);
  const attributes = children(info.content).find((el) => el.tag === 160);
  if (!attributes) return [];
  const names = [];
  for (const attribute of children(attributes.content)) {
    const [type, values] = children(attribute.content);
    if (!type || type.tag !== TAG.OID || decodeOid(type.content) !== EXTENSION_REQUEST || !values) continue;
    for (const extensions of children(values.content)) {
      for (const ext of children(extensions.content)) {
        const parts = children(ext.content);
        if (parts[0]?.tag !== TAG.OID || decodeOid(parts[0].content) !== EXTENSION_OIDS.subjectAltName) continue;
        const value = parts[parts.length - 1];
        if (value.tag !== TAG.OCTET_STRING) throw new CsrError("the requested subjectAltName is malformed");
        for (const name of children(readOne(value.content, TAG.SEQUENCE).content)) {
          if (COPIED_NAMES.has(name.tag) && !(name.tag === URI && isSpiffeId(name.content))) names.push(name.raw);
        }
      }
    }
  }
  return names;
}
function commonNameOf(subjectDer) {
  for (const rdn of children(readOne(subjectDer, TAG.SEQUENCE).content)) {
    for (const atv of children(rdn.content)) {
      const [type, value] = children(atv.content);
      if (type?.tag === TAG.OID && decodeOid(type.content) === OID.commonName && value) return value.content.toString("utf8");
    }
  }
  return void 0;
}
function issueRouterCerts(pki, opts) {
  const serverCsr = withWhich("server", () => acceptCsr(opts.serverCsr));
  const serverNames = withWhich("server", () => requestedAltNames(opts.serverCsr));
  const clientCsr = withWhich("client", () => acceptCsr(opts.clientCsr));
  const clientNames = withWhich("client", () => requestedAltNames(opts.clientCsr));
  const cn = commonNameOf(clientCsr.subjectDer);
  if (cn !== opts.routerId) throw new CsrError(`the client CSR's common name must be the router's id (${opts.routerId}), not ${cn === void 0 ? "absent" : `'${cn}'`}`);
  const basics = [extension(EXTENSION_OIDS.basicConstraints, true, seq())];
  const server = issueCert(pki, serverCsr, {
    now: opts.now,
    extensions: [
      ...basics,
      // digitalSignature and keyEncipherment (bits 0 and 2): TLS server keys of either kind.
      extension(EXTENSION_OIDS.keyUsage, true, bits(Buffer.from([160]), 5)),
      extension(EXTENSION_OIDS.extKeyUsage, false, seq(oid(SERVER_AUTH))),
      ...subjectAltNames(serverNames)
    ]
  });
  const client2 = issueCert(pki, clientCsr, {
    now: opts.now,
    extensions: [
      ...basics,
      extension(EXTENSION_OIDS.keyUsage, true, bits(Buffer.from([176]), 4)),
      extension(EXTENSION_OIDS.extKeyUsage, false, seq(oid(EXTENSION_OIDS.clientAuth))),
      ...subjectAltNames(clientNames)
    ]
  });
  return { server, client: client2 };
}
function withWhich(which, step) {
  try {
    return step();
  } catch (err) {
    if (err instanceof CsrError) throw new CsrError(`${which} CSR: ${err.message}`);
    throw new CsrError(`${which} CSR: the request cannot be parsed: ${err.message}`);
  }
}

// src/controller/api/router-enroll.ts
var EDGE = resource("edge-router");
var TRANSIT = resource("transit-router");
var ERROTT_BODY = { type: "object", properties: { token: { type: "string", minLength: 1, maxLength: 100 } }, required: ["token"], additionalProperties: false };
var CSR_MEMBERS = ["serverCsr", "clientCsr", "serverCertCsr", "certCsr"];
var EXTEND_BODY = { type: "object", properties: {}, additionalProperties: false };
function routerCsrs(body) {
  const pick = (...names) => names.map((n) => body[n]).find((v) => typeof v === "string" && v.trim() !== "");
  return { serverCsr: pick("serverCertCsr", "serverCsr"), clientCsr: pick("certCsr", "clientCsr") };
}
async function routerWithToken(rt, token) {
  const edge = await rt.store.repoFor(EDGE).findOne({ enrollmentToken: token });
  if (edge) return { def: EDGE, row: edge, method: "erott" };
  const transit = await rt.store.repoFor(TRANSIT).findOne({ enrollmentToken: token, isEdgeRouter: false });
  return transit ? { def: TRANSIT, row: transit, method: "trott" } : void 0;
}
var INVALID_TOKEN = () => new ApiError("INVALID_ENROLLMENT_TOKEN", { message: "the enrollment token is unknown or has already been used" });
function signPair(rt, routerId, csrs, now, fields) {
  for (const [which, value] of [["server", csrs.serverCsr], ["client", csrs.clientCsr]]) {
    if (!value) throw new ApiError("COULD_NOT_PROCESS_CSR", { message: `no ${which} CSR was given`, cause: { field: fields[which], reason: "is required", value: "" } });
  }
  try {
    return issueRouterCerts(rt.pki, { routerId, serverCsr: csrs.serverCsr, clientCsr: csrs.clientCsr, now });
  } catch (err) {
    if (!(err instanceof CsrError)) throw err;
    const field = err.message.startsWith("server") ? fields.server : fields.client;
    throw new ApiError("COULD_NOT_PROCESS_CSR", { message: `the CSR could not be processed: ${err.message}`, cause: { field, reason: err.message, value: "<csr>" } });
  }
}
async function storeCertificate(rt, def, existing, certs, values, now, stillValid, lost) {
  const at = now.toISOString();
  const all = { ...values, isVerified: true, fingerprint: certs.client.fingerprint, unverifiedCertPem: null, unverifiedFingerprint: null };
  if ("certPem" in def.fields) all.certPem = certs.client.chainPem;
  const hooks = rt.hooks(def.name);
  await rt.store.tx(async () => {
    await rt.store.repoFor(def).update(existing.id, {}, at);
    const current = await rt.store.repoFor(def).find(existing.id);
    if (!current || !stillValid(current)) throw lost();
    await rt.store.repoFor(def).update(existing.id, all, at);
    await hooks.afterWrite?.(rt, { verb: "patch", values: all, existing: current, now: at, id: existing.id });
  });
}
function answer(rt, certs) {
  return { data: { ca: rt.pki.caBundlePem, cert: certs.client.chainPem, serverCert: certs.server.chainPem } };
}
async function redeemRouterToken(rt, ctx, token, method, csrs, fields = { server: "serverCertCsr", client: "certCsr" }) {
  const found = await routerWithToken(rt, token);
  if (!found) throw INVALID_TOKEN();
  if (method !== void 0 && method !== found.method) {
    throw new ApiError("INVALID_ENROLL_METHOD", { message: `the token is for ${found.method} enrollment, not ${method}` });
  }
  const expiresAt = found.row.enrollmentExpiresAt;
  if (expiresAt && Date.parse(expiresAt) <= ctx.now.getTime()) {
    throw new ApiError("ENROLLMENT_EXPIRED", { message: `the enrollment expired at ${expiresAt}; an administrator can re-enroll the router` });
  }
  const certs = signPair(rt, found.row.id, csrs, ctx.now, fields);
  const cleared = { enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null };
  await storeCertificate(rt, found.def, found.row, certs, cleared, ctx.now, (row) => row.enrollmentToken === token, INVALID_TOKEN);
  return answer(rt, certs);
}
async function erottEnroll(rt, ctx) {
  const body = enrollBody(rt, ERROTT_BODY, await ctx.json(), CSR_MEMBERS);
  const csrs = routerCsrs(body);
  const fields = { server: body.serverCsr !== void 0 ? "serverCsr" : "serverCertCsr", client: body.clientCsr !== void 0 ? "clientCsr" : "certCsr" };
  return redeemRouterToken(rt, ctx, body.token, "erott", csrs, fields);
}
async function routerOfCertificate(rt, der) {
  const unauthorized = (why) => new ApiError("UNAUTHORIZED", { message: `router certificate renewal needs the router's current client certificate: ${why}` });
  if (!der) throw unauthorized("none was presented on the TLS connection");
  let leaf;
  try {
    leaf = new X509Certificate9(der);
  } catch {
    throw unauthorized("the presented certificate cannot be read");
  }
  const intermediate = new X509Certificate9(rt.pki.intermediateCertPem);
  if (!leaf.checkIssued(intermediate) || !leaf.verify(intermediate.publicKey)) throw unauthorized("the presented certificate was not issued by this controller");
  const fingerprint = createHash9("sha1").update(der).digest("hex");
  const edge = await rt.store.repoFor(EDGE).findOne({ fingerprint, isVerified: true });
  if (edge) return { def: EDGE, row: edge };
  const transit = await rt.store.repoFor(TRANSIT).findOne({ fingerprint, isVerified: true, isEdgeRouter: false });
  if (transit) return { def: TRANSIT, row: transit };
  throw unauthorized("the presented certificate is not the current one of any enrolled router");
}
async function extendRouter(rt, ctx) {
  const body = enrollBody(rt, EXTEND_BODY, await ctx.json(), ["certCsr", "serverCertCsr"]);
  const { def, row } = await routerOfCertificate(rt, peerCertificate(ctx));
  const certs = signPair(rt, row.id, routerCsrs(body), ctx.now, { server: "serverCertCsr", client: "certCsr" });
  await storeCertificate(rt, def, row, certs, {}, ctx.now, (current) => current.fingerprint === row.fingerprint && current.isVerified === true, () => new ApiError("UNAUTHORIZED", { message: "the certificate was renewed or revoked meanwhile" }));
  return answer(rt, certs);
}
function routerEnrollRoutes(rt) {
  return [
    { method: "POST", path: "/enroll/erott", api: "client", access: "public", handler: (ctx) => erottEnroll(rt, ctx) },
    { method: "POST", path: "/enroll/extend/router", api: "client", access: "public", handler: (ctx) => extendRouter(rt, ctx) }
  ];
}

// src/controller/api/enroll.ts
var OTT_BODY = {
  type: "object",
  properties: { token: { type: "string", minLength: 1, maxLength: 100 } },
  required: ["token"],
  additionalProperties: false
};
var UPDB_BODY = {
  type: "object",
  properties: { username: typeSchema(username), password: typeSchema(password) },
  required: ["password"],
  additionalProperties: false
};
var GENERIC_BODY = {
  type: "object",
  properties: {
    username: typeSchema(username),
    password: typeSchema(password),
    name: { type: "string" }
  },
  additionalProperties: false
};
var PEM_TEXT = /^[\x20-\x7e\t\r\n]*$/;
function enrollBody(rt, schema, json, pemMembers) {
  if (!json || typeof json !== "object" || Array.isArray(json)) return rt.validators.custom(schema, json);
  const rest = { ...json };
  const pems = {};
  for (const name of pemMembers) {
    if (!(name in rest)) continue;
    const value = rest[name];
    delete rest[name];
    if (value === null) continue;
    if (typeof value !== "string") throw invalidField(name, `${name} must be a PEM string`, value);
    if (!PEM_TEXT.test(value)) throw invalidField(name, `${name} must be PEM text (printable ASCII and line breaks)`, "<pem>");
    pems[name] = value;
  }
  return { ...rt.validators.custom(schema, rest), ...pems };
}
var PEM_BODY_TYPES = ["", "application/x-pem-file", "application/pkcs7", "text/plain"];
function enrollRoutes(rt) {
  return [
    { method: "POST", path: "/enroll", api: "client", access: "public", handler: (ctx) => genericEnroll(rt, ctx) },
    { method: "POST", path: "/enroll/ott", api: "client", access: "public", handler: (ctx) => ottEnroll(rt, ctx) },
    { method: "POST", path: "/enroll/ca", api: "client", access: "public", handler: (ctx) => caEnroll(rt, ctx) },
    { method: "POST", path: "/enroll/ottca", api: "client", access: "public", handler: (ctx) => ottcaEnroll(rt, ctx) },
    { method: "POST", path: "/enroll/updb", api: "client", access: "public", handler: (ctx) => updbEnroll(rt, ctx) },
    { method: "GET", path: "/network-jwts", api: "both", access: "public", handler: () => networkJwts(rt) },
    // The keys that sign enrollment JWTs, as a bare JWK set (no envelope), for clients that verify tokens offline.
    ...routerEnrollRoutes(rt),
    { method: "GET", path: "/enroll/jwks", api: "client", access: "public", handler: async () => ({ raw: JSON.stringify(await rt.enrollmentSigner.jwks()), contentType: "application/json" }) }
  ];
}
async function networkJwts(rt) {
  const iss = `${rt.config.publicUrl.replace(/\/+$/, "")}/`;
  const token = await signStaticJwt(rt.pki, { em: "network", iss, sub: iss, jti: randomUUID3(), aud: ["openziti-enroller"] });
  return { data: [{ name: "default", token }] };
}
async function ottEnroll(rt, ctx) {
  const body = enrollBody(rt, OTT_BODY, await ctx.json(), ["clientCsr"]);
  return redeemOtt(rt, ctx, await outstanding(rt, body.token, "ott", ctx.now), body.clientCsr);
}
async function ottcaEnroll(rt, ctx) {
  const body = enrollBody(rt, OTT_BODY, await ctx.json(), ["clientCsr"]);
  return redeemOttca(rt, ctx, await outstanding(rt, body.token, "ottca", ctx.now));
}
async function updbEnroll(rt, ctx) {
  const token = requiredToken(ctx);
  const found = await outstanding(rt, token, "updb", ctx.now);
  const body = rt.validators.custom(UPDB_BODY, await ctx.json());
  return redeemUpdb(rt, ctx, found, body.password);
}
async function genericEnroll(rt, ctx) {
  const token = requiredToken(ctx);
  const method = ctx.query.get("method") || void 0;
  if (method === "erott" || method === "trott" || method === void 0 && await routerWithToken(rt, token)) return genericRouterEnroll(rt, ctx, token, method);
  const found = await outstanding(rt, token, method, ctx.now);
  const type = (ctx.req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  let body;
  if (type === "application/json") body = enrollBody(rt, GENERIC_BODY, await ctx.json(), ["clientCsr", "serverCertCsr", "certCsr"]);
  else if (PEM_BODY_TYPES.includes(type)) body = found.method === "ott" ? { clientCsr: await ctx.text() } : {};
  else throw new ApiError("INVALID_CONTENT_TYPE", { message: `content type '${type}' is not accepted here: send the PEM CSR as application/x-pem-file or text/plain, or JSON` });
  if (!acceptsJson(ctx)) {
    throw new ApiError("UNSUPPORTED_MEDIA", { message: "the enrollment answer is JSON: accept application/json" });
  }
  if (found.method === "ott") return redeemOtt(rt, ctx, found, body.clientCsr);
  if (found.method === "ottca") return redeemOttca(rt, ctx, found);
  if (typeof body.password !== "string") throw invalidField("password", "password in body is required for updb enrollment", "");
  return redeemUpdb(rt, ctx, found, body.password);
}
async function genericRouterEnroll(rt, ctx, token, method) {
  const type = (ctx.req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") throw new ApiError("INVALID_CONTENT_TYPE", { message: `a router enrolls with JSON ({serverCertCsr, certCsr}), not '${type}'` });
  const body = enrollBody(rt, GENERIC_BODY, await ctx.json(), ["clientCsr", "serverCertCsr", "certCsr"]);
  return redeemRouterToken(rt, ctx, token, method, routerCsrs(body));
}
function acceptsJson(ctx) {
  const accept = String(ctx.req.headers.accept ?? "").toLowerCase();
  return accept === "" || accept.split(",").some((part) => /^\s*(\*\/\*|application\/\*|application\/json)\s*(;|$)/.test(part));
}
function requiredToken(ctx) {
  const token = ctx.query.get("token");
  if (!token) throw invalidField("token", "token in query is required", "");
  return token;
}
async function outstanding(rt, token, method, now) {
  const found = await rt.store.repo("enrollment").findOne({ token });
  if (!found) throw new ApiError("INVALID_ENROLLMENT_TOKEN", { message: "the enrollment token is unknown or has already been used" });
  if (method !== void 0 && found.method !== method) {
    throw new ApiError("INVALID_ENROLL_METHOD", { message: `the token is for ${found.method} enrollment, not ${method}` });
  }
  if (found.method !== "ott" && found.method !== "updb" && found.method !== "ottca") {
    throw new ApiError("INVALID_ENROLL_METHOD", { message: `${found.method} enrollment is not supported by this controller yet` });
  }
  if (Date.parse(found.expiresAt) <= now.getTime()) {
    throw new ApiError("ENROLLMENT_EXPIRED", { message: `the enrollment expired at ${found.expiresAt}; an administrator can refresh it` });
  }
  return found;
}
async function replaceWithAuthenticator(rt, enrollment3, values, now) {
  await rt.store.tx(async () => {
    const removed = await rt.store.repo("enrollment").deleteWhere({ id: enrollment3.id, token: enrollment3.token });
    if (removed !== 1) throw new ApiError("INVALID_ENROLLMENT_TOKEN", { message: "the enrollment token has already been used" });
    try {
      await rt.store.repo("authenticator").insert({ identityId: enrollment3.identityId, ...values }, { now: now.toISOString() });
    } catch (err) {
      if (err instanceof ApiError && err.cause?.field === "identityId") {
        throw new ApiError("MAX_AUTHENTICATOR_METHODS_REACHED", { message: "the identity already has a username and password" });
      }
      throw err;
    }
  });
}
async function redeemOtt(rt, ctx, enrollment3, clientCsr) {
  if (clientCsr === void 0 || clientCsr.trim() === "") {
    throw new ApiError("COULD_NOT_PROCESS_CSR", { message: "no CSR was given: send a PEM certificate signing request", cause: { field: "clientCsr", reason: "is required", value: "" } });
  }
  let issued;
  try {
    const csr = acceptCsr(clientCsr);
    issued = issueClientCert(rt.pki, csr, { uris: [identitySpiffeId(rt.pki.trustDomain, enrollment3.identityId)], now: ctx.now });
  } catch (err) {
    if (!(err instanceof CsrError)) throw err;
    throw new ApiError("COULD_NOT_PROCESS_CSR", { message: `the CSR could not be processed: ${err.message}`, cause: { field: "clientCsr", reason: err.message, value: "<csr>" } });
  }
  await replaceWithAuthenticator(rt, enrollment3, { method: "cert", certPem: issued.chainPem, fingerprint: issued.fingerprint, isIssuedByNetwork: true }, ctx.now);
  return { data: { cert: issued.chainPem, ca: rt.pki.caBundlePem } };
}
async function redeemOttca(rt, ctx, enrollment3) {
  const { der, cert } = clientCertificate(ctx, "ottca enrollment");
  const ca3 = enrollment3.caId ? await rt.store.repo("ca").find(enrollment3.caId) : void 0;
  if (!ca3 || ca3.isVerified !== true || ca3.isOttCaEnrollmentEnabled !== true) {
    throw new ApiError("ENROLLMENT_CA_NOT_VALID", { message: "the enrollment's CA is missing, unverified, or does not allow ottca enrollment" });
  }
  if (!signedByCa(ca3, cert)) throw new ApiError("ENROLLMENT_CA_NOT_VALID", { message: "the client certificate was not issued by the enrollment's CA" });
  const fingerprint = createHash10("sha1").update(der).digest("hex");
  if (await rt.store.repo("authenticator").exists({ method: "cert", fingerprint })) throw new ApiError("CERT_IN_USE");
  await replaceWithAuthenticator(rt, enrollment3, { method: "cert", certPem: cert.toString(), fingerprint, isIssuedByNetwork: false }, ctx.now);
  return { data: {} };
}
var CA_BODY = { type: "object", properties: { name: { type: "string", minLength: 1, maxLength: 100 } }, additionalProperties: false };
function clientCertificate(ctx, why) {
  const der = peerCertificate(ctx);
  if (!der) throw new ApiError("INVALID_CLIENT_CERT", { message: `${why} needs the client certificate on the TLS connection` });
  try {
    return { der, cert: new X509Certificate10(der) };
  } catch {
    throw new ApiError("INVALID_CLIENT_CERT", { message: "the client certificate cannot be read" });
  }
}
async function caEnroll(rt, ctx) {
  const text2 = await ctx.text();
  const body = rt.validators.custom(CA_BODY, text2.trim() === "" ? {} : await ctx.json());
  const { der, cert } = clientCertificate(ctx, "CA auto enrollment");
  const cas = await rt.store.repo("ca").findAll({ isVerified: true, isAutoCaEnrollmentEnabled: true });
  const ca3 = cas.find((c) => signedByCa(c, cert));
  if (!ca3) throw new ApiError("ENROLLMENT_NO_VALID_CAS", { message: "no verified CA that allows auto enrollment issued the client certificate" });
  const fingerprint = createHash10("sha1").update(der).digest("hex");
  if (await rt.store.repo("authenticator").exists({ method: "cert", fingerprint })) throw new ApiError("ENROLLMENT_IDENTITY_ALREADY_ENROLLED");
  const identityId = newId();
  const commonName4 = cert.subject.split("\n").find((l) => l.startsWith("CN="))?.slice(3) ?? "";
  const format = ca3.identityNameFormat ?? "[caName]-[commonName]";
  const symbols = { caName: ca3.name, caId: ca3.id, commonName: commonName4, requestedName: body.name ?? "", identityId };
  const base = format.replace(/\[(caName|caId|commonName|requestedName|identityId)\]/g, (_, key) => symbols[key]).slice(0, 1e3) || identityId;
  const now = ctx.now.toISOString();
  await rt.store.tx(async () => {
    let name = base;
    for (let n = 2; await rt.store.repo("identity").exists({ name }); n++) name = `${base}-${n}`;
    await rt.store.repo("identity").insert({ name, type: "Default", isAdmin: false, roleAttributes: ca3.identityRoles ?? [] }, { id: identityId, now });
    await rt.store.repo("authenticator").insert({ identityId, method: "cert", certPem: cert.toString(), fingerprint, isIssuedByNetwork: false }, { now });
  });
  return { data: {} };
}
async function redeemUpdb(rt, ctx, enrollment3, password2) {
  const hash = await rt.passwordChecks.run(() => rt.passwords.hash(password2));
  await replaceWithAuthenticator(rt, enrollment3, { method: "updb", username: enrollment3.username, password: hash }, ctx.now);
  return { data: { username: enrollment3.username } };
}

// src/controller/api/cert-extend.ts
import { createHash as createHash11, X509Certificate as X509Certificate11 } from "node:crypto";
var EXTEND_BODY2 = { type: "object", properties: {}, additionalProperties: false };
async function extendable(rt, ctx) {
  const row = await rt.store.repo("authenticator").find(ctx.params.id);
  if (!row || row.identityId !== ctx.principal.identityId) throw notFound("authenticator", ctx.params.id);
  if (row.method !== "cert" || row.isIssuedByNetwork !== true) {
    throw new ApiError("CAN_NOT_UPDATE_AUTHENTICATOR", { message: "only certificates this controller issued can be extended" });
  }
  if (ctx.principal.authenticatorId !== row.id) {
    throw new ApiError("UNAUTHORIZED", { message: "a certificate is extended from a session opened with that certificate" });
  }
  return row;
}
async function extend(rt, ctx) {
  const row = await extendable(rt, ctx);
  const body = enrollBody(rt, EXTEND_BODY2, await ctx.json(), ["clientCertCsr"]);
  if (!body.clientCertCsr) throw new ApiError("COULD_NOT_PROCESS_CSR", { message: "clientCertCsr is required", cause: { field: "clientCertCsr", reason: "is required", value: "" } });
  let issued;
  try {
    issued = issueClientCert(rt.pki, acceptCsr(body.clientCertCsr), { uris: [identitySpiffeId(rt.pki.trustDomain, row.identityId)], now: ctx.now });
  } catch (err) {
    if (!(err instanceof CsrError)) throw err;
    throw new ApiError("COULD_NOT_PROCESS_CSR", { message: `the CSR could not be processed: ${err.message}`, cause: { field: "clientCertCsr", reason: err.message, value: "<csr>" } });
  }
  await rt.store.repo("authenticator").update(row.id, { pendingCertPem: issued.chainPem, pendingFingerprint: issued.fingerprint }, ctx.now.toISOString());
  return { data: { ca: rt.pki.caBundlePem, clientCert: issued.chainPem } };
}
async function verifyExtension(rt, ctx) {
  const row = await extendable(rt, ctx);
  const body = enrollBody(rt, EXTEND_BODY2, await ctx.json(), ["clientCert"]);
  if (!row.pendingFingerprint) throw new ApiError("INVALID_CLIENT_CERT", { message: "no extended certificate awaits verification: extend first" });
  let fingerprint;
  try {
    fingerprint = body.clientCert ? createHash11("sha1").update(new X509Certificate11(body.clientCert).raw).digest("hex") : void 0;
  } catch {
    fingerprint = void 0;
  }
  if (fingerprint !== row.pendingFingerprint) throw new ApiError("INVALID_CLIENT_CERT", { message: "clientCert is not the certificate the extension issued" });
  await rt.store.repo("authenticator").update(
    row.id,
    { certPem: row.pendingCertPem, fingerprint: row.pendingFingerprint, pendingCertPem: null, pendingFingerprint: null },
    ctx.now.toISOString()
  );
  return { data: {} };
}
function certExtendRoutes(rt) {
  return [
    { method: "POST", path: "/current-identity/authenticators/{id}/extend", api: "both", access: "session", handler: (ctx) => extend(rt, ctx) },
    { method: "POST", path: "/current-identity/authenticators/{id}/extend-verify", api: "both", access: "session", handler: (ctx) => verifyExtension(rt, ctx) }
  ];
}

// src/controller/api/enrollments.ts
function parseEnrollmentRequest(value) {
  if (value === void 0 || value === null) return void 0;
  const obj = value;
  const keys = Object.keys(obj).filter((k) => obj[k] !== void 0 && obj[k] !== null && obj[k] !== false);
  if (keys.length === 0) return void 0;
  if (keys.length > 1) throw invalidField("enrollment", "give exactly one enrollment method: ott, ottca or updb", value);
  const [method] = keys;
  if (method === "ott") {
    if (obj.ott !== true) throw invalidField("enrollment.ott", "must be true", obj.ott);
    return { method: "ott" };
  }
  if (method === "updb") {
    const username2 = obj.updb;
    if (typeof username2 !== "string" || username2.length < 4 || username2.length > 100) {
      throw invalidField("enrollment.updb", "must be a username of 4 to 100 characters", username2);
    }
    return { method: "updb", username: username2 };
  }
  if (method === "ottca") {
    if (typeof obj.ottca !== "string" || obj.ottca === "") throw invalidField("enrollment.ottca", "must be the id of a CA", obj.ottca);
    return { method: "ottca", caId: obj.ottca };
  }
  throw invalidField(`enrollment.${method}`, "is not a known enrollment method (ott, ottca, updb)", obj[method]);
}
async function prepareEnrollment(rt, identityId, request, now, expiresAt, fields = { username: "enrollment.updb", caId: "enrollment.ottca" }) {
  if (request.method === "updb") await assertUsernameFree(rt, request.username, fields.username);
  if (request.method === "ottca" && !await rt.store.repo("ca").find(request.caId)) {
    throw invalidField(fields.caId, `no CA found with id '${request.caId}'`, request.caId);
  }
  const token = randomUUID4();
  const expires = expiresAt ?? new Date(now.getTime() + rt.config.enrollmentDurationMinutes * 6e4);
  const jwt = await rt.enrollmentSigner.sign({ em: request.method, sub: identityId, jti: token, exp: expires });
  return {
    id: newId(),
    method: request.method,
    token,
    jwt,
    expiresAt: expires.toISOString(),
    username: request.method === "updb" ? request.username : null,
    caId: request.method === "ottca" ? request.caId : null
  };
}
async function assertUsernameFree(rt, username2, field) {
  const taken = await rt.store.repo("authenticator").exists({ username: username2 }) || await rt.store.repo("enrollment").exists({ username: username2 });
  if (taken) throw invalidField(field, `the username '${username2}' is already in use`, username2);
}
async function insertEnrollment(rt, identityId, e, now) {
  const { id, method, expiresAt, username: username2, token, jwt, caId } = e;
  try {
    await rt.store.repo("enrollment").insert({ identityId, method, expiresAt, username: username2, token, jwt, caId }, { id, now });
  } catch (err) {
    if (err instanceof ApiError && err.cause?.field === "method") {
      throw exists(e.method);
    }
    throw err;
  }
}
var enrollment2 = resource("enrollment");
var REFRESH_BODY = {
  type: "object",
  properties: { expiresAt: { type: "string", format: "date-time" } },
  required: ["expiresAt"],
  additionalProperties: false
};
function futureExpiry(value, now) {
  const at = new Date(value);
  if (!(at.getTime() > now.getTime())) throw invalidField("expiresAt", "must be after the current date and time", value);
  return at;
}
async function createEnrollment(rt, ctx) {
  const body = await validBody(rt, enrollment2, "create", ctx);
  const identityId = body.identityId;
  const expiresAt = futureExpiry(body.expiresAt, ctx.now);
  let request;
  if (body.method === "ott") request = { method: "ott" };
  else if (body.method === "updb") {
    if (typeof body.username !== "string") throw invalidField("username", "username in body is required for method updb", body.username ?? null);
    request = { method: "updb", username: body.username };
  } else {
    if (typeof body.caId !== "string") throw invalidField("caId", "caId in body is required for method ottca", body.caId ?? null);
    request = { method: "ottca", caId: body.caId };
  }
  if (request.method !== "updb" && body.username != null) throw invalidField("username", "is only valid for method updb", body.username);
  if (request.method !== "ottca" && body.caId != null) throw invalidField("caId", "is only valid for method ottca", body.caId);
  if (await rt.store.repoFor(enrollment2).exists({ identityId, method: request.method })) throw exists(request.method);
  const prepared = await prepareEnrollment(rt, identityId, request, ctx.now, expiresAt, { username: "username", caId: "caId" });
  await rt.store.tx(() => insertEnrollment(rt, identityId, prepared, ctx.now.toISOString()));
  return created(enrollment2, prepared.id);
}
function exists(method) {
  return new ApiError("ENROLLMENT_EXISTS", { cause: { field: "method", reason: `an ${method} enrollment already exists for the identity`, value: method } });
}
async function refreshEnrollment(rt, ctx) {
  const existing = await rt.store.repoFor(enrollment2).get(ctx.params.id);
  const { expiresAt } = rt.validators.custom(REFRESH_BODY, await ctx.json());
  const expires = futureExpiry(expiresAt, ctx.now);
  const token = randomUUID4();
  const jwt = await rt.enrollmentSigner.sign({ em: existing.method, sub: existing.identityId, jti: token, exp: expires });
  await rt.store.tx(() => rt.store.repoFor(enrollment2).update(existing.id, { token, jwt, expiresAt: expires.toISOString() }, ctx.now.toISOString()));
  return { data: created(enrollment2, existing.id).data };
}
async function reEnroll(rt, ctx) {
  const authenticator3 = await rt.store.repo("authenticator").get(ctx.params.id);
  const { expiresAt } = rt.validators.custom(REFRESH_BODY, await ctx.json());
  const expires = futureExpiry(expiresAt, ctx.now);
  const identityId = authenticator3.identityId;
  let method = "ott";
  let caId = null;
  if (authenticator3.method === "updb") method = "updb";
  else if (authenticator3.isIssuedByNetwork !== true && typeof authenticator3.certPem === "string") {
    const [leaf] = pemCertificates(authenticator3.certPem);
    const cas = await rt.store.repo("ca").findAll({}, { columns: ["certPem"] });
    const issuer = leaf && cas.find((ca3) => signedByCa(ca3, leaf));
    if (issuer) [method, caId] = ["ottca", issuer.id];
  }
  const token = randomUUID4();
  const jwt = await rt.enrollmentSigner.sign({ em: method, sub: identityId, jti: token, exp: expires });
  const prepared = {
    id: newId(),
    method,
    token,
    jwt,
    expiresAt: expires.toISOString(),
    username: method === "updb" ? authenticator3.username ?? null : null,
    caId
  };
  const now = ctx.now.toISOString();
  await rt.store.tx(async () => {
    await rt.store.repo("authenticator").delete(authenticator3.id);
    await insertEnrollment(rt, identityId, prepared, now);
    await rt.apiSessions.deleteForIdentity(identityId, ctx.principal?.apiSessionId);
  });
  return created(enrollment2, prepared.id);
}
var enrollmentBehaviour = {
  resource: "enrollment",
  routes: (rt) => [
    { method: "POST", path: "/enrollments", api: "management", access: "admin", handler: (ctx) => createEnrollment(rt, ctx) },
    { method: "POST", path: "/enrollments/{id}/refresh", api: "management", access: "admin", handler: (ctx) => refreshEnrollment(rt, ctx) },
    { method: "POST", path: "/authenticators/{id}/re-enroll", api: "management", access: "admin", handler: (ctx) => reEnroll(rt, ctx) },
    ...enrollRoutes(rt),
    // The certificate's later life (extension) lives with its enrollment.
    ...certExtendRoutes(rt)
  ],
  present: async (rows, rt) => {
    const caIds = [...new Set(rows.map((r) => r.caId).filter((id) => typeof id === "string"))];
    const cas = caIds.length ? await rt.store.repo("ca").findAll({ id: caIds }, { columns: ["name"] }) : [];
    return rows.map((row) => {
      const wire = { ...toWire(enrollment2, row), details: {} };
      const found = cas.find((c) => c.id === row.caId);
      if (found) wire.ca = entityRef(resource("ca"), found.id, found.name);
      return wire;
    });
  }
};

// src/controller/api/external-jwt-signers.ts
import { createHash as createHash12, X509Certificate as X509Certificate12 } from "node:crypto";
var signer = resource("external-jwt-signer");
var ZERO_TIME = "0001-01-01T00:00:00.000Z";
var EMPTY_WHEN_ABSENT = ["audience", "kid", "clientId", "externalAuthUrl", "commonName", "fingerprint"];
var CLIENT_SYMBOLS = /* @__PURE__ */ new Set(["id", "createdAt", "updatedAt", "name", "externalAuthUrl", "clientId", "audience", "targetToken"]);
async function write(rt, ctx, verb) {
  const json = await ctx.json();
  const echoed = verb !== "create" && json && typeof json === "object" && !Array.isArray(json);
  const body = echoed ? await withoutServedBlanks(rt, ctx.params.id, json) : json;
  const inner = { ...ctx, json: async () => body };
  return verb === "create" ? createResource(rt, signer, inner) : updateResource(rt, signer, inner, verb);
}
async function withoutServedBlanks(rt, id, body) {
  const existing = await rt.store.repoFor(signer).get(id);
  const out = { ...body };
  for (const field of [...EMPTY_WHEN_ABSENT, "notBefore", "notAfter"]) {
    const blank = field === "notBefore" || field === "notAfter" ? ZERO_TIME : "";
    if (signer.fields[field].readOnly && out[field] === blank && (existing[field] ?? null) === null) delete out[field];
  }
  return out;
}
function certificateOf(pem) {
  const blocks = [...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g)];
  if (blocks.length !== 1 || blocks[0][1] !== "CERTIFICATE") {
    throw invalidField("certPem", "certPem must hold exactly one PEM CERTIFICATE block", "<pem>");
  }
  try {
    return new X509Certificate12(Buffer.from(blocks[0][2].replace(/\s+/g, ""), "base64"));
  } catch (err) {
    throw invalidField("certPem", `certPem is not a readable X.509 certificate: ${err.message}`, "<pem>");
  }
}
function commonName3(cert) {
  return cert.subject.split("\n").find((line) => line.startsWith("CN="))?.slice(3) ?? "";
}
function checkJwksEndpoint(value) {
  let url2;
  try {
    url2 = new URL(value);
  } catch {
    throw invalidField("jwksEndpoint", "jwksEndpoint must be an absolute URL", value);
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url2.hostname);
  if (url2.protocol !== "https:" && !(url2.protocol === "http:" && loopback)) {
    throw invalidField("jwksEndpoint", "jwksEndpoint must be an https URL (http only to localhost)", value);
  }
  if (url2.username || url2.password) throw invalidField("jwksEndpoint", "jwksEndpoint must not carry credentials", value);
}
async function beforeWrite(_rt, w) {
  const values = { ...w.values };
  const after2 = w.verb === "patch" ? { ...w.existing, ...values } : values;
  const certPem = after2.certPem ?? null;
  const jwks = after2.jwksEndpoint ?? null;
  if (certPem === null && jwks === null) throw invalidField("certPem", "jwksEndpoint or certPem is required", null);
  if (certPem !== null && jwks !== null) {
    const field = "jwksEndpoint" in values && values.jwksEndpoint !== null ? "jwksEndpoint" : "certPem";
    throw invalidField(field, "only one of jwksEndpoint or certPem may be defined", field === "certPem" ? "<pem>" : jwks);
  }
  if (certPem !== null && !after2.kid) throw invalidField("kid", "kid is required with certPem", after2.kid ?? null);
  if (jwks !== null && "jwksEndpoint" in values) checkJwksEndpoint(jwks);
  if ("certPem" in values) {
    if (certPem === null) {
      Object.assign(values, { fingerprint: null, commonName: null, notBefore: null, notAfter: null });
    } else {
      const cert = certificateOf(certPem);
      Object.assign(values, {
        fingerprint: createHash12("sha1").update(cert.raw).digest("hex"),
        commonName: commonName3(cert),
        notBefore: new Date(cert.validFrom).toISOString(),
        notAfter: new Date(cert.validTo).toISOString()
      });
    }
  }
  return values;
}
function present(rows) {
  return rows.map((row) => {
    const out = toWire(signer, row);
    for (const field of EMPTY_WHEN_ABSENT) out[field] ??= "";
    out.notBefore ??= ZERO_TIME;
    out.notAfter ??= ZERO_TIME;
    return out;
  });
}
function symbolsOf(node, out = /* @__PURE__ */ new Set()) {
  if (Array.isArray(node)) node.forEach((n) => symbolsOf(n, out));
  else if (node && typeof node === "object") {
    const n = node;
    if ((n.kind === "symbol" || n.kind === "boolSymbol") && typeof n.name === "string") out.add(n.name);
    if ((n.kind === "anyOf" || n.kind === "allOf") && typeof n.set === "string") out.add(n.set);
    if (typeof n.field === "string" && "direction" in n) out.add(n.field);
    Object.values(n).forEach((v) => symbolsOf(v, out));
  }
  return out;
}
async function clientList(rt, ctx) {
  const params = listParams(ctx.query);
  const named = symbolsOf(parseQuery(params.filter ?? ""));
  if (params.sort) symbolsOf(parseQuery(`sort by ${params.sort}`), named);
  const hidden = [...named].find((s) => !CLIENT_SYMBOLS.has(s));
  if (hidden !== void 0) {
    throw new ApiError("INVALID_FILTER", { message: `'${hidden}' is not a field of the signer list`, cause: { field: hidden, reason: "not a field of the signer list", value: hidden } });
  }
  const repo = rt.store.repoFor(signer);
  const page = await repo.list({ ...params, scope: { where: { enabled: true } } });
  const data = page.rows.map((row) => {
    const full = present([row])[0];
    const out = { id: full.id, createdAt: full.createdAt, updatedAt: full.updatedAt, tags: full.tags, _links: full._links };
    for (const field of CLIENT_VIEW_FIELDS) out[field] = full[field];
    return out;
  });
  return { data, meta: listMeta(page, [...CLIENT_SYMBOLS]) };
}
var externalJwtSignerBehaviour = {
  resource: "external-jwt-signer",
  hooks: { beforeWrite },
  present: (rows) => present(rows),
  routes: (rt) => [
    { method: "POST", path: "/external-jwt-signers", api: "management", access: "admin", handler: (ctx) => write(rt, ctx, "create") },
    { method: "PUT", path: "/external-jwt-signers/{id}", api: "management", access: "admin", handler: (ctx) => write(rt, ctx, "replace") },
    { method: "PATCH", path: "/external-jwt-signers/{id}", api: "management", access: "admin", handler: (ctx) => write(rt, ctx, "patch") },
    { method: "GET", path: "/external-jwt-signers", api: "client", access: "public", handler: (ctx) => clientList(rt, ctx) }
  ]
};

// src/controller/api/routers.ts
import { randomUUID as randomUUID5 } from "node:crypto";

// src/controller/api/body.ts
function withBody(ctx, change) {
  return {
    ...ctx,
    json: async () => {
      const body = await ctx.json();
      return body && typeof body === "object" && !Array.isArray(body) ? change({ ...body }) : body;
    }
  };
}

// src/controller/api/fabric.ts
var routerDef = resource("transit-router");
var terminatorDef = resource("terminator");
function fabricRouter(r) {
  return {
    id: r.id,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    tags: r.tags,
    _links: { self: { href: `./routers/${r.id}` } },
    name: r.name,
    fingerprint: r.fingerprint,
    // Connected means holding a control channel to this controller; none can (docs/controller.md, "Online").
    connected: false,
    cost: r.cost,
    noTraversal: r.noTraversal,
    disabled: r.disabled,
    ctrlChanListeners: r.ctrlChanListeners,
    configs: r.configs,
    listenerAddresses: []
  };
}
function fabricTerminator(t) {
  const ref2 = (entityRef2, plural) => {
    const e = entityRef2;
    return { entity: plural, id: e.id, name: e.name, _links: { self: { href: `./${plural}/${e.id}` } } };
  };
  return {
    id: t.id,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    tags: t.tags,
    _links: { self: { href: `./terminators/${t.id}` } },
    serviceId: t.serviceId,
    service: ref2(t.service, "services"),
    routerId: t.routerId,
    router: ref2(t.router, "routers"),
    binding: t.binding,
    address: t.address,
    instanceId: t.identity,
    cost: t.cost,
    precedence: t.precedence,
    dynamicCost: t.dynamicCost,
    // The host that made the terminator: only routers and SDKs make them through a data plane; none here.
    hostId: ""
  };
}
function readOnly(rt, path6, def, shape) {
  const api = "fabric";
  const access = "admin";
  return [
    {
      method: "GET",
      path: path6,
      api,
      access,
      handler: async (ctx) => {
        const page = await listResource(rt, def, ctx);
        return { ...page, data: page.data.map(shape) };
      }
    },
    {
      method: "GET",
      path: `${path6}/{id}`,
      api,
      access,
      handler: async (ctx) => ({ data: shape((await rt.present(def, [await rt.store.repoFor(def).get(ctx.params.id)]))[0]) })
    }
  ];
}
function fabricRoutes(rt) {
  return [...readOnly(rt, "/routers", routerDef, fabricRouter), ...readOnly(rt, "/terminators", terminatorDef, fabricTerminator)];
}

// src/controller/api/routers.ts
var routerDef2 = resource("transit-router");
var SHARED_ROUTER_FIELDS = ["name", "cost", "noTraversal", "disabled", "configs", "ctrlChanListeners", "fingerprint", "isVerified", "unverifiedCertPem", "unverifiedFingerprint"];
async function routerEnrollment(rt, routerId, method, now) {
  const token = randomUUID5();
  const expires = new Date(now.getTime() + rt.config.enrollmentDurationMinutes * 6e4);
  const jwt = await rt.enrollmentSigner.sign({ em: method, sub: routerId, jti: token, exp: expires });
  return { enrollmentToken: token, enrollmentJwt: jwt, enrollmentCreatedAt: now.toISOString(), enrollmentExpiresAt: expires.toISOString() };
}
async function createRouterWithEnrollment(rt, def, ctx, method) {
  const body = await validBody(rt, def, "create", ctx);
  const id = newId();
  const enrollment3 = await routerEnrollment(rt, id, method, ctx.now);
  const hooks = rt.hooks(def.name);
  const now = ctx.now.toISOString();
  await rt.store.tx(async () => {
    const write2 = { verb: "create", values: body, now };
    write2.values = await hooks.beforeWrite?.(rt, write2) ?? write2.values;
    await rt.store.repoFor(def).insert({ ...write2.values, ...enrollment3 }, { id, now });
    await hooks.afterWrite?.(rt, { ...write2, id });
  });
  return created(def, id);
}
async function mirrorEdgeRouter(rt, edgeRouterId, now) {
  const edge = await rt.store.repo("edge-router").get(edgeRouterId);
  const values = { tags: edge.tags, isEdgeRouter: true };
  for (const field of SHARED_ROUTER_FIELDS) values[field] = edge[field] ?? null;
  const routers = rt.store.repoFor(routerDef2);
  const existing = await routers.find(edgeRouterId);
  if (existing) await routers.update(edgeRouterId, values, now);
  else await routers.insert(values, { id: edgeRouterId, now });
}
function presentRouterState(row) {
  const enrolled = row.isVerified === true;
  return {
    fingerprint: row.fingerprint ?? "",
    // Online means holding a control channel to this controller, which has none: never online (docs/controller.md).
    isOnline: false,
    // OpenZiti shows the outstanding enrollment only until the router has enrolled.
    ...enrolled ? { enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null } : {}
  };
}
function canNotUpdateEdgeRouter() {
  return new ApiError("CAN_NOT_UPDATE_ROUTER", {
    status: 409,
    message: "The router was not added via the Edge API and cannot be updated",
    cause: { field: "id", reason: "this router is an edge router: change it through /edge-routers", value: "" }
  });
}
async function deleteRouter(rt, ctx) {
  const existing = await rt.store.repoFor(routerDef2).get(ctx.params.id);
  const def = existing.isEdgeRouter ? resource("edge-router") : routerDef2;
  const hooks = rt.hooks(def.name);
  const row = existing.isEdgeRouter ? await rt.store.repoFor(def).get(existing.id) : existing;
  await rt.store.tx(async () => {
    await hooks.beforeDelete?.(rt, row);
    await rt.store.repoFor(def).delete(row.id);
    await hooks.afterDelete?.(rt, row);
  });
  return { data: {} };
}
function guardEdgeRow(body, existing) {
  if (existing.isEdgeRouter) throw canNotUpdateEdgeRouter();
  return body;
}
var EDGE_ONLY_FIELDS = ["roleAttributes", "appData", "isTunnelerEnabled"];
function withoutEdgeFields(ctx) {
  return withBody(ctx, (body) => {
    for (const field of EDGE_ONLY_FIELDS) delete body[field];
    return body;
  });
}
function routerRoutes(rt) {
  const api = "management";
  const access = "admin";
  const routes = [];
  const resource2 = routerDef2.name;
  for (const base of ["/transit-routers", "/routers"]) {
    const item = `${base}/{id}`;
    const alias = base === "/routers";
    const describes = (answer2, body) => alias ? { describes: { resource: resource2, answer: answer2, ...body ? { body } : {} } } : {};
    routes.push(
      { method: "POST", path: base, api, access, handler: (ctx) => createRouterWithEnrollment(rt, routerDef2, withoutEdgeFields(ctx), "trott"), ...describes("created", "create") },
      { method: "PUT", path: item, api, access, handler: (ctx) => updateResource(rt, routerDef2, withoutEdgeFields(ctx), "replace", guardEdgeRow), ...describes("empty", "replace") },
      { method: "PATCH", path: item, api, access, handler: (ctx) => updateResource(rt, routerDef2, withoutEdgeFields(ctx), "patch", guardEdgeRow), ...describes("empty", "patch") },
      { method: "DELETE", path: item, api, access, handler: (ctx) => deleteRouter(rt, ctx), ...describes("empty") }
    );
  }
  routes.push(
    { method: "GET", path: "/routers", api, access, handler: (ctx) => listResource(rt, routerDef2, ctx), describes: { resource: resource2, answer: "list" } },
    {
      method: "GET",
      path: "/routers/{id}",
      api,
      access,
      handler: async (ctx) => ({ data: (await rt.present(routerDef2, [await rt.store.repoFor(routerDef2).get(ctx.params.id)]))[0] }),
      describes: { resource: resource2, answer: "detail" }
    }
  );
  return routes;
}
var routerBehaviour = {
  resource: "transit-router",
  // The fabric API's read-only routers and terminators come with the routers (src/controller/api/fabric.ts).
  routes: (rt) => [...routerRoutes(rt), ...fabricRoutes(rt)],
  present: (rows) => rows.map((row) => ({ ...toWire(routerDef2, row), ...presentRouterState(row) }))
};

// src/controller/api/edge-routers.ts
var edgeRouter3 = resource("edge-router");
function systemPolicyName(routerId) {
  return `edge-router-${routerId}-system`;
}
async function insertWithHooks(rt, name, values, id, now, isSystem = false) {
  const hooks = rt.hooks(name);
  const write2 = { verb: "create", values, now };
  write2.values = await hooks.beforeWrite?.(rt, write2) ?? write2.values;
  await rt.store.repo(name).insert(write2.values, { id, now, isSystem });
  await hooks.afterWrite?.(rt, { ...write2, id });
}
async function deleteWithHooks(rt, name, row) {
  const hooks = rt.hooks(name);
  await hooks.beforeDelete?.(rt, row);
  await rt.store.repo(name).delete(row.id);
  await hooks.afterDelete?.(rt, row);
}
async function enableTunneler(rt, router3, now) {
  const id = router3.id;
  if (await rt.store.repo("identity").exists({ name: router3.name })) {
    throw invalidField("isTunnelerEnabled", `a tunneler-enabled router gets an identity named after it, and an identity named '${router3.name}' exists already`, true);
  }
  await insertWithHooks(rt, "identity", { name: router3.name, type: "Router", isAdmin: false }, id, now);
  const policy = { name: systemPolicyName(id), semantic: "AnyOf", identityRoles: [`@${id}`], edgeRouterRoles: [`@${id}`] };
  await insertWithHooks(rt, "edge-router-policy", policy, id, now, true);
}
async function disableTunneler(rt, routerId) {
  const policy = await rt.store.repo("edge-router-policy").find(routerId);
  if (policy?.isSystem) await deleteWithHooks(rt, "edge-router-policy", policy);
  const identity8 = await rt.store.repo("identity").find(routerId);
  if (identity8?.type === "Router") await deleteWithHooks(rt, "identity", identity8);
}
async function renameRouterIdentity(rt, routerId, name, now) {
  const identity8 = await rt.store.repo("identity").find(routerId);
  if (!identity8 || identity8.type !== "Router" || identity8.name === name) return;
  const hooks = rt.hooks("identity");
  const write2 = { verb: "patch", values: { name }, existing: identity8, now };
  write2.values = await hooks.beforeWrite?.(rt, write2) ?? write2.values;
  await rt.store.repo("identity").update(routerId, write2.values, now);
  await hooks.afterWrite?.(rt, { ...write2, id: routerId });
}
async function afterWrite(rt, write2) {
  await mirrorEdgeRouter(rt, write2.id, write2.now);
  const router3 = await rt.store.repo("edge-router").get(write2.id);
  const was = write2.existing?.isTunnelerEnabled === true;
  const is = router3.isTunnelerEnabled === true;
  if (!was && is) await enableTunneler(rt, router3, write2.now);
  else if (was && !is) await disableTunneler(rt, router3.id);
  else if (is && write2.existing && write2.existing.name !== router3.name) await renameRouterIdentity(rt, router3.id, router3.name, write2.now);
}
async function afterDelete(rt, row) {
  if (row.isTunnelerEnabled) await disableTunneler(rt, row.id);
  const routers = rt.store.repo("transit-router");
  if (await routers.find(row.id)) await routers.delete(row.id);
}
async function reEnroll2(rt, ctx) {
  const existing = await rt.store.repoFor(edgeRouter3).get(ctx.params.id);
  const enrollment3 = await routerEnrollment(rt, existing.id, "erott", ctx.now);
  const now = ctx.now.toISOString();
  const values = { ...enrollment3, fingerprint: null, certPem: null, unverifiedCertPem: null, unverifiedFingerprint: null, isVerified: false };
  const hooks = rt.hooks(edgeRouter3.name);
  await rt.store.tx(async () => {
    await rt.store.repoFor(edgeRouter3).update(existing.id, values, now);
    await hooks.afterWrite?.(rt, { verb: "patch", values, existing, now, id: existing.id });
  });
  return { data: {} };
}
function edgeRouterRoutes(rt) {
  const api = "management";
  return [
    { method: "POST", path: "/edge-routers", api, access: "admin", handler: (ctx) => createRouterWithEnrollment(rt, edgeRouter3, ctx, "erott") },
    {
      method: "POST",
      path: "/edge-routers/{id}/re-enroll",
      api,
      access: "admin",
      handler: (ctx) => reEnroll2(rt, ctx),
      operationId: "reEnrollEdgeRouter",
      describes: { resource: "edge-router", answer: "empty" }
    }
  ];
}
var NEVER_CONNECTED = {
  hostname: "",
  syncStatus: "SYNC_UNKNOWN",
  supportedProtocols: {},
  versionInfo: { os: "", arch: "", version: "", revision: "", buildDate: "" }
};
var edgeRouterBehaviour = {
  resource: "edge-router",
  routes: edgeRouterRoutes,
  hooks: { afterWrite, afterDelete },
  present: (rows) => rows.map((row) => ({ ...toWire(edgeRouter3, row), ...presentRouterState(row), ...NEVER_CONNECTED }))
};

// src/controller/api/identities.ts
var identity5 = resource("identity");
var identityType2 = resource("identity-type");
var authPolicy2 = resource("auth-policy");
var DISABLE_SCHEMA = {
  type: "object",
  // At most 100 years, so disabledUntil stays a sane date; 0 disables until enabled.
  properties: { durationMinutes: { type: "integer", minimum: 0, maximum: 5256e4 } },
  required: ["durationMinutes"],
  additionalProperties: false
};
function storedType(body) {
  return withoutEmptyExternalId(body.type === void 0 ? body : { ...body, type: "Default" });
}
function withoutEmptyExternalId(body) {
  return body.externalId === "" ? { ...body, externalId: null } : body;
}
function guardUpdate(body, existing) {
  if (existing.isDefaultAdmin && body.isAdmin === false) {
    throw new ApiError("ENTITY_CAN_NOT_BE_UPDATED", {
      message: "the default admin cannot lose its admin rights",
      cause: { field: "isAdmin", reason: "the default admin must stay an admin", value: "false" }
    });
  }
  if (existing.type === "Router") {
    if (body.type !== void 0 && body.type !== "Router") throw invalidField("type", "is Router for a tunneler router's identity, and stays so", body.type);
    const { type: _, ...rest } = body;
    return rest;
  }
  return storedType(body);
}
function identityRoutes(rt) {
  const api = "management";
  return [
    { method: "POST", path: "/identities", api, access: "admin", handler: (ctx) => createIdentity(rt, ctx) },
    { method: "PUT", path: "/identities/{id}", api, access: "admin", handler: (ctx) => updateResource(rt, identity5, ctx, "replace", guardUpdate) },
    { method: "PATCH", path: "/identities/{id}", api, access: "admin", handler: (ctx) => updateResource(rt, identity5, ctx, "patch", guardUpdate) },
    { method: "DELETE", path: "/identities/{id}", api, access: "admin", handler: (ctx) => deleteIdentity(rt, ctx) },
    { method: "POST", path: "/identities/{id}/disable", api, access: "admin", handler: (ctx) => disableIdentity(rt, ctx) },
    { method: "POST", path: "/identities/{id}/enable", api, access: "admin", handler: (ctx) => enableIdentity(rt, ctx) }
  ];
}
async function createIdentity(rt, ctx) {
  const body = await validBody(rt, identity5, "create", ctx);
  const enrollmentRequest = parseEnrollmentRequest(body.enrollment);
  const id = newId();
  const enrollment3 = enrollmentRequest && await prepareEnrollment(rt, id, enrollmentRequest, ctx.now);
  const now = ctx.now.toISOString();
  await rt.store.tx(async () => {
    await rt.store.repoFor(identity5).insert(storedType(body), { id, now });
    if (enrollment3) await insertEnrollment(rt, id, enrollment3, now);
  });
  return created(identity5, id);
}
async function deleteIdentity(rt, ctx) {
  const existing = await rt.store.repoFor(identity5).get(ctx.params.id);
  if (existing.isDefaultAdmin) throw new ApiError("ENTITY_CAN_NOT_BE_DELETED", { message: "the default admin cannot be deleted" });
  if (existing.type === "Router" && await rt.store.repo("edge-router").exists({ id: existing.id })) {
    throw new ApiError("CAN_NOT_DELETE_REFERENCED_ENTITY", {
      message: `the identity '${existing.id}' is the tunneler identity of edge router '${existing.id}'; delete the router or turn its tunneler off`,
      cause: { field: "id", reason: "the identity of a tunneler-enabled edge router", value: existing.id }
    });
  }
  await rt.store.tx(() => rt.store.repoFor(identity5).delete(existing.id));
  return { data: {} };
}
async function disableIdentity(rt, ctx) {
  const existing = await rt.store.repoFor(identity5).get(ctx.params.id);
  const { durationMinutes } = rt.validators.custom(DISABLE_SCHEMA, await ctx.json());
  if (existing.id === ctx.principal?.identityId) {
    throw invalidField("id", "an identity cannot disable itself (it would end the session doing it)", existing.id);
  }
  const now = ctx.now.toISOString();
  const until = durationMinutes === 0 ? null : new Date(ctx.now.getTime() + durationMinutes * 6e4).toISOString();
  await rt.store.tx(async () => {
    await rt.store.repoFor(identity5).update(existing.id, { disabledAt: now, disabledUntil: until }, now);
    await rt.apiSessions.deleteForIdentity(existing.id);
  });
  return { data: {} };
}
async function enableIdentity(rt, ctx) {
  const existing = await rt.store.repoFor(identity5).get(ctx.params.id);
  await rt.store.repoFor(identity5).update(existing.id, { disabledAt: null, disabledUntil: null }, ctx.now.toISOString());
  return { data: {} };
}
async function presentIdentities(rows, rt) {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const { store } = rt;
  const authenticators = await store.repo("authenticator").findAll({ identityId: ids }, { columns: ["identityId", "method", "username", "fingerprint"] });
  const enrollments = await store.repo("enrollment").findAll({ identityId: ids }, { columns: ["identityId", "method", "token", "jwt", "expiresAt", "caId"] });
  const caIds = [...new Set(enrollments.flatMap((e) => typeof e.caId === "string" ? [e.caId] : []))];
  const caNames = new Map(caIds.length ? (await store.repo("ca").findAll({ id: caIds }, { columns: ["name"] })).map((c) => [c.id, c.name]) : []);
  const withSession = new Set(await store.repo("api-session").distinct("identityId", { identityId: ids }));
  const now = rt.clock();
  return rows.map((row) => {
    const wire = toWire(identity5, row);
    const auth = {};
    for (const a of authenticators.filter((x) => x.identityId === row.id)) {
      if (a.method === "updb") auth.updb = { id: a.id, username: a.username };
      if (a.method === "cert") auth.cert = { id: a.id, fingerprint: a.fingerprint };
    }
    const enrollment3 = {};
    for (const e of enrollments.filter((x) => x.identityId === row.id)) {
      const served = { id: e.id, jwt: e.jwt, token: e.token, expiresAt: e.expiresAt };
      if (e.method === "ottca" && typeof e.caId === "string") Object.assign(served, { caId: e.caId, ca: entityRef(resource("ca"), e.caId, caNames.get(e.caId)) });
      enrollment3[e.method] = served;
    }
    const links2 = wire._links;
    links2["auth-policies"] = { href: `./auth-policies/${row.authPolicyId}` };
    return {
      ...wire,
      typeId: row.type,
      type: entityRef(identityType2, row.type, row.type),
      authPolicy: entityRef(authPolicy2, row.authPolicyId, row.refNames.authPolicyId),
      disabled: isDisabled(row, now),
      authenticators: auth,
      enrollment: enrollment3,
      hasApiSession: withSession.has(row.id),
      isMfaEnabled: false,
      hasEdgeRouterConnection: false,
      edgeRouterConnectionStatus: "offline",
      permissions: []
    };
  });
}
var identityBehaviour = { resource: "identity", routes: identityRoutes, present: presentIdentities };

// src/controller/api/terminators.ts
var terminator2 = resource("terminator");
var service3 = resource("service");
var router2 = resource("transit-router");
var BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
async function beforeWrite2(_rt, write2) {
  const secret = write2.values.identitySecret;
  if (typeof secret === "string" && !BASE64.test(secret)) throw invalidField("identitySecret", "must be base64 (standard alphabet, padded)", secret);
}
async function presentTerminators(rows, rt) {
  if (rows.length === 0) return [];
  const names = async (def, ids) => new Map((await rt.store.repoFor(def).findAll({ id: [...new Set(ids)] }, { columns: ["name"] })).map((r) => [r.id, r.name]));
  const serviceNames = await names(service3, rows.map((r) => r.service));
  const routerNames = await names(router2, rows.map((r) => r.router));
  return rows.map((row) => {
    const serviceId = row.service;
    const routerId = row.router;
    return {
      ...toWire(terminator2, row),
      service: entityRef(service3, serviceId, serviceNames.get(serviceId)),
      serviceId,
      router: entityRef(router2, routerId, routerNames.get(routerId)),
      routerId,
      // No circuits pass through this controller, so nothing raises the cost above the static one.
      dynamicCost: row.cost
    };
  });
}
function emptyPrecedence(body) {
  if (body.precedence === "") delete body.precedence;
  return body;
}
async function update(rt, ctx, verb) {
  const existing = await rt.store.repoFor(terminator2).get(ctx.params.id);
  const body = withBody(ctx, (b) => {
    if (b.identity === "" || b.identity === existing.identity) delete b.identity;
    if (b.identitySecret === "") delete b.identitySecret;
    return emptyPrecedence(b);
  });
  return updateResource(rt, terminator2, body, verb);
}
function terminatorRoutes(rt) {
  const api = "management";
  const access = "admin";
  return [
    { method: "POST", path: "/terminators", api, access, handler: (ctx) => createResource(rt, terminator2, withBody(ctx, emptyPrecedence)) },
    { method: "PUT", path: "/terminators/{id}", api, access, handler: (ctx) => update(rt, ctx, "replace") },
    { method: "PATCH", path: "/terminators/{id}", api, access, handler: (ctx) => update(rt, ctx, "patch") }
  ];
}
var terminatorBehaviour = {
  resource: "terminator",
  routes: terminatorRoutes,
  hooks: { beforeWrite: beforeWrite2 },
  present: presentTerminators
};

// src/controller/server/openapi.ts
var ref = (name) => ({ $ref: `#/definitions/${name}` });
var pascal = (name) => name.replace(/(^|-)(\w)/g, (_, __, c) => c.toUpperCase());
var camel = (name) => name.replace(/-(\w)/g, (_, c) => c.toUpperCase());
function commonDefinitions() {
  const string = { type: "string" };
  return {
    link: { type: "object", properties: { href: string, method: string, comment: string }, required: ["href"] },
    links: { type: "object", description: "Named links", additionalProperties: ref("link") },
    entityRef: {
      type: "object",
      description: "A reference to another entity: its kind (the plural of its path), id, name and links",
      properties: { entity: string, id: string, name: string, _links: ref("links") },
      required: ["entity", "id", "name", "_links"]
    },
    // Tag values are null, strings, booleans or numbers; Swagger 2.0 cannot say "one of these types".
    tags: { type: "object", description: "User-defined tags: values are null, strings, booleans or numbers", additionalProperties: {}, "x-nullable": true },
    pagination: {
      type: "object",
      properties: { limit: { type: "integer" }, offset: { type: "integer" }, totalCount: { type: "integer" } },
      required: ["limit", "offset", "totalCount"]
    },
    meta: {
      type: "object",
      properties: { apiVersion: string, apiEnrollmentVersion: string, pagination: ref("pagination"), filterableFields: { type: "array", items: string } }
    },
    listMeta: {
      type: "object",
      description: "The meta of a paged list",
      properties: { pagination: ref("pagination"), filterableFields: { type: "array", items: string } },
      required: ["pagination", "filterableFields"]
    },
    empty: { type: "object", properties: { data: { type: "object" }, meta: ref("meta") }, required: ["data", "meta"] },
    createLocation: { type: "object", properties: { id: string, _links: ref("links") }, required: ["id", "_links"] },
    createEnvelope: { type: "object", properties: { data: ref("createLocation"), meta: ref("meta") }, required: ["data", "meta"] },
    apiError: {
      type: "object",
      properties: { code: string, message: string, requestId: string, cause: { type: "object" } },
      required: ["code", "message", "requestId"]
    },
    apiErrorEnvelope: {
      type: "object",
      properties: {
        error: ref("apiError"),
        meta: { type: "object", properties: { apiVersion: string, apiEnrollmentVersion: string }, required: ["apiVersion", "apiEnrollmentVersion"] }
      },
      required: ["error", "meta"]
    },
    version: {
      type: "object",
      properties: {
        version: string,
        revision: string,
        buildDate: string,
        runtimeVersion: string,
        capabilities: { type: "array", items: string },
        apiVersions: {
          type: "object",
          additionalProperties: {
            type: "object",
            additionalProperties: {
              type: "object",
              properties: { path: string, version: string, apiBaseUrls: { type: "array", items: string } },
              required: ["path"]
            }
          }
        }
      },
      required: ["version", "revision", "runtimeVersion", "apiVersions"]
    },
    enrollmentCerts: {
      type: "object",
      properties: { ca: string, cert: string, serverCert: string }
    },
    specDetail: {
      type: "object",
      properties: {
        id: string,
        name: string,
        createdAt: { type: "string", format: "date-time" },
        updatedAt: { type: "string", format: "date-time" },
        tags: ref("tags"),
        _links: ref("links")
      },
      required: ["id", "name", "createdAt", "updatedAt", "_links"]
    }
  };
}
var Responses = class {
  constructor(definitions) {
    this.definitions = definitions;
  }
  envelope(name, data, meta = "meta") {
    this.definitions[name] ??= { type: "object", properties: { data, meta: ref(meta) }, required: ["data", "meta"] };
    return ref(name);
  }
  readModel(def) {
    const name = `${camel(def.name)}Detail`;
    this.definitions[name] ??= readSchema(def);
    return ref(name);
  }
  detail(def) {
    return { status: 200, description: `one ${def.label}`, schema: this.envelope(`detail${pascal(def.name)}Envelope`, this.readModel(def)) };
  }
  list(def) {
    const data = { type: "array", items: this.readModel(def) };
    return { status: 200, description: `a page of ${def.plural}`, schema: this.envelope(`list${pascal(def.plural)}Envelope`, data, "listMeta"), paged: true };
  }
  data(name, description, data, meta) {
    return { status: 200, description, schema: this.envelope(name, data, meta) };
  }
  /** The client API's anonymous signer list: the management read model cut down to what anonymous callers see. */
  clientSigners() {
    const full = readSchema(resource("external-jwt-signer"));
    const keep = /* @__PURE__ */ new Set(["id", "createdAt", "updatedAt", "tags", "_links", ...CLIENT_VIEW_FIELDS]);
    const properties = Object.fromEntries(Object.entries(full.properties).filter(([name]) => keep.has(name)));
    this.definitions.clientExternalJwtSignerDetail ??= { ...full, properties, required: [...keep].filter((name) => name !== "tags") };
    const data = { type: "array", items: ref("clientExternalJwtSignerDetail") };
    return this.data("listClientExternalJwtSignersEnvelope", "the enabled external JWT signers, as anonymous callers see them", data, "listMeta");
  }
  created(def) {
    return { status: 201, description: `the ${def.label} was created`, schema: ref("createEnvelope") };
  }
  empty(description) {
    return { status: 200, description, schema: ref("empty") };
  }
  /**
   * The success response of a route: the routes handlers add (by method and path), then the standard group,
   * relation sub-lists and role-attribute lists of the catalogue. Undefined for a route nobody described.
   */
  of(route) {
    if (route.describes) {
      const def = resource(route.describes.resource);
      const answer2 = route.describes.answer;
      return answer2 === "empty" ? this.empty(`done (${def.label})`) : this[answer2](def);
    }
    const key = `${route.method} ${route.path}`;
    const apiSession4 = resource("api-session");
    if (key === "GET /external-jwt-signers" && route.api === "client") return { ...this.clientSigners(), paged: true };
    switch (key) {
      case "GET /":
      case "GET /version":
        return this.data("detailVersionEnvelope", "the controller version and API bases", ref("version"));
      case "GET /.well-known/est/cacerts":
        return { status: 200, description: "the CA bundle, certs-only PKCS#7 in base64", schema: { type: "string" }, produces: ["application/pkcs7-mime"] };
      case "GET /enumerated-capabilities":
        return this.data("listEnumeratedCapabilitiesEnvelope", "capabilities this controller knows of", { type: "array", items: { type: "string" } });
      case "GET /specs":
        return this.data("listSpecsEnvelope", "the API documents served", { type: "array", items: ref("specDetail") });
      case "GET /specs/{id}":
        return this.data("detailSpecEnvelope", "one API document", ref("specDetail"));
      case "GET /specs/{id}/spec":
        return {
          status: 200,
          description: "the Swagger 2.0 document itself (not an envelope)",
          schema: { type: "object", properties: { swagger: { type: "string" }, paths: { type: "object" } }, required: ["swagger", "paths"] }
        };
      case "GET /summary":
        return this.data("listSummaryCountsEnvelope", "the number of entities of each resource", { type: "object", additionalProperties: { type: "integer" } });
      case "POST /authenticate":
      case "GET /current-api-session":
        return { ...this.detail(apiSession4), description: "the API session, with its token" };
      case "DELETE /current-api-session":
        return this.empty("the session ended");
      case "GET /current-identity":
        return this.detail(resource("identity"));
      case "GET /current-identity/authenticators":
        return this.list(resource("authenticator"));
      case "GET /current-identity/authenticators/{id}":
        return this.detail(resource("authenticator"));
      case "PUT /current-identity/authenticators/{id}":
      case "PATCH /current-identity/authenticators/{id}":
        return this.empty("the authenticator was updated");
      case "POST /identities/{id}/disable":
        return this.empty("the identity was disabled");
      case "POST /identities/{id}/enable":
        return this.empty("the identity was enabled");
      case "PUT /identities/{id}/trace":
        return this.data("traceDetailEnvelope", "the trace now recorded for the identity", {
          type: "object",
          properties: { enabled: { type: "boolean" }, traceId: { type: "string" }, until: { type: "string", format: "date-time" } },
          required: ["enabled"]
        });
      case "GET /identities/{id}/posture-data": {
        const base = { postureCheckId: { type: "string" }, timedOut: { type: "boolean" }, lastUpdatedAt: { type: "string", format: "date-time" } };
        const piece = (own) => ({ type: "object", properties: { ...base, ...own }, required: [...Object.keys(base), ...Object.keys(own)] });
        const text2 = { type: "string" };
        return this.data("postureDataEnvelope", "the posture its clients last reported (zero values until they report)", {
          type: "object",
          properties: {
            os: piece({ type: text2, version: text2, build: text2 }),
            mac: piece({ addresses: { type: "array", items: text2 } }),
            domain: piece({ domain: text2 }),
            processes: { type: "array", items: { type: "object" } },
            apiSessionPostureData: { type: "object" }
          },
          required: ["os", "mac", "domain", "processes", "apiSessionPostureData"]
        });
      }
      case "GET /identities/{id}/failed-service-requests":
        return this.data("failedServiceRequestEnvelope", "service requests refused on posture (none until posture is evaluated)", { type: "array", items: { type: "object" } });
      case "GET /current-identity/edge-routers":
        return this.list(resource("edge-router"));
      case "GET /identities/{id}/policy-advice/{serviceId}": {
        const ref2 = { $ref: "#/definitions/entityRef" };
        const count = { type: "integer" };
        return this.data("getIdentityPolicyAdviceEnvelope", "whether the identity can dial and bind the service, and the edge routers they share", {
          type: "object",
          properties: {
            identityId: { type: "string" },
            identity: ref2,
            serviceId: { type: "string" },
            service: ref2,
            isDialAllowed: { type: "boolean" },
            isBindAllowed: { type: "boolean" },
            identityRouterCount: count,
            serviceRouterCount: count,
            commonRouters: { type: "array", items: { allOf: [ref2, { type: "object", properties: { isOnline: { type: "boolean" } }, required: ["isOnline"] }] } }
          },
          required: ["identityId", "identity", "serviceId", "service", "isDialAllowed", "isBindAllowed", "identityRouterCount", "serviceRouterCount", "commonRouters"]
        });
      }
      case "GET /sessions/{id}/route-path":
        return this.data("detailSessionRoutePathEnvelope", "the routers of the session's circuit (none without a data plane)", {
          type: "object",
          properties: { routePath: { type: "array", items: { type: "string" } } },
          required: ["routePath"]
        });
      case "POST /database/check-data-integrity":
      case "POST /database/fix-data-integrity":
        return { ...this.empty("the check started; read its results at /database/data-integrity-results"), status: 202 };
      case "GET /database/data-integrity-results":
        return this.data("dataIntegrityCheckResultEnvelope", "the progress and findings of the last check", integrityResults(), "listMeta");
      case "POST /database/snapshot":
        return this.data("databaseSnapshotEnvelope", "the snapshot was written (SQLite); its path", {
          type: "object",
          properties: { path: { type: "string" } },
          required: ["path"]
        });
      case "POST /identities/{id}/service-configs":
        return this.empty("the identity's service configs were set");
      case "DELETE /identities/{id}/service-configs":
        return this.empty("the identity's service configs were removed");
      case "POST /enroll":
      case "POST /enroll/ott":
        return this.data("enrollmentCertsEnvelope", "the issued client certificate chain and the CA bundle", ref("enrollmentCerts"));
      case "POST /enroll/erott":
      case "POST /enroll/extend/router":
        return this.data("enrollmentCertsEnvelope", "the router's client and server certificate chains and the CA bundle", ref("enrollmentCerts"));
      case "POST /enroll/ca":
        return this.empty("an identity was created for the client certificate");
      case "POST /enroll/ottca":
        return this.empty("the client certificate is now the identity's");
      case "POST /enroll/updb":
        return this.data("enrollUpdbEnvelope", "the username the identity logs in with", { type: "object", properties: { username: { type: "string" } } });
      case "GET /network-jwts":
        return this.data("listNetworkJWTsEnvelope", "JWTs naming this controller, signed by its certificate", {
          type: "array",
          items: { type: "object", properties: { name: { type: "string" }, token: { type: "string" } }, required: ["name", "token"] }
        });
      case "GET /enroll/jwks":
        return { status: 200, description: "the keys that sign enrollment JWTs (not an envelope)", schema: { type: "object", properties: { keys: { type: "array", items: { type: "object" } } }, required: ["keys"] } };
      case "POST /cas/{id}/verify":
        return this.empty("the CA is verified");
      case "GET /cas/{id}/jwt":
        return { status: 200, description: "the CA's enrollment JWT", schema: { type: "string" }, produces: ["application/jwt"] };
      case "POST /current-identity/authenticators/{id}/extend":
        return this.data("identityExtendEnrollmentEnvelope", "the new client certificate and the CA bundle", {
          type: "object",
          properties: { ca: { type: "string" }, clientCert: { type: "string" } },
          required: ["ca", "clientCert"]
        });
      case "POST /current-identity/authenticators/{id}/extend-verify":
        return this.empty("the new certificate replaces the old one");
      case "POST /authenticators/{id}/re-enroll":
        return { status: 201, description: "the authenticator is gone; the enrollment that replaces it", schema: ref("createEnvelope") };
      case "POST /enrollments/{id}/refresh":
        return { status: 200, description: "the enrollment has a new token and JWT", schema: ref("createEnvelope") };
    }
    return this.standard(route);
  }
  standard(route) {
    const [first, id, sub, ...rest] = route.path.split("/").filter(Boolean);
    if (rest.length > 0) return void 0;
    const attributesOf = CATALOGUE.find((r) => r.roleAttributes?.listPath === first);
    if (attributesOf && route.method === "GET" && id === void 0) {
      return { ...this.data("listRoleAttributesEnvelope", "role attributes in use", { type: "array", items: { type: "string" } }, "listMeta"), paged: true };
    }
    const def = CATALOGUE.find((r) => r.plural === first);
    if (!def) return void 0;
    if (id === void 0) {
      if (route.method === "GET") return this.list(def);
      if (route.method === "POST") return this.created(def);
      return void 0;
    }
    if (id !== "{id}") return void 0;
    if (sub === void 0) {
      if (route.method === "GET") return this.detail(def);
      if (route.method === "PUT" || route.method === "PATCH") return this.empty(`the ${def.label} was updated`);
      if (route.method === "DELETE") return this.empty(`the ${def.label} was deleted`);
      return void 0;
    }
    const relation = def.relations?.[sub];
    return relation && route.method === "GET" ? this.list(resource(relation.resource)) : void 0;
  }
};
function integrityResults() {
  const time2 = { type: "string", format: "date-time", "x-nullable": true };
  return {
    type: "object",
    properties: {
      inProgress: { type: "boolean" },
      fixingErrors: { type: "boolean" },
      tooManyErrors: { type: "boolean" },
      startTime: time2,
      endTime: time2,
      error: { type: "string", description: "why the check failed; empty when it did not" },
      results: {
        type: "array",
        items: { type: "object", properties: { description: { type: "string" }, fixed: { type: "boolean" } }, required: ["description", "fixed"] }
      }
    },
    required: ["inProgress", "fixingErrors", "tooManyErrors", "startTime", "endTime", "error", "results"]
  };
}
function errorResponses(route, success) {
  const error = (description) => ({ description, schema: ref("apiErrorEnvelope") });
  const out = {};
  if (route.method === "POST" || route.method === "PUT" || route.method === "PATCH" || success?.paged) {
    out["400"] = error("the request was not valid (body, filter, paging)");
  }
  if (route.access !== "public") out["401"] = error("no valid session, or not allowed");
  if (route.path.includes("{")) out["404"] = error("no entity with that id");
  out.default = error("an error (wire-protocol section 2)");
  return out;
}
function buildSpec(api, routes, version) {
  const definitions = commonDefinitions();
  const responses = new Responses(definitions);
  const paths = {};
  for (const route of [...routes].sort((a, b) => a.path.localeCompare(b.path))) {
    const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, type: "string" }));
    const success = responses.of(route);
    const op = {
      operationId: route.operationId ?? operationId(route),
      parameters: params,
      responses: {
        ...success ? { [String(success.status)]: { description: success.description, schema: success.schema } } : {},
        ...errorResponses(route, success)
      },
      security: route.access === "public" ? [] : [{ ztSession: [] }]
    };
    if (success?.produces) op.produces = success.produces;
    const def = CATALOGUE.find((r) => r.plural === route.path.split("/").filter(Boolean)[0]);
    if (route.describes?.body) {
      params.push({ name: "body", in: "body", required: true, schema: bodySchema(resource(route.describes.resource), route.describes.body) });
    } else if (def) {
      const isItem = route.path === `/${def.plural}/{id}`;
      const isList2 = route.path === `/${def.plural}`;
      const verb = route.method === "POST" && isList2 ? "create" : route.method === "PUT" && isItem ? "replace" : route.method === "PATCH" && isItem ? "patch" : void 0;
      if (verb) params.push({ name: "body", in: "body", required: true, schema: bodySchema(def, verb) });
    }
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = op;
  }
  return {
    swagger: "2.0",
    info: { title: api === "management" ? "Edge Management API" : "Edge Client API", version },
    basePath: api === "management" ? MANAGEMENT_BASE : CLIENT_BASE,
    schemes: ["https"],
    consumes: ["application/json"],
    produces: ["application/json"],
    securityDefinitions: { ztSession: { type: "apiKey", in: "header", name: "zt-session" } },
    paths,
    definitions
  };
}
function operationId(route) {
  const words = route.path.split("/").filter(Boolean).map((s) => s.startsWith("{") ? "by-id" : s);
  return camel(`${route.method.toLowerCase()}-${words.join("-")}`);
}

// src/controller/api/meta.ts
var KNOWN_CAPABILITIES = ["OIDC_AUTH", "HA_CONTROLLER"];
var SPECS = [
  { id: "edge-client", name: "Edge Client API", api: "client" },
  { id: "edge-management", name: "Edge Management API", api: "management" }
];
function metaRoutes(rt, routesOf, started) {
  const version = () => ({ data: versionInfo(rt) });
  const cacerts = () => ({
    raw: certsOnlyPkcs7Base64([rt.pki.caBundlePem]),
    contentType: "application/pkcs7-mime",
    headers: { "content-transfer-encoding": "base64" }
  });
  const specEntity = (s) => ({
    id: s.id,
    name: s.name,
    createdAt: started.toISOString(),
    updatedAt: started.toISOString(),
    tags: {},
    _links: { self: { href: `./specs/${s.id}` }, spec: { href: `./specs/${s.id}/spec` } }
  });
  const findSpec = (ctx) => {
    const s = SPECS.find((x) => x.id === ctx.params.id);
    if (!s) throw notFound("spec", ctx.params.id);
    return s;
  };
  return [
    { method: "GET", path: "/", api: "both", access: "public", handler: version },
    { method: "GET", path: "/version", api: "both", access: "public", handler: version },
    { method: "GET", path: "/.well-known/est/cacerts", api: "both", access: "public", handler: cacerts },
    { method: "GET", path: "/enumerated-capabilities", api: "both", access: "public", handler: () => ({ data: KNOWN_CAPABILITIES }) },
    { method: "GET", path: "/specs", api: "both", access: "public", handler: () => ({ data: SPECS.map(specEntity) }) },
    { method: "GET", path: "/specs/{id}", api: "both", access: "public", handler: (ctx) => ({ data: specEntity(findSpec(ctx)) }) },
    {
      method: "GET",
      path: "/specs/{id}/spec",
      api: "both",
      access: "public",
      handler: (ctx) => {
        const s = findSpec(ctx);
        return { raw: JSON.stringify(buildSpec(s.api, routesOf(s.api), rt.config.version)), contentType: "application/json" };
      }
    },
    { method: "GET", path: "/summary", api: "management", access: "admin", handler: async () => ({ data: await summary(rt) }) }
  ];
}
var OPENZITI_API_RELEASE = "2.0.3";
function versionInfo(rt) {
  const base = rt.config.publicUrl;
  const binding = (path6) => ({ v1: { path: path6, apiBaseUrls: [`${base}${path6}`], version: rt.config.version } });
  return {
    version: `v${OPENZITI_API_RELEASE}`,
    revision: `ctl v${rt.config.version}`,
    buildDate: "",
    runtimeVersion: process.version,
    capabilities: [],
    apiVersions: {
      edge: binding(CLIENT_BASE),
      "edge-client": binding(CLIENT_BASE),
      "edge-management": binding(MANAGEMENT_BASE),
      fabric: binding(FABRIC_BASE)
    }
  };
}
async function summary(rt) {
  const out = {};
  for (const def of CATALOGUE) out[summaryKey(def)] = await rt.store.repoFor(def).count();
  return out;
}
function summaryKey(def) {
  return def.summaryKey ?? def.plural.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
}

// src/controller/api/policies.ts
function roleSets(def) {
  return Object.entries(def.fields).flatMap(([name, f]) => f.type.kind === "roles" ? [[name, resource(f.type.resource)]] : []);
}
async function presentPolicies(def, rows, rt) {
  const out = rows.map((row) => toWire(def, row));
  for (const [field, target] of roleSets(def)) {
    const ids = [...new Set(rows.flatMap((row) => (row[field] ?? []).filter((r) => r.startsWith("@")).map((r) => r.slice(1))))];
    const names = /* @__PURE__ */ new Map();
    if (ids.length) for (const e of await rt.store.repoFor(target).findAll({ id: ids }, { columns: ["name"] })) names.set(e.id, e.name);
    rows.forEach((row, i) => {
      const roles = row[field] ?? [];
      out[i][`${field}Display`] = roles.map((role) => ({ role, name: role.startsWith("@") ? `@${names.get(role.slice(1)) ?? "UNKNOWN"}` : role }));
    });
  }
  return out;
}
function policyBehaviour(name) {
  const def = resource(name);
  return { resource: name, present: (rows, rt) => presentPolicies(def, rows, rt) };
}
var servicePolicyBehaviour = policyBehaviour("service-policy");
var edgeRouterPolicyBehaviour = policyBehaviour("edge-router-policy");
var serviceEdgeRouterPolicyBehaviour = policyBehaviour("service-edge-router-policy");

// src/protocol/semver-range.ts
function semverRangeError(range) {
  const parts = splitTokens(range);
  const alternatives = [];
  let start = 0;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] !== "||") continue;
    if (i === 0) return "a range may not start with '||'";
    alternatives.push(parts.slice(start, i));
    start = i + 1;
  }
  if (start === parts.length) return parts.length === 0 ? "the range is empty" : "a range may not end with '||'";
  alternatives.push(parts.slice(start));
  for (const alternative of alternatives) {
    for (const token of alternative.flatMap(expandWildcard)) {
      const split = splitComparator(token);
      if (typeof split === "string") return split;
      const [op, version] = split;
      if (!COMPARATORS.has(op)) return `'${op}' is not a comparator (use =, !=, >, >=, < or <=)`;
      const problem = versionError(version);
      if (problem) return `'${version}' is not a version: ${problem}`;
    }
  }
  return void 0;
}
var COMPARATORS = /* @__PURE__ */ new Set(["", "=", "==", "!", "!=", ">", ">=", "<", "<="]);
function splitTokens(s) {
  const out = [];
  let last = 0;
  let lastChar = "";
  for (let i = 0; i < s.length; i++) {
    if (s[i] === " " && !"<>=".includes(lastChar === "" ? "#" : lastChar)) {
      if (last < i - 1) out.push(s.slice(last, i));
      last = i + 1;
    } else if (s[i] !== " ") {
      lastChar = s[i];
    }
  }
  if (last < s.length - 1) out.push(s.slice(last));
  return out.map((t) => t.replaceAll(" ", ""));
}
function splitComparator(token) {
  const i = token.search(/\d/);
  if (i === -1) return `no version in '${token}'`;
  return [token.slice(0, i).trim(), token.slice(i)];
}
function expandWildcard(token) {
  if (!token.includes("x")) return [token];
  const split = splitComparator(token);
  if (typeof split === "string") return [token];
  const [op, version] = split;
  const pieces = version.split(".");
  const wildcard = pieces[pieces.length - 1] === "x" && pieces.length <= 3 ? pieces.length : 0;
  let flat = version.replace(".x.x", ".x").replace(".x", ".0");
  if (flat.split(".").length === 2) flat += ".0";
  const out = [];
  let operator = "";
  let increment = false;
  switch (op) {
    case ">":
      [operator, increment] = [">=", true];
      break;
    case ">=":
      operator = ">=";
      break;
    case "<":
      operator = "<";
      break;
    case "<=":
      [operator, increment] = ["<", true];
      break;
    case "":
    case "=":
    case "==":
      out.push(`>=${flat}`);
      [operator, increment] = ["<", true];
      break;
    case "!=":
    case "!":
      out.push(`<${flat}`);
      [operator, increment] = [">=", true];
      break;
  }
  const bumped = !increment ? flat : wildcard === 3 ? bump(flat, 1) : wildcard === 2 ? bump(flat, 0) : "";
  out.push(operator + bumped);
  return out;
}
function bump(version, index) {
  const pieces = version.split(".");
  if (!/^[+-]?\d+$/.test(pieces[index] ?? "")) return "";
  pieces[index] = String(Number.parseInt(pieces[index], 10) + 1);
  return pieces.join(".");
}
var UINT64_MAX = 2n ** 64n - 1n;
var ALPHANUMERIC = /^[0-9A-Za-z-]+$/;
function numberError(what, s) {
  if (!/^\d+$/.test(s)) return `the ${what} number must be digits`;
  if (s.length > 1 && s[0] === "0") return `the ${what} number may not have leading zeros`;
  if (BigInt(s) > UINT64_MAX) return `the ${what} number is too large`;
  return void 0;
}
function versionError(v) {
  const first = v.indexOf(".");
  const second = first === -1 ? -1 : v.indexOf(".", first + 1);
  if (second === -1) return "expected MAJOR.MINOR.PATCH";
  let patch = v.slice(second + 1);
  let build = [];
  let prerelease = [];
  const plus = patch.indexOf("+");
  if (plus !== -1) [build, patch] = [patch.slice(plus + 1).split("."), patch.slice(0, plus)];
  const dash = patch.indexOf("-");
  if (dash !== -1) [prerelease, patch] = [patch.slice(dash + 1).split("."), patch.slice(0, dash)];
  const problem = numberError("major", v.slice(0, first)) ?? numberError("minor", v.slice(first + 1, second)) ?? numberError("patch", patch);
  if (problem) return problem;
  for (const p of prerelease) {
    if (p === "") return "an empty prerelease part";
    if (/^\d+$/.test(p) ? numberError("prerelease", p) : !ALPHANUMERIC.test(p)) return `bad prerelease part '${p}'`;
  }
  for (const b of build) if (!ALPHANUMERIC.test(b)) return `bad build part '${b}'`;
  return void 0;
}

// src/controller/api/posture-checks.ts
var KIND_FIELDS = Object.entries(postureCheck.fields).filter((entry) => Boolean(entry[1].when));
var applies = (field, kind) => !field.when || field.when.in.includes(kind);
async function beforeWrite3(_rt, write2) {
  const values = { ...write2.values };
  const stored = write2.existing?.typeId;
  const kind = stored ?? values.typeId;
  if (stored !== void 0 && values.typeId !== void 0 && values.typeId !== stored) {
    throw invalidField("typeId", `a posture check keeps its kind: this one is ${stored}; delete it and create a ${values.typeId} check instead`, values.typeId);
  }
  for (const [name, field] of KIND_FIELDS) {
    const value = values[name];
    if (!applies(field, kind)) {
      if (write2.values.typeId === void 0 && value !== void 0 && value !== null) {
        throw invalidField(name, `${name} belongs to ${field.when.in.join(", ")} checks; this one is ${kind}`, value);
      }
      delete values[name];
    } else if (write2.verb === "replace" && field.replace === "required" && value === void 0) {
      throw invalidField(name, `${name} in body is required`, value);
    }
  }
  if (Array.isArray(values.operatingSystems)) values.operatingSystems = checkOperatingSystems(values.operatingSystems);
  if (Array.isArray(values.macAddresses)) values.macAddresses = cleanMacAddresses(values.macAddresses);
  if (values.process) values.process = normaliseProcess(values.process);
  if (Array.isArray(values.processes)) values.processes = normaliseProcesses(values.processes);
  if (kind === "MFA") applyMfaDefaults(write2, values);
  return values;
}
var MFA_DEFAULTS = { timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false };
function applyMfaDefaults(write2, values) {
  for (const [name, fallback] of Object.entries(MFA_DEFAULTS)) {
    if (values[name] === null || values[name] === void 0 && write2.verb === "create") values[name] = fallback;
  }
  if (typeof values.timeoutSeconds === "number" && values.timeoutSeconds <= 0) values.timeoutSeconds = -1;
}
function checkOperatingSystems(list) {
  const seen = /* @__PURE__ */ new Set();
  return list.map((os3, i) => {
    if (seen.has(os3.type)) throw invalidField(`operatingSystems.${i}.type`, `${os3.type} appears twice: list all its versions in one entry`, os3.type);
    seen.add(os3.type);
    os3.versions.forEach((version, j) => {
      const problem = semverRangeError(version);
      if (problem) throw invalidField(`operatingSystems.${i}.versions.${j}`, `'${version}' is not a version range (e.g. 10.0.19041, >=13.0.0, 11.x): ${problem}`, version);
    });
    return { type: os3.type, versions: os3.versions };
  });
}
function cleanMacAddresses(list) {
  const out = [];
  list.forEach((raw2, i) => {
    const mac = raw2.toLowerCase().replace(/[^0-9a-f]/g, "");
    if (mac === "") throw invalidField(`macAddresses.${i}`, `'${raw2}' has no hex digits: a MAC address is written like 00:11:22:33:44:55`, raw2);
    if (!out.includes(mac)) out.push(mac);
  });
  return out;
}
function normaliseProcess(p) {
  return {
    osType: p.osType,
    path: p.path,
    hashes: (p.hashes ?? []).map((h) => h.toLowerCase()),
    ...p.signerFingerprint === void 0 ? {} : { signerFingerprint: p.signerFingerprint.toLowerCase() }
  };
}
function normaliseProcesses(list) {
  const seen = /* @__PURE__ */ new Set();
  return list.map((p, i) => {
    const key = `${p.osType}-${p.path}`;
    if (seen.has(key)) throw invalidField(`processes.${i}.path`, `${p.path} on ${p.osType} appears twice`, p.path);
    seen.add(key);
    return { osType: p.osType, path: p.path, hashes: p.hashes ?? [], signerFingerprints: p.signerFingerprints ?? [] };
  });
}
function present2(rows) {
  return rows.map((row) => {
    const out = toWire(postureCheck, row);
    for (const [name, field] of KIND_FIELDS) if (!applies(field, row.typeId)) delete out[name];
    return out;
  });
}
var postureCheckBehaviour = { resource: "posture-check", hooks: { beforeWrite: beforeWrite3 }, present: present2 };

// src/controller/api/sessions.ts
import { createPrivateKey as createPrivateKey4 } from "node:crypto";
import { SignJWT as SignJWT2 } from "jose";
var session2 = resource("session");
var servicePolicy2 = resource("service-policy");
var edgeRouter4 = resource("edge-router");
var apiSession3 = resource("api-session");
function sessionRoutes(rt) {
  return [
    { method: "GET", path: "/sessions/{id}/route-path", api: "management", access: "admin", handler: (ctx) => routePath(rt, ctx) },
    { method: "POST", path: "/sessions", api: "client", access: "session", handler: (ctx) => createSession(rt, ctx) },
    // The client API shows a caller its own sessions only; another identity's session is "not found".
    { method: "GET", path: "/sessions", api: "client", access: "session", handler: (ctx) => listResource(rt, session2, ctx, { where: { identityId: ctx.principal.identityId } }) },
    { method: "GET", path: "/sessions/{id}", api: "client", access: "session", handler: async (ctx) => ({ data: (await rt.present(session2, [await ownSession(rt, ctx)]))[0] }) },
    { method: "DELETE", path: "/sessions/{id}", api: "client", access: "session", handler: (ctx) => deleteOwnSession(rt, ctx) }
  ];
}
async function routePath(rt, ctx) {
  await rt.store.repoFor(session2).get(ctx.params.id);
  return { data: { routePath: [] } };
}
async function ownSession(rt, ctx) {
  const row = await rt.store.repoFor(session2).find(ctx.params.id);
  if (!row || row.identityId !== ctx.principal.identityId) throw notFound("session", ctx.params.id);
  return row;
}
async function deleteOwnSession(rt, ctx) {
  const row = await ownSession(rt, ctx);
  await rt.store.tx(() => rt.store.repoFor(session2).delete(row.id));
  return { data: {} };
}
var CREATE_SCHEMA = {
  type: "object",
  properties: {
    serviceId: { type: "string", minLength: 1 },
    type: { type: "string", enum: ["Dial", "Bind"] },
    tags: { type: ["object", "null"] }
  },
  required: ["serviceId"]
};
async function grantingPolicies2(rt, identityId, serviceId, type) {
  const [byIdentity, byService] = await Promise.all([
    rt.store.roleIndex("service-policy", "identityRoles").policiesSelecting(identityId, { type }),
    rt.store.roleIndex("service-policy", "serviceRoles").policiesSelecting(serviceId, { type })
  ]);
  const selectingService = new Set(byService);
  return [...new Set(byIdentity)].filter((id) => selectingService.has(id)).sort();
}
async function passingPolicies(rt, policyIds) {
  const checks = rt.store.roleIndex("service-policy", "postureCheckRoles");
  const required = await Promise.all(policyIds.map(async (id) => [id, await checks.selectedIds([id])]));
  const passing = required.filter(([, ids]) => ids.length === 0).map(([id]) => id);
  if (passing.length > 0) return passing;
  const checkIds = [...new Set(required.flatMap(([, ids]) => ids))];
  const types = new Map((await rt.store.repo("posture-check").findAll({ id: checkIds }, { columns: ["typeId"] })).map((c) => [c.id, c.typeId]));
  const data = Object.fromEntries(required.map(([id, ids]) => [id, [...ids].sort().map((check) => ({ id: check, typeId: types.get(check), isPassing: false }))]));
  throw new ApiError("INVALID_POSTURE", { cause: { message: `Failed to pass posture checks for service policies: [${policyIds.join(" ")}]`, data } });
}
async function sessionToken(rt, claims, now) {
  const iat = Math.floor(now.getTime() / 1e3);
  return new SignJWT2({ z_asid: claims.apiSessionId, z_iid: claims.identityId, z_t: "s", z_st: claims.type, z_leg: true }).setProtectedHeader({ alg: "RS256", kid: sha1FingerprintHex(rt.pki.serverCertPem), typ: "JWT" }).setIssuer(rt.enrollmentSigner.issuer).setSubject(claims.serviceId).setAudience(["openziti"]).setJti(claims.id).setIssuedAt(iat).setExpirationTime(iat + 365 * 24 * 3600).sign(createPrivateKey4(rt.pki.serverKeyPem));
}
async function createSession(rt, ctx) {
  const body = rt.validators.custom(CREATE_SCHEMA, await ctx.json());
  const { identityId, apiSessionId } = ctx.principal;
  const serviceId = body.serviceId;
  const type = body.type ?? "Dial";
  const permissions = (await permissionsOf(rt, identityId, [serviceId])).get(serviceId) ?? [];
  if (permissions.length === 0 || !await rt.store.repo("service").exists({ id: serviceId })) throw notFound("service", serviceId);
  if (!permissions.includes(type)) throw invalidField("serviceId", "service not found", serviceId);
  const servicePolicies = await passingPolicies(rt, await grantingPolicies2(rt, identityId, serviceId, type));
  if ((await edgeRoutersFor(rt, identityId, serviceId)).shared.length === 0) throw new ApiError("NO_EDGE_ROUTERS_AVAILABLE");
  const repo = rt.store.repoFor(session2);
  const now = ctx.now.toISOString();
  const id = await rt.store.tx(async () => {
    const existing = (await repo.findAll({ apiSessionId, serviceId, type }, { columns: ["id"] }))[0];
    if (existing) return existing.id;
    const id2 = newSessionId();
    const tokenHash = hashToken(await sessionToken(rt, { id: id2, serviceId, apiSessionId, identityId, type }, ctx.now));
    await repo.insert({ apiSessionId, identityId, serviceId, type, servicePolicies, tags: body.tags ?? {}, tokenHash }, { id: id2, now });
    return id2;
  });
  const token = await sessionToken(rt, { id, serviceId, apiSessionId, identityId, type }, ctx.now);
  const [data] = await rt.present(session2, [await repo.get(id)]);
  return { status: 201, data: { ...data, token } };
}
async function endUnpermittedSessions(rt, where) {
  const repo = rt.store.repoFor(session2);
  const rows = await repo.findAll(where, { columns: ["identityId", "serviceId", "type"] });
  const byIdentity = /* @__PURE__ */ new Map();
  for (const row of rows) byIdentity.set(row.identityId, [...byIdentity.get(row.identityId) ?? [], row]);
  for (const [identityId, sessions] of byIdentity) {
    const permissions = await permissionsOf(rt, identityId, [...new Set(sessions.map((s) => s.serviceId))]);
    for (const s of sessions) if (!permissions.get(s.serviceId)?.includes(s.type)) await repo.delete(s.id);
  }
}
var attributesChanged = (write2) => write2.existing !== void 0 && "roleAttributes" in write2.values && JSON.stringify(write2.existing.roleAttributes ?? []) !== JSON.stringify(write2.values.roleAttributes ?? []);
var SESSION_LIFECYCLE_HOOKS = {
  "service-policy": {
    async afterWrite(rt, write2) {
      const types = new Set([write2.existing?.type, write2.values.type].filter((t) => typeof t === "string"));
      if (write2.verb !== "create") await endUnpermittedSessions(rt, { type: [...types] });
    },
    afterDelete: (rt, row) => endUnpermittedSessions(rt, { type: row.type })
  },
  identity: {
    async afterWrite(rt, write2) {
      if (attributesChanged(write2)) await endUnpermittedSessions(rt, { identityId: write2.id });
    }
  },
  service: {
    async afterWrite(rt, write2) {
      if (attributesChanged(write2)) await endUnpermittedSessions(rt, { serviceId: write2.id });
    }
  }
};
async function sessionEdgeRouters(rt, identityId, serviceId) {
  const ids = (await edgeRoutersFor(rt, identityId, serviceId)).shared;
  if (ids.length === 0) return [];
  const routers = await rt.present(edgeRouter4, await rt.store.repoFor(edgeRouter4).findAll({ id: ids }));
  return routers.map((r) => ({
    name: r.name,
    hostname: r.hostname ?? "",
    isOnline: r.isOnline ?? false,
    cost: r.cost ?? 0,
    noTraversal: r.noTraversal ?? false,
    disabled: r.disabled ?? false,
    syncStatus: r.syncStatus ?? "SYNC_UNKNOWN",
    supportedProtocols: r.supportedProtocols ?? {},
    // `urls` is OpenZiti's older name for supportedProtocols, still read by older SDKs.
    urls: r.supportedProtocols ?? {}
  }));
}
async function presentSessions(rows, rt) {
  if (rows.length === 0) return [];
  const policyIds = [...new Set(rows.flatMap((r) => r.servicePolicies ?? []))];
  const policies = new Map(
    policyIds.length === 0 ? [] : (await rt.store.repoFor(servicePolicy2).findAll({ id: policyIds }, { columns: ["name"] })).map((p) => [p.id, p.name])
  );
  const routers = /* @__PURE__ */ new Map();
  const routersOf = (row) => {
    const key = `${row.identityId}
${row.serviceId}`;
    if (!routers.has(key)) routers.set(key, sessionEdgeRouters(rt, row.identityId, row.serviceId));
    return routers.get(key);
  };
  return Promise.all(
    rows.map(async (row) => ({
      ...toWire(session2, row),
      apiSession: entityRef(apiSession3, row.apiSessionId, ""),
      servicePolicies: (row.servicePolicies ?? []).filter((id) => policies.has(id)).map((id) => entityRef(servicePolicy2, id, policies.get(id))),
      token: "",
      edgeRouters: await routersOf(row)
    }))
  );
}
var sessionBehaviour = { resource: "session", routes: sessionRoutes, present: presentSessions };

// src/controller/api/database.ts
var MAX_RESULTS = 1e3;
var SNAPSHOT_INTERVAL_MS = 6e4;
var states = /* @__PURE__ */ new WeakMap();
function stateOf(rt) {
  let state = states.get(rt);
  if (!state) {
    state = { check: { running: false, fixingErrors: false, startTime: null, endTime: null, error: null, tooManyErrors: false, results: [] } };
    states.set(rt, state);
  }
  return state;
}
function rateLimited(message) {
  return new ApiError("RATE_LIMITED", { status: 429, message });
}
function databaseRoutes(rt) {
  const api = "management";
  return [
    { method: "POST", path: "/database/check-data-integrity", api, access: "admin", handler: () => startCheck(rt, false) },
    { method: "POST", path: "/database/fix-data-integrity", api, access: "admin", handler: () => startCheck(rt, true) },
    { method: "GET", path: "/database/data-integrity-results", api, access: "admin", handler: () => results(rt) },
    { method: "POST", path: "/database/snapshot", api, access: "admin", handler: (ctx) => snapshot(rt, ctx.now) }
  ];
}
function startCheck(rt, fix) {
  const check = stateOf(rt).check;
  if (check.running) throw rateLimited("a data integrity check is already running: read its progress at /database/data-integrity-results");
  Object.assign(check, { running: true, fixingErrors: fix, startTime: rt.clock(), endTime: null, error: null, tooManyErrors: false, results: [] });
  const report = (issue2) => {
    if (check.results.length < MAX_RESULTS) check.results.push(issue2);
    else check.tooManyErrors = true;
  };
  check.done = rt.store.integrity().check(fix, report).catch((err) => {
    check.error = err instanceof Error ? err.message : String(err);
    rt.log(`data integrity check failed: ${check.error}`);
  }).finally(() => {
    check.endTime = rt.clock();
    check.running = false;
  });
  return { status: 202, data: {} };
}
function results(rt) {
  const check = stateOf(rt).check;
  return {
    data: {
      inProgress: check.running,
      fixingErrors: check.fixingErrors,
      tooManyErrors: check.tooManyErrors,
      // Null until a check has started (endTime until it ends), as OpenZiti sends them: there is no time to give.
      startTime: check.startTime?.toISOString() ?? null,
      endTime: check.endTime?.toISOString() ?? null,
      // OpenZiti sends null when the check did not fail; its Swagger says a string, which "" satisfies.
      error: check.error ?? "",
      results: check.results.map((r) => ({ ...r }))
    },
    meta: { pagination: { limit: -1, offset: 0, totalCount: check.results.length }, filterableFields: [] }
  };
}
async function snapshot(rt, now) {
  const state = stateOf(rt);
  if (state.lastSnapshot !== void 0 && now.getTime() - state.lastSnapshot < SNAPSHOT_INTERVAL_MS) {
    throw rateLimited("a snapshot was taken less than a minute ago: try again later");
  }
  const path6 = await rt.store.integrity().snapshot(now);
  state.lastSnapshot = now.getTime();
  rt.log(`database snapshot written to ${path6}`);
  return { data: { path: path6 } };
}

// src/controller/api/tracing.ts
import { randomUUID as randomUUID6 } from "node:crypto";
var identity6 = resource("identity");
var TRACE_CHANNELS = ["selectPath", "establishPath"];
var TRACE_SPEC_SCHEMA = {
  type: "object",
  properties: {
    enabled: { type: "boolean" },
    duration: { type: "string", maxLength: 64 },
    traceId: { type: "string", maxLength: 256 },
    channels: { type: "array", items: { type: "string", maxLength: 64 }, maxItems: 16 }
  },
  additionalProperties: false
};
var traces = /* @__PURE__ */ new WeakMap();
function tracesOf(rt) {
  let map = traces.get(rt);
  if (!map) traces.set(rt, map = /* @__PURE__ */ new Map());
  return map;
}
function tracingRoutes(rt) {
  return [{ method: "PUT", path: "/identities/{id}/trace", api: "management", access: "admin", handler: (ctx) => updateTracing(rt, ctx) }];
}
async function updateTracing(rt, ctx) {
  const id = (await rt.store.repoFor(identity6).get(ctx.params.id)).id;
  const spec = rt.validators.custom(TRACE_SPEC_SCHEMA, await ctx.json());
  if (!spec.enabled) {
    tracesOf(rt).delete(id);
    rt.log(`tracing disabled for identity ${id}`);
    return { data: { enabled: false } };
  }
  const ms = parseGoDuration(spec.duration ?? "");
  if (ms === void 0) throw invalidField("duration", "must be a duration such as 30s, 10m or 1h30m", spec.duration ?? "");
  if (ms <= 0) throw invalidField("duration", "must be longer than zero", spec.duration);
  if (ms > MAX_TRACE_MS) throw invalidField("duration", "must be at most 8760h (a year)", spec.duration);
  const requested = spec.channels ?? [];
  const unknown = requested.find((c) => c !== "all" && !TRACE_CHANNELS.includes(c));
  if (unknown !== void 0) throw invalidField("channels", `unknown channel '${unknown}': one of all, ${TRACE_CHANNELS.join(", ")}`, requested);
  const channels = requested.length === 0 || requested.includes("all") ? [...TRACE_CHANNELS] : [...new Set(requested)];
  const trace = { traceId: spec.traceId || randomUUID6(), channels, until: new Date(ctx.now.getTime() + ms) };
  tracesOf(rt).set(id, trace);
  rt.log(`tracing enabled for identity ${id} with traceId ${trace.traceId} until ${trace.until.toISOString()} (channels ${channels.join(", ")})`);
  return { data: { enabled: true, traceId: trace.traceId, until: trace.until.toISOString() } };
}
var MAX_TRACE_MS = 8760 * 36e5;
var UNIT_MS = { ns: 1e-6, us: 1e-3, "\xB5s": 1e-3, "\u03BCs": 1e-3, ms: 1, s: 1e3, m: 6e4, h: 36e5 };
function parseGoDuration(text2) {
  const match = /^([-+]?)(.*)$/s.exec(text2);
  const sign3 = match[1] === "-" ? -1 : 1;
  const body = match[2];
  if (body === "0") return 0;
  if (body === "") return void 0;
  const part = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < body.length) {
    part.lastIndex = at;
    const m = part.exec(body);
    if (!m) return void 0;
    total += Number(m[1]) * UNIT_MS[m[2]];
    at = part.lastIndex;
  }
  return sign3 * total;
}

// src/controller/server/body.ts
var BODY_LIMIT = 1024 * 1024;
var PUBLIC_BODY_LIMIT = 16 * 1024;
function bodyLimitFor(access) {
  return access === "public" ? PUBLIC_BODY_LIMIT : BODY_LIMIT;
}
async function readBody(req, limit = BODY_LIMIT) {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw tooLarge(limit);
  }
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
var UTF8 = new TextDecoder("utf-8", { fatal: true });
function decodeUtf8(bytes) {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new ApiError("COULD_NOT_PARSE_BODY", { message: "The request body is not valid UTF-8" });
  }
}
function tooLarge(limit) {
  return new ApiError("REQUEST_ENTITY_TOO_LARGE", { message: `The request body is larger than ${limit} bytes` });
}
function parseJson(text2) {
  if (text2.trim() === "") {
    throw new ApiError("COULD_NOT_PARSE_BODY", { message: "The request body is empty; a JSON document was expected" });
  }
  try {
    return JSON.parse(text2, (key, value) => {
      if (key === "__proto__" || key === "constructor" && value && typeof value === "object" && "prototype" in value) {
        throw new SyntaxError(`forbidden property '${key}'`);
      }
      return value;
    });
  } catch (err) {
    throw new ApiError("COULD_NOT_PARSE_BODY", {
      message: "The body of the request could not be parsed as JSON",
      cause: { code: "UNHANDLED", message: err.message }
    });
  }
}

// src/controller/api/services.ts
var service4 = resource("service");
var identity7 = resource("identity");
function placeholderPostureQueries(permissions) {
  return permissions.map((p) => ({ policyId: `dummy ${p.toLowerCase()} policy: no posture checks defined`, policyType: p, isPassing: true, postureQueries: [] }));
}
function servicePresenter(provider) {
  return async (rows, rt, view = {}) => {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const configs = view.configTypes ? await configData(rt, rows, view.identityId, view.configTypes) : /* @__PURE__ */ new Map();
    const permissions = view.identityId && provider ? await provider.permissions(rt, view.identityId, ids) : void 0;
    return rows.map((row) => {
      const granted = permissions ? [...permissions.get(row.id) ?? []] : [];
      const served = permissions && granted.length === 0 ? ["Invalid"] : granted;
      return { ...toWire(service4, row), config: configs.get(row.id) ?? {}, permissions: served, postureQueries: placeholderPostureQueries(granted) };
    });
  };
}
async function configData(rt, rows, identityId, selection) {
  const wanted = (typeId) => selection === "all" || selection.has(typeId);
  if (selection !== "all" && selection.size === 0) return /* @__PURE__ */ new Map();
  const chosen = /* @__PURE__ */ new Map();
  const configIds = [...new Set(rows.flatMap((r) => r.configs ?? []))];
  const configs = configIds.length ? await rt.store.repo("config").findAll({ id: configIds }, { columns: ["configTypeId", "data"] }) : [];
  const byId = new Map(configs.map((c) => [c.id, c]));
  for (const row of rows) {
    const mine = /* @__PURE__ */ new Map();
    for (const id of row.configs ?? []) {
      const config2 = byId.get(id);
      if (config2 && wanted(config2.configTypeId)) mine.set(config2.configTypeId, id);
    }
    chosen.set(row.id, mine);
  }
  if (identityId) {
    const overrides = await rt.store.repo("identity-service-config").findAll({ identityId, serviceId: rows.map((r) => r.id) }, { columns: ["serviceId", "configTypeId", "configId"] });
    const missing = overrides.filter((o) => !byId.has(o.configId)).map((o) => o.configId);
    if (missing.length) for (const c of await rt.store.repo("config").findAll({ id: missing }, { columns: ["configTypeId", "data"] })) byId.set(c.id, c);
    for (const o of overrides) if (wanted(o.configTypeId)) chosen.get(o.serviceId)?.set(o.configTypeId, o.configId);
  }
  const typeIds = [...new Set([...chosen.values()].flatMap((m) => [...m.keys()]))];
  const types = typeIds.length ? await rt.store.repo("config-type").findAll({ id: typeIds }, { columns: ["name"] }) : [];
  const typeName = new Map(types.map((t) => [t.id, t.name]));
  const out = /* @__PURE__ */ new Map();
  for (const [serviceId, byType] of chosen) {
    const config2 = {};
    for (const [typeId, configId] of byType) config2[typeName.get(typeId) ?? typeId] = byId.get(configId)?.data ?? {};
    out.set(serviceId, config2);
  }
  return out;
}
async function resolveConfigTypes(rt, values) {
  const wanted = values.flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);
  if (wanted.includes("all")) return "all";
  if (wanted.length === 0) return /* @__PURE__ */ new Set();
  const repo = rt.store.repo("config-type");
  const found = [...await repo.findAll({ id: wanted }, { columns: [] }), ...await repo.findAll({ name: wanted }, { columns: [] })];
  return new Set(found.map((t) => t.id));
}
async function viewOf(rt, ctx, asAllowed = true) {
  let identityId = ctx.principal?.identityId;
  const as = asAllowed ? ctx.query.get("asIdentity") : null;
  if (as) {
    const repo = rt.store.repoFor(identity7);
    const found = await repo.find(as) ?? await repo.findOne({ name: as }, { columns: [] });
    if (!found) throw new ApiError("NOT_FOUND", { cause: { field: "asIdentity", reason: `no identity found with id or name '${as}'`, value: as } });
    identityId = found.id;
  }
  let requested = ctx.query.getAll("configTypes");
  if (requested.length === 0 && ctx.principal) {
    const session3 = await rt.store.repo("api-session").findOne({ id: ctx.principal.apiSessionId }, { columns: ["configTypes"] });
    requested = session3?.configTypes ?? [];
  }
  return { identityId, configTypes: await resolveConfigTypes(rt, requested) };
}
async function checkConfigs(rt, configIds) {
  if (configIds.length === 0) return;
  const configs = await rt.store.repo("config").findAll({ id: [...configIds] }, { columns: ["name", "configTypeId"] });
  const typeIds = [...new Set(configs.map((c) => c.configTypeId))];
  const types = new Map((await rt.store.repo("config-type").findAll({ id: typeIds }, { columns: ["name", "target"] })).map((t) => [t.id, t]));
  const seen = /* @__PURE__ */ new Map();
  for (const config2 of configs) {
    const type = types.get(config2.configTypeId);
    if (type && type.target !== "service") {
      throw invalidField("configs", `config ${config2.name} has config type ${type.name}, which does not target services`, configIds);
    }
    const other = seen.get(config2.configTypeId);
    if (other) {
      throw invalidField("configs", `configs ${other.name} and ${config2.name} are both of config type ${type?.name}: a service has at most one config of each type`, configIds);
    }
    seen.set(config2.configTypeId, config2);
  }
}
async function beforeServiceWrite(rt, write2) {
  const values = { ...write2.values };
  if (write2.verb !== "create") delete values.encryptionRequired;
  if (Array.isArray(values.configs)) await checkConfigs(rt, values.configs);
  return values;
}
var SERVICE_CONFIGS_SCHEMA = {
  type: "array",
  maxItems: 1e3,
  items: {
    type: "object",
    properties: { serviceId: { type: "string", minLength: 1, maxLength: 256 }, configId: { type: "string", minLength: 1, maxLength: 256 } },
    required: ["serviceId", "configId"],
    additionalProperties: false
  }
};
async function pairsOf(rt, body) {
  return rt.validators.custom(SERVICE_CONFIGS_SCHEMA, body);
}
async function configsOf(rt, pairs) {
  const ids = [...new Set(pairs.map((p) => p.configId))];
  const found = new Map((await rt.store.repo("config").findAll({ id: ids }, { columns: ["name", "configTypeId"] })).map((c) => [c.id, c]));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== void 0) throw invalidField("configId", `no config found with id '${missing}'`, missing);
  return found;
}
async function assignServiceConfigs(rt, ctx) {
  const owner = await rt.store.repoFor(identity7).get(ctx.params.id);
  const pairs = await pairsOf(rt, await ctx.json());
  const configs = await configsOf(rt, pairs);
  const serviceIds = [...new Set(pairs.map((p) => p.serviceId))];
  const services = new Set((await rt.store.repoFor(service4).findAll({ id: serviceIds }, { columns: [] })).map((s) => s.id));
  const unknown = serviceIds.find((id) => !services.has(id));
  if (unknown !== void 0) throw invalidField("serviceId", `no service found with id '${unknown}'`, unknown);
  const typeIds = [...new Set([...configs.values()].map((c) => c.configTypeId))];
  const types = new Map((await rt.store.repo("config-type").findAll({ id: typeIds }, { columns: ["name", "target"] })).map((t) => [t.id, t]));
  for (const config2 of configs.values()) {
    const type = types.get(config2.configTypeId);
    if (type && type.target !== "service") throw invalidField("configId", `config ${config2.name} has config type ${type.name}, which does not target services`, config2.id);
  }
  const now = ctx.now.toISOString();
  const overrides = rt.store.repo("identity-service-config");
  await rt.store.tx(async () => {
    for (const { serviceId, configId } of pairs) {
      const configTypeId = configs.get(configId).configTypeId;
      await overrides.deleteWhere({ identityId: owner.id, serviceId, configTypeId });
      await overrides.insert({ identityId: owner.id, serviceId, configId, configTypeId }, { now });
    }
  });
  return { data: {} };
}
async function removeServiceConfigs(rt, ctx) {
  const owner = await rt.store.repoFor(identity7).get(ctx.params.id);
  const text2 = await ctx.text();
  const pairs = text2.trim() === "" ? [] : await pairsOf(rt, parseJson(text2));
  const configs = await configsOf(rt, pairs);
  const overrides = rt.store.repo("identity-service-config");
  await rt.store.tx(async () => {
    for (const { serviceId, configId } of pairs) {
      await overrides.deleteWhere({ identityId: owner.id, serviceId, configTypeId: configs.get(configId).configTypeId });
    }
  });
  return { data: {} };
}
function clientRoutes(rt, present3, provider) {
  const repo = () => rt.store.repoFor(service4);
  return [
    {
      method: "GET",
      path: "/services",
      api: "client",
      access: "session",
      handler: async (ctx) => {
        const view = await viewOf(rt, ctx, false);
        const page = await repo().list({ ...listParams(ctx.query), scope: await provider.accessible(rt, view.identityId) });
        return { data: await present3(page.rows, rt, view), meta: listMeta(page, repo().filterableFields) };
      }
    },
    {
      method: "GET",
      path: "/services/{id}",
      api: "client",
      access: "session",
      handler: async (ctx) => {
        const view = await viewOf(rt, ctx, false);
        const row = await repo().find(ctx.params.id);
        const granted = row ? (await provider.permissions(rt, view.identityId, [row.id])).get(row.id) : void 0;
        if (!row || !granted?.length) throw new ApiError("NOT_FOUND", { cause: { field: "id", reason: `no service '${ctx.params.id}' this identity may use`, value: ctx.params.id } });
        return { data: (await present3([row], rt, view))[0] };
      }
    }
  ];
}
function serviceBehaviour(provider) {
  const present3 = servicePresenter(provider);
  const api = "management";
  const access = "admin";
  const routes = (rt) => [
    {
      method: "GET",
      path: "/services",
      api,
      access,
      handler: async (ctx) => {
        const repo = rt.store.repoFor(service4);
        const page = await repo.list(listParams(ctx.query));
        return { data: await present3(page.rows, rt, await viewOf(rt, ctx)), meta: listMeta(page, repo.filterableFields) };
      }
    },
    {
      method: "GET",
      path: "/services/{id}",
      api,
      access,
      handler: async (ctx) => {
        const row = await rt.store.repoFor(service4).get(ctx.params.id);
        return { data: (await present3([row], rt, await viewOf(rt, ctx)))[0] };
      }
    },
    { method: "POST", path: "/identities/{id}/service-configs", api, access, handler: (ctx) => assignServiceConfigs(rt, ctx) },
    ...provider ? clientRoutes(rt, present3, provider) : [],
    { method: "DELETE", path: "/identities/{id}/service-configs", api, access, handler: (ctx) => removeServiceConfigs(rt, ctx) }
  ];
  return { resource: "service", routes, hooks: { beforeWrite: beforeServiceWrite }, present: (rows, rt) => present3(rows, rt) };
}

// src/controller/registry.ts
var BEHAVIOURS = [
  identityBehaviour,
  authenticatorBehaviour,
  enrollmentBehaviour,
  apiSessionBehaviour,
  configTypeBehaviour,
  configBehaviour,
  servicePolicyBehaviour,
  edgeRouterPolicyBehaviour,
  serviceEdgeRouterPolicyBehaviour,
  postureCheckBehaviour,
  sessionBehaviour,
  controllerBehaviour,
  serviceBehaviour({ permissions: permissionsOf, accessible: accessibleServices }),
  edgeRouterBehaviour,
  routerBehaviour,
  terminatorBehaviour,
  caBehaviour,
  externalJwtSignerBehaviour,
  // Sessions end when a write takes their permission away: hooks on the resources that decide permissions.
  ...Object.entries(SESSION_LIFECYCLE_HOOKS).map(([resource2, hooks]) => ({ resource: resource2, hooks }))
];
function composeHooks(all) {
  if (all.length <= 1) return all[0] ?? {};
  return {
    async beforeWrite(rt, write2) {
      let changed;
      for (const h of all) {
        const values = await h.beforeWrite?.(rt, write2);
        if (values) write2 = { ...write2, values: changed = values };
      }
      return changed;
    },
    async afterWrite(rt, write2) {
      for (const h of all) await h.afterWrite?.(rt, write2);
    },
    async beforeDelete(rt, row) {
      for (const h of all) await h.beforeDelete?.(rt, row);
    },
    async afterDelete(rt, row) {
      for (const h of all) await h.afterDelete?.(rt, row);
    }
  };
}
function buildRoutes(rt, behaviours = BEHAVIOURS) {
  const presenters = /* @__PURE__ */ new Map();
  for (const b of behaviours) if (b.present) presenters.set(b.resource, b.present);
  const hooks = /* @__PURE__ */ new Map();
  for (const name of new Set(behaviours.map((b) => b.resource))) {
    hooks.set(name, composeHooks(behaviours.filter((b) => b.resource === name && b.hooks).map((b) => b.hooks)));
  }
  const handlerRoutes = [
    ...behaviours.flatMap((b) => b.routes?.(rt) ?? []),
    ...authenticateRoutes(rt),
    ...currentRoutes(rt),
    ...accessRoutes(rt),
    ...postureDataRoutes(rt),
    ...databaseRoutes(rt),
    ...tracingRoutes(rt)
  ];
  const taken = (r) => handlerRoutes.some((h) => h.method === r.method && h.path === r.path && (h.api === r.api || h.api === "both"));
  const routes = [...handlerRoutes, ...crudRoutes(rt, taken)];
  routes.push(...metaRoutes(rt, (api) => routes.filter((r) => r.api === api || r.api === "both"), /* @__PURE__ */ new Date()));
  return {
    routes,
    present: async (def, rows) => {
      const presenter = presenters.get(def.name);
      return presenter ? presenter(rows, rt) : rows.map((row) => toWire(def, row));
    },
    hooks: (resource2) => hooks.get(resource2) ?? {}
  };
}

// src/controller/server/app.ts
import { randomBytes as randomBytes7 } from "node:crypto";

// src/controller/server/auth-stage.ts
function tokenOf(req) {
  const header = req.headers["zt-session"];
  const zt = (Array.isArray(header) ? header[0] : header)?.trim();
  if (zt) return zt;
  const auth = req.headers.authorization?.trim();
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth) : null;
  return m ? m[1].trim() : void 0;
}
async function authorise(req, access, sessions, now) {
  if (access === "public") return void 0;
  const token = tokenOf(req);
  if (!token) throw new ApiError("UNAUTHORIZED", { message: "no session token was provided (zt-session header or Authorization: Bearer)" });
  const principal = await sessions.resolve(token, now);
  if (access === "admin" && !principal.isAdmin) {
    throw new ApiError("UNAUTHORIZED", { message: "the operation requires an administrator" });
  }
  return principal;
}

// src/controller/server/cors.ts
var ALLOWED_HEADERS = "content-type, accept, authorization, zt-session";
var ALLOWED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE";
function normaliseOrigin(origin) {
  return origin.trim().replace(/\/+$/, "").toLowerCase();
}
function applyCors(req, res, trusted = /* @__PURE__ */ new Set()) {
  const origin = req.headers.origin;
  if (!origin) return;
  if (trusted.has(normaliseOrigin(origin))) {
    res.setHeader("access-control-allow-origin", origin);
    res.setHeader("access-control-allow-credentials", "true");
  } else {
    res.setHeader("access-control-allow-origin", "*");
  }
  res.setHeader("access-control-allow-headers", ALLOWED_HEADERS);
  res.setHeader("access-control-allow-methods", ALLOWED_METHODS);
  res.setHeader("access-control-expose-headers", "zt-session, expiration-seconds, expires-at");
  res.setHeader("vary", "Origin");
}
function isPreflight(req) {
  return req.method === "OPTIONS";
}

// src/controller/server/errors.ts
function toApiError(err) {
  if (err instanceof ApiError) return err;
  if (err instanceof ZitiQlError || err instanceof FilterError) {
    return new ApiError("INVALID_FILTER", { cause: { code: "UNHANDLED", message: err.message } });
  }
  const store = storeFailure(err);
  if (store) return new ApiError("STORE_UNAVAILABLE", { message: store });
  return new ApiError("UNHANDLED");
}
function storeFailure(err) {
  const code = String(err?.code ?? "");
  if (code === "SQLITE_FULL" || code === "53100") return "the database is full (no space left): nothing was written";
  if (code.startsWith("SQLITE_IOERR") || code.startsWith("SQLITE_READONLY")) return "the database cannot be written (I/O error or read-only file): nothing was written";
  if (code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB") return "the database file is damaged: restore it from a backup";
  if (code === "ECONNREFUSED" || code === "ECONNRESET" || code === "57P01" || code === "57P03" || code.startsWith("08")) return "the database server cannot be reached: try again";
  return void 0;
}

// src/controller/server/respond.ts
function sendReply(res, reply) {
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  if ("raw" in reply) {
    res.statusCode = reply.status ?? 200;
    res.setHeader("content-type", reply.contentType);
    res.end(reply.raw);
    return;
  }
  sendJson(res, reply.status ?? 200, { data: reply.data, meta: reply.meta === void 0 ? {} : reply.meta });
}
function sendError(res, err, requestId) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const retryAfter = err.retryAfterSeconds;
  if (typeof retryAfter === "number") res.setHeader("retry-after", String(retryAfter));
  if (err.status === 401) {
    res.setHeader("www-authenticate", 'zt-session realm="zt-session" error="invalid" error_description="token is invalid or missing"');
  }
  sendJson(res, err.status, { error: err.toWire(requestId), meta: ERROR_META });
}
function sendJson(res, status, body) {
  const text2 = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  res.setHeader("content-length", Buffer.byteLength(text2));
  res.end(text2);
}

// src/controller/server/router.ts
var newNode = () => ({ literal: /* @__PURE__ */ new Map(), routes: /* @__PURE__ */ new Map() });
function normalisePath(path6) {
  const collapsed = path6.replace(/\/{2,}/g, "/");
  return collapsed.length > 1 && collapsed.endsWith("/") ? collapsed.slice(0, -1) : collapsed;
}
var Router = class {
  roots = { management: newNode(), client: newNode(), fabric: newNode() };
  add(route) {
    const apis = route.api === "both" ? ["management", "client"] : [route.api];
    for (const api of apis) {
      let node = this.roots[api];
      for (const segment of segments(route.path)) {
        const param2 = /^\{(\w+)\}$/.exec(segment);
        if (param2) {
          if (node.param && node.param.name !== param2[1]) {
            throw new Error(`route ${route.path}: parameter {${param2[1]}} clashes with {${node.param.name}}`);
          }
          node.param ??= { name: param2[1], node: newNode() };
          node = node.param.node;
        } else {
          let next = node.literal.get(segment);
          if (!next) node.literal.set(segment, next = newNode());
          node = next;
        }
      }
      if (node.routes.has(route.method)) throw new Error(`duplicate route ${route.method} ${api} ${route.path}`);
      node.routes.set(route.method, route);
    }
  }
  /** Finds the route; unknown paths are 404 NOT_FOUND, known paths with another method 405. */
  match(api, method, path6) {
    const params = {};
    let node = this.roots[api];
    for (const segment of segments(path6)) {
      const literal = node.literal.get(segment);
      if (literal) node = literal;
      else if (node.param) {
        params[node.param.name] = decodeSegment(segment);
        node = node.param.node;
      } else {
        node = void 0;
        break;
      }
    }
    if (!node || node.routes.size === 0) {
      throw new ApiError("NOT_FOUND", { cause: { code: "UNHANDLED", message: `no route for ${method} ${path6}` } });
    }
    const route = node.routes.get(method);
    if (!route) throw new ApiError("METHOD_NOT_ALLOWED", { message: `${method} is not supported on ${path6}` });
    return { route, params };
  }
  /** Every registered route, for the served spec. */
  routes(api) {
    const out = [];
    const walk2 = (node) => {
      out.push(...node.routes.values());
      for (const child of node.literal.values()) walk2(child);
      if (node.param) walk2(node.param.node);
    };
    walk2(this.roots[api]);
    return out;
  }
};
function segments(path6) {
  return normalisePath(path6).split("/").filter(Boolean);
}
function decodeSegment(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError("NOT_FOUND", { cause: { code: "UNHANDLED", message: `malformed path segment '${segment}'` } });
  }
}

// src/controller/server/app.ts
var requestIdPrefix = randomBytes7(3).toString("base64url");
var requestCounter = 0;
function nextRequestId() {
  return `${requestIdPrefix}${(requestCounter++).toString(36)}`;
}
function locate(path6) {
  const p = normalisePath(path6);
  const under = (base) => p === base || p.startsWith(`${base}/`);
  if (under(MANAGEMENT_BASE)) return { api: "management", path: p.slice(MANAGEMENT_BASE.length) || "/" };
  if (under(CLIENT_BASE)) return { api: "client", path: p.slice(CLIENT_BASE.length) || "/" };
  if (under(FABRIC_BASE)) return { api: "fabric", path: p.slice(FABRIC_BASE.length) || "/" };
  if (under("/edge/v1")) return { api: "client", path: p.slice("/edge/v1".length) || "/" };
  if (under("/edge")) return void 0;
  return { api: "client", path: p };
}
function createApp(rt, routes, site) {
  const router3 = new Router();
  for (const route of routes) router3.add(route);
  const corsOrigins = new Set((rt.config.corsOrigins ?? []).map(normaliseOrigin));
  async function handle(req, res) {
    const requestId = nextRequestId();
    const started = Date.now();
    try {
      applyCors(req, res, corsOrigins);
      if (isPreflight(req)) {
        res.statusCode = 200;
        res.end();
        return;
      }
      const target = req.url ?? "/";
      const q = target.indexOf("?");
      const pathname = q < 0 ? target : target.slice(0, q);
      if (site?.owns(pathname)) return await site.serve(req, res, pathname);
      const query = new URLSearchParams(q < 0 ? "" : target.slice(q + 1));
      const located = locate(pathname);
      const method = req.method ?? "GET";
      if (!located) throw new ApiError("NOT_FOUND", { cause: { code: "UNHANDLED", message: `no route for ${pathname}` } });
      const now = rt.clock();
      const { route, params } = await matchOrRefuse(
        router3,
        located.api,
        method === "HEAD" ? "GET" : method,
        located.path,
        () => authorise(req, "admin", rt.apiSessions, now)
      );
      const ctx = makeCtx(req, res, { api: located.api, method, path: located.path, params, query, requestId, now }, bodyLimitFor(route.access));
      ctx.principal = await authorise(req, route.access, rt.apiSessions, now);
      if (ctx.principal) {
        res.setHeader("expiration-seconds", String(Math.round(rt.config.sessionTimeoutMs / 1e3)));
        res.setHeader("expires-at", ctx.principal.expiresAt.toISOString());
      }
      sendReply(res, await route.handler(ctx));
    } catch (err) {
      const apiError = toApiError(err);
      if (apiError.status >= 500) rt.log(`request ${requestId} failed: ${err?.stack ?? String(err)}`);
      sendError(res, apiError, requestId);
    } finally {
      rt.accessLog?.(`${req.method} ${(req.url ?? "/").split("?")[0]} ${res.statusCode} ${Date.now() - started}ms ${requestId}`);
    }
  }
  return { router: router3, handle };
}
async function matchOrRefuse(router3, api, method, path6, requireAdmin) {
  try {
    return router3.match(api, method, path6);
  } catch (err) {
    if (api === "management") await requireAdmin();
    throw err;
  }
}
function makeCtx(req, res, base, bodyLimit) {
  let body;
  const raw2 = () => body ??= readBody(req, bodyLimit);
  return {
    ...base,
    req,
    res,
    remoteAddress: req.socket.remoteAddress ?? "",
    json: async () => parseJson(decodeUtf8(await raw2())),
    text: async () => decodeUtf8(await raw2())
  };
}

// src/controller/server/static.ts
import { constants, createReadStream, realpathSync, statSync } from "node:fs";
import { open as open2, realpath } from "node:fs/promises";
import { extname, join as join2, sep } from "node:path";
import { pipeline } from "node:stream/promises";
var DEFAULT_MAX_STATIC_FILE_BYTES = 64 * 1024 * 1024;
var StaticSiteError = class extends Error {
  name = "StaticSiteError";
};
var CONTENT_TYPES = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".otf": "font/otf",
  ".eot": "application/vnd.ms-fontobject",
  ".wasm": "application/wasm",
  ".pdf": "application/pdf"
};
function contentTypeFor(path6) {
  return CONTENT_TYPES[extname(path6).toLowerCase()] ?? "application/octet-stream";
}
var collapse = (path6) => path6.replace(/\/{2,}/g, "/");
var notFound3 = (path6) => new ApiError("NOT_FOUND", { cause: { code: "UNHANDLED", message: `no file for ${path6}` } });
function safeSegments(relative) {
  const segments2 = [];
  for (const raw2 of relative.split("/")) {
    if (raw2 === "") continue;
    let seg;
    try {
      seg = decodeURIComponent(raw2);
    } catch {
      throw new ApiError("COULD_NOT_VALIDATE", { cause: { field: "path", reason: "is not valid percent-encoding", value: raw2 } });
    }
    if (seg === "." || seg === ".." || /[/\\\0]/.test(seg)) {
      throw new ApiError("COULD_NOT_VALIDATE", { cause: { field: "path", reason: "must not leave the console directory", value: raw2 } });
    }
    if (seg.startsWith(".")) throw notFound3(relative);
    segments2.push(seg);
  }
  return segments2;
}
function createStaticSite(dir, options = {}) {
  const mount = (options.mount ?? "/zac").replace(/\/+$/, "");
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_STATIC_FILE_BYTES;
  const log = options.log ?? (() => {
  });
  let root;
  try {
    root = realpathSync(dir);
    if (!statSync(root).isDirectory()) throw new StaticSiteError(`console directory ${dir} is not a directory`);
    if (!statSync(join2(root, "index.html")).isFile()) throw new StaticSiteError(`console directory ${dir} has no index.html`);
  } catch (err) {
    if (err instanceof StaticSiteError) throw err;
    const code = err.code;
    throw new StaticSiteError(code === "ENOENT" ? `console directory ${dir} has no index.html (is it a built web console?)` : `console directory ${dir}: ${code ?? String(err)}`);
  }
  const rootPrefix = root.endsWith(sep) ? root : root + sep;
  async function resolveInside(segments2) {
    let real;
    try {
      real = await realpath(join2(root, ...segments2));
    } catch {
      return void 0;
    }
    if (!real.startsWith(rootPrefix)) return void 0;
    return real;
  }
  async function send(req, res, file, logicalPath) {
    const handle = await open2(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0)).catch(() => void 0);
    if (!handle) return false;
    let streaming = false;
    try {
      const st = await handle.stat();
      if (!st.isFile()) return false;
      if (st.size > maxFileBytes) {
        log(`console: ${logicalPath} is ${st.size} bytes, over the ${maxFileBytes}-byte limit: not served`);
        throw notFound3(logicalPath);
      }
      const etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
      const isHtml = file.endsWith(".html") || file.endsWith(".htm");
      res.setHeader("content-type", contentTypeFor(file));
      res.setHeader("x-content-type-options", "nosniff");
      res.setHeader("referrer-policy", "same-origin");
      res.setHeader("x-frame-options", "SAMEORIGIN");
      res.setHeader("etag", etag);
      res.setHeader("cache-control", isHtml ? "no-cache" : "public, max-age=3600");
      if (req.headers["if-none-match"] === etag) {
        res.statusCode = 304;
        res.end();
        return true;
      }
      res.statusCode = 200;
      res.setHeader("content-length", st.size);
      if (req.method === "HEAD") {
        res.end();
        return true;
      }
      if (st.size === 0) {
        res.end();
        return true;
      }
      streaming = true;
      const stream = createReadStream("", { fd: handle, start: 0, end: st.size - 1, autoClose: true });
      await pipeline(stream, res).catch(() => res.destroy());
      return true;
    } finally {
      if (!streaming) await handle.close();
    }
  }
  return {
    mount,
    owns(pathname) {
      const p = collapse(pathname);
      return p === mount || p.startsWith(`${mount}/`);
    },
    async serve(req, res, rawPathname) {
      const pathname = collapse(rawPathname);
      const method = req.method ?? "GET";
      if (method !== "GET" && method !== "HEAD") {
        res.setHeader("allow", "GET, HEAD");
        throw new ApiError("METHOD_NOT_ALLOWED");
      }
      if (pathname === mount) {
        res.statusCode = 301;
        res.setHeader("location", `${mount}/`);
        res.end();
        return;
      }
      const segments2 = safeSegments(pathname.slice(mount.length + 1));
      if (segments2.length > 0) {
        const file = await resolveInside(segments2);
        if (file && await send(req, res, file, pathname)) return;
      }
      const last = segments2[segments2.length - 1];
      if (last !== void 0 && extname(last) !== "") throw notFound3(pathname);
      const index = await resolveInside(["index.html"]);
      if (index && await send(req, res, index, `${mount}/index.html`)) return;
      throw notFound3(pathname);
    }
  };
}

// src/controller/server/validation.ts
import { Ajv as Ajv2 } from "ajv";
var RFC33392 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
var Validators = class {
  ajv = new Ajv2({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
  compiled = /* @__PURE__ */ new Map();
  handlerSchemas = /* @__PURE__ */ new WeakMap();
  constructor() {
    this.ajv.addFormat("date-time", { type: "string", validate: (s) => RFC33392.test(s) && !Number.isNaN(Date.parse(s)) });
    this.ajv.addFormat("uri", { type: "string", validate: (s) => URL.canParse(s) });
    this.ajv.addFormat("pem", { type: "string", validate: (s) => /^[\x20-\x7e\t\r\n]*$/.test(s) });
  }
  /** Validates a resource body for a verb; returns it typed as a record. */
  body(def, verb, body) {
    const key = `${def.name}:${verb}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(bodySchema(def, verb));
      this.compiled.set(key, validate);
    }
    const valid = this.check(validate, body);
    checkBody(valid, def);
    return valid;
  }
  /** Validates against a schema a handler declares as a constant (compiled once per schema object). */
  custom(schema, body) {
    let validate = this.handlerSchemas.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.handlerSchemas.set(schema, validate);
    }
    const valid = this.check(validate, body);
    checkBody(valid);
    return valid;
  }
  check(validate, body) {
    if (validate(body)) return body;
    throw toValidationError(validate.errors?.[0], body);
  }
};
function toValidationError(error, body) {
  if (!error) return new ApiError("COULD_NOT_VALIDATE");
  const path6 = error.instancePath.split("/").filter(Boolean).map(decodePointer2);
  let field = path6.join(".");
  let reason = `${field || "body"} ${error.message ?? "is invalid"}`;
  if (error.keyword === "required") {
    const missing = error.params.missingProperty;
    path6.push(missing);
    field = path6.join(".");
    reason = `${field} in body is required`;
  } else if (error.keyword === "additionalProperties") {
    path6.push(error.params.additionalProperty);
    field = path6.join(".");
    reason = `${field} is not a known field`;
  } else if (error.keyword === "enum") {
    reason = `${field} must be one of: ${error.params.allowedValues.filter((v) => v !== null).join(", ")}`;
  } else if (error.keyword === "pattern" && path6.length > 0) {
    reason = `${field} may not start with # or @ (attributes are plain names)`;
  }
  const value = path6.some((p) => SECRET.test(p)) ? "<redacted>" : renderValue(valueAt2(body, path6));
  return new ApiError("COULD_NOT_VALIDATE", { cause: { field: field || "body", reason, value } });
}
var SECRET = /password|secret|token/i;
function decodePointer2(segment) {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}
function valueAt2(body, path6) {
  let v = body;
  for (const p of path6) v = v && typeof v === "object" ? v[p] : void 0;
  return v;
}

// src/controller/store/integrity.ts
import { openSync, closeSync, existsSync } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
var Integrity = class {
  constructor(driver, catalogue, resolve2, roleIndexes = [], onFixed = () => {
  }) {
    this.driver = driver;
    this.catalogue = catalogue;
    this.resolve = resolve2;
    this.roleIndexes = roleIndexes;
    this.onFixed = onFixed;
  }
  /** Runs every check; `report` is called once per issue, in order. */
  async check(fix, report) {
    try {
      await this.checkAll(fix, report);
    } finally {
      if (fix) this.onFixed();
    }
  }
  async checkAll(fix, report) {
    if (this.driver.dialect.name === "sqlite") await this.databaseCheck(report);
    else await this.postgresIndexCheck(report);
    const schema = declaredSchema(this.catalogue, this.resolve);
    const sideTables = /* @__PURE__ */ new Set();
    for (const def of this.catalogue) {
      for (const [field, f] of Object.entries(def.fields)) if (isSetField(f) && !f.virtual && !f.computed) sideTables.add(setTableName(def, field));
    }
    for (const index of this.roleIndexes) sideTables.add(matchTableName(index.policy, index.field));
    for (const table of Object.values(schema.tables)) {
      if (sideTables.has(table.name)) continue;
      for (const fk of table.foreignKeys) {
        await nextTurn();
        await this.driver.tx(() => this.danglingReferences(table, fk, fix, report));
      }
    }
    for (const def of this.catalogue) {
      for (const [field, f] of Object.entries(def.fields)) {
        if (!isSetField(f) || f.virtual || f.computed) continue;
        await nextTurn();
        await this.driver.tx(() => this.setConsistency(def, field, fix, report));
      }
    }
    for (const index of this.roleIndexes) {
      await nextTurn();
      await this.driver.tx(() => this.accessIndex(index, fix, report));
    }
  }
  /** The access index against the policies' roles as stored now (after the role sets themselves were settled). */
  async accessIndex(index, fix, report) {
    for (const { policyId, missing, extra } of await index.drift()) {
      const what = `access index of ${index.policy.label} '${policyId}' (${index.field}): ${missing} selected entities missing, ${extra} extra`;
      if (fix) await index.rebuild(policyId);
      report({ description: fix ? `${what}: rebuilt from its roles` : what, fixed: fix });
    }
  }
  async databaseCheck(report) {
    const rows = await this.driver.all("PRAGMA integrity_check");
    for (const row of rows) {
      const message = Object.values(row)[0];
      if (message !== "ok") report({ description: `SQLite integrity check: ${message}`, fixed: false });
    }
  }
  /** `bt_index_check` on every B-tree index of the current schema's tables, when `amcheck` is installed. */
  async postgresIndexCheck(report) {
    const installed = await this.driver.get("SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'amcheck'");
    if (!installed?.n) return;
    const indexes = await this.driver.all(
      "SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace WHERE am.amname = 'btree' AND n.nspname = current_schema() ORDER BY c.relname"
    );
    for (const { name } of indexes) {
      try {
        await this.driver.get("SELECT bt_index_check(to_regclass(?)) AS ok", [quote(name)]);
      } catch (err) {
        report({ description: `PostgreSQL index check (amcheck) of ${name}: ${err.message}`, fixed: false });
      }
    }
  }
  async danglingReferences(table, fk, fix, report) {
    const col = quote(fk.column);
    const rows = await this.driver.all(
      `SELECT c."id" AS id, c.${col} AS ref FROM ${quote(table.name)} c WHERE c.${col} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${quote(fk.table)} p WHERE p."id" = c.${col}) ORDER BY c."id"`
    );
    for (const row of rows) {
      const what = `${table.name} '${row.id}': ${fk.column} refers to ${fk.table} '${row.ref}', which does not exist`;
      if (!fix || fk.onDelete === "restrict") {
        report({ description: fk.onDelete === "restrict" && fix ? `${what} (not fixed: the reference is required; set it or delete the row)` : what, fixed: false });
        continue;
      }
      if (fk.onDelete === "cascade") {
        await this.driver.run(`DELETE FROM ${quote(table.name)} WHERE "id" = ?`, [row.id]);
        report({ description: `${what}: the row was deleted, as deleting ${fk.table} '${row.ref}' would have done`, fixed: true });
      } else {
        await this.driver.run(`UPDATE ${quote(table.name)} SET ${col} = NULL WHERE "id" = ?`, [row.id]);
        report({ description: `${what}: the reference was cleared`, fixed: true });
      }
    }
  }
  async setConsistency(def, field, fix, report) {
    const owners = quote(def.table);
    const side = quote(setTableName(def, field));
    const type = def.fields[field].type;
    const orphans = await this.driver.all(
      `SELECT s."ownerId" AS "ownerId", s."value" AS value FROM ${side} s WHERE NOT EXISTS (SELECT 1 FROM ${owners} o WHERE o."id" = s."ownerId") ORDER BY s."ownerId", s."value"`
    );
    for (const o of orphans) {
      const what = `${setTableName(def, field)}: '${o.value}' belongs to ${def.table} '${o.ownerId}', which does not exist`;
      if (fix) await this.driver.run(`DELETE FROM ${side} WHERE "ownerId" = ? AND "value" = ?`, [o.ownerId, o.value]);
      report({ description: fix ? `${what}: removed` : what, fixed: fix });
    }
    let exists2;
    if (type.kind === "refList" || type.kind === "roles") {
      const target = quote(this.resolve(type.resource).table);
      exists2 = async (ids) => {
        if (ids.length === 0) return /* @__PURE__ */ new Set();
        const list = this.driver.dialect.inList({ sql: '"id"', params: [] }, ids);
        return new Set((await this.driver.all(`SELECT "id" AS id FROM ${target} WHERE ${list.sql}`, list.params)).map((r) => r.id));
      };
    }
    const rows = await this.driver.all(`SELECT "id" AS id, ${quote(field)} AS v FROM ${owners} ORDER BY "id"`);
    const sideRows = await this.driver.all(`SELECT "ownerId" AS "ownerId", "value" AS value FROM ${side}`);
    const sideOf = /* @__PURE__ */ new Map();
    for (const s of sideRows) {
      if (!sideOf.has(s.ownerId)) sideOf.set(s.ownerId, /* @__PURE__ */ new Set());
      sideOf.get(s.ownerId).add(s.value);
    }
    const idOf = (value) => type.kind === "roles" ? value.startsWith("@") ? value.slice(1) : void 0 : value;
    const referenced2 = [...new Set(rows.flatMap((r) => parseSet(r.v)).map(idOf).filter((x) => x !== void 0))];
    const existing = exists2 ? await exists2(referenced2) : void 0;
    for (const row of rows) {
      const stored = parseSet(row.v);
      const where = `${def.table} '${row.id}' ${field}`;
      const dangling = existing ? stored.filter((v) => {
        const id = idOf(v);
        return id !== void 0 && !existing.has(id);
      }) : [];
      const kept = stored.filter((v) => !dangling.includes(v));
      if (dangling.length > 0) {
        if (fix) {
          await this.driver.run(`UPDATE ${owners} SET ${quote(field)} = ? WHERE "id" = ?`, [JSON.stringify(kept), row.id]);
          for (const v of dangling) await this.driver.run(`DELETE FROM ${side} WHERE "ownerId" = ? AND "value" = ?`, [row.id, v]);
        }
        const target = this.resolve(type.resource).table;
        for (const v of dangling) {
          const what2 = `${where}: '${v}' refers to ${target} '${idOf(v)}', which does not exist`;
          report({ description: fix ? `${what2}: removed` : what2, fixed: fix });
        }
      }
      const expected = new Set(kept);
      const actual = new Set([...sideOf.get(row.id) ?? []].filter((v) => !dangling.includes(v)));
      const missing = [...expected].filter((v) => !actual.has(v));
      const extra = [...actual].filter((v) => !expected.has(v));
      if (missing.length === 0 && extra.length === 0) continue;
      const what = `${where}: the side table ${setTableName(def, field)} disagrees with the stored value (missing ${JSON.stringify(missing)}, extra ${JSON.stringify(extra)})`;
      if (fix) {
        await this.driver.run(`DELETE FROM ${side} WHERE "ownerId" = ?`, [row.id]);
        if (expected.size > 0) {
          await this.driver.run(`INSERT INTO ${side} ("ownerId", "value") VALUES ${[...expected].map(() => "(?, ?)").join(", ")}`, [...expected].flatMap((v) => [row.id, v]));
        }
      }
      report({ description: fix ? `${what}: rebuilt from the stored value` : what, fixed: fix });
    }
  }
  /**
   * Copies the database to a new file beside it, named as OpenZiti names its snapshots (`<file>-YYYYMMDD-HHMMSS`),
   * consistent as of one moment (SQLite `VACUUM INTO`), readable only by the owner (it holds password hashes).
   * PostgreSQL: refused with an error that says so; backups there are the database's own job (pg_dump).
   */
  async snapshot(now) {
    if (this.driver.dialect.name !== "sqlite") {
      throw new ApiError("SNAPSHOT_NOT_SUPPORTED", {
        status: 501,
        message: "this controller keeps its data in PostgreSQL, whose backups are the database server's job: use pg_dump (or your database service's snapshots); the controller snapshots only its embedded SQLite database"
      });
    }
    const main = (await this.driver.all("PRAGMA database_list")).find((d) => d.name === "main");
    if (!main?.file) {
      throw new ApiError("SNAPSHOT_NOT_SUPPORTED", { status: 501, message: "the database is in memory only: there is no file to snapshot beside" });
    }
    const stamp = now.toISOString().replace(/\.\d+Z$/, "").replace(/-|:/g, "").replace("T", "-");
    const path6 = `${main.file}-${stamp}`;
    if (existsSync(path6)) throw new ApiError("SERVER_TOO_MANY_REQUESTS", { message: `a snapshot named ${path6} exists already: try again in a second` });
    closeSync(openSync(path6, "wx", 384));
    await this.driver.run("VACUUM INTO ?", [path6]);
    return path6;
  }
};
function parseSet(value) {
  if (value === null || value === void 0) return [];
  try {
    const parsed = JSON.parse(value);
    return Array.isArray(parsed) ? [...new Set(parsed.filter((v) => typeof v === "string"))] : [];
  } catch {
    return [];
  }
}

// src/controller/store/migrate.ts
function renderOp(dialect, op) {
  switch (op.op) {
    case "createTable":
      return dialect.createTable(op.table);
    case "dropTable":
      return dialect.dropTable(op.name);
    case "addColumn":
      return dialect.addColumn(op.table, op.column);
    case "dropColumn":
      return dialect.dropColumn(op.table, op.name);
    case "createIndex":
      return dialect.createIndex(op.index);
    case "dropIndex":
      return dialect.dropIndex(op.name);
  }
}
var HISTORY = `CREATE TABLE IF NOT EXISTS "schema_migrations" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "appliedAt" TEXT NOT NULL)`;
async function migrate(driver, migrations, now) {
  await driver.exec(HISTORY);
  if (driver.dialect.name === "sqlite") await adoptUserVersion(driver, migrations, now);
  const done = new Set((await driver.all(`SELECT "id" FROM "schema_migrations"`)).map((r) => Number(r.id)));
  const applied = [];
  for (const migration5 of migrations) {
    if (done.has(migration5.id)) continue;
    await driver.tx(async () => {
      for (const op of migration5.ops) await driver.exec(renderOp(driver.dialect, op));
      await driver.run(`INSERT INTO "schema_migrations" ("id", "name", "appliedAt") VALUES (?, ?, ?)`, [migration5.id, migration5.name, now()]);
    });
    applied.push(migration5.id);
  }
  return applied;
}
async function adoptUserVersion(driver, migrations, now) {
  const version = (await driver.get("PRAGMA user_version"))?.user_version ?? 0;
  if (version === 0) return;
  const recorded = await driver.get(`SELECT count(*) AS n FROM "schema_migrations"`);
  if ((recorded?.n ?? 0) > 0) return;
  await driver.tx(async () => {
    for (const m of migrations.filter((m2) => m2.id <= version)) {
      await driver.run(`INSERT INTO "schema_migrations" ("id", "name", "appliedAt") VALUES (?, ?, ?)`, [m.id, m.name, now()]);
    }
  });
}

// src/controller/store/migrations/0001-identities.ts
var migration = {
  "id": 1,
  "name": "identities",
  "ops": [
    {
      "op": "createTable",
      "table": {
        "name": "auth_policies",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "primary",
            "type": "json",
            "notNull": true
          },
          {
            "name": "secondary",
            "type": "json",
            "notNull": true
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "identities",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "type",
            "type": "text",
            "notNull": true
          },
          {
            "name": "isAdmin",
            "type": "integer",
            "notNull": true
          },
          {
            "name": "roleAttributes",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "externalId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "authPolicyId",
            "type": "text",
            "notNull": false,
            "default": "default"
          },
          {
            "name": "appData",
            "type": "json",
            "notNull": false,
            "default": "{}"
          },
          {
            "name": "defaultHostingCost",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "defaultHostingPrecedence",
            "type": "text",
            "notNull": false,
            "default": "default"
          },
          {
            "name": "serviceHostingCosts",
            "type": "json",
            "notNull": false,
            "default": "{}"
          },
          {
            "name": "serviceHostingPrecedences",
            "type": "json",
            "notNull": false,
            "default": "{}"
          },
          {
            "name": "isDefaultAdmin",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "disabledAt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "disabledUntil",
            "type": "text",
            "notNull": false
          },
          {
            "name": "envInfo",
            "type": "json",
            "notNull": false
          },
          {
            "name": "sdkInfo",
            "type": "json",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": [
          {
            "column": "authPolicyId",
            "table": "auth_policies",
            "onDelete": "restrict"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "identities_roleAttributes",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "identities",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "authenticators",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "identityId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "method",
            "type": "text",
            "notNull": true
          },
          {
            "name": "username",
            "type": "text",
            "notNull": false
          },
          {
            "name": "password",
            "type": "text",
            "notNull": false
          },
          {
            "name": "certPem",
            "type": "text",
            "notNull": false
          },
          {
            "name": "fingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "isIssuedByNetwork",
            "type": "integer",
            "notNull": false,
            "default": 0
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": [
          {
            "column": "identityId",
            "table": "identities",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "enrollments",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "identityId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "method",
            "type": "text",
            "notNull": true
          },
          {
            "name": "expiresAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "username",
            "type": "text",
            "notNull": false
          },
          {
            "name": "token",
            "type": "text",
            "notNull": false
          },
          {
            "name": "jwt",
            "type": "text",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": [
          {
            "column": "identityId",
            "table": "identities",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "identity_types",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "api_sessions",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "identityId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "authenticatorId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "ipAddress",
            "type": "text",
            "notNull": false
          },
          {
            "name": "lastActivityAt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "isMfaRequired",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "isMfaComplete",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "configTypes",
            "type": "json",
            "notNull": false
          },
          {
            "name": "tokenHash",
            "type": "text",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": [
          {
            "column": "identityId",
            "table": "identities",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identities_createdAt_idx",
        "table": "identities",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identities_name_key",
        "table": "identities",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identities_roleAttributes_value_ownerId_idx",
        "table": "identities_roleAttributes",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identities_externalId_key",
        "table": "identities",
        "columns": [
          "externalId"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identities_authPolicyId_idx",
        "table": "identities",
        "columns": [
          "authPolicyId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "authenticators_createdAt_idx",
        "table": "authenticators",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "authenticators_identityId_idx",
        "table": "authenticators",
        "columns": [
          "identityId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "authenticators_username_key",
        "table": "authenticators",
        "columns": [
          "username"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "enrollments_createdAt_idx",
        "table": "enrollments",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "enrollments_identityId_idx",
        "table": "enrollments",
        "columns": [
          "identityId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "enrollments_token_key",
        "table": "enrollments",
        "columns": [
          "token"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "enrollments_identityId_method_key",
        "table": "enrollments",
        "columns": [
          "identityId",
          "method"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "auth_policies_createdAt_idx",
        "table": "auth_policies",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "auth_policies_name_key",
        "table": "auth_policies",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identity_types_createdAt_idx",
        "table": "identity_types",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identity_types_name_key",
        "table": "identity_types",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "api_sessions_createdAt_idx",
        "table": "api_sessions",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "api_sessions_identityId_idx",
        "table": "api_sessions",
        "columns": [
          "identityId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "api_sessions_tokenHash_key",
        "table": "api_sessions",
        "columns": [
          "tokenHash"
        ],
        "unique": true
      }
    }
  ]
};

// src/controller/store/migrations/0002-one-password-per-identity.ts
var migration2 = {
  "id": 2,
  "name": "one-password-per-identity",
  "ops": [
    {
      "op": "createIndex",
      "index": {
        "name": "authenticators_identityId_key",
        "table": "authenticators",
        "columns": [
          "identityId"
        ],
        "unique": true,
        "where": {
          "method": "updb"
        }
      }
    }
  ]
};

// src/controller/store/migrations/0003-config-types-and-configs.ts
var migration3 = {
  "id": 3,
  "name": "config-types-and-configs",
  "ops": [
    {
      "op": "createTable",
      "table": {
        "name": "config_types",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "schema",
            "type": "json",
            "notNull": false,
            "default": "{}"
          },
          {
            "name": "target",
            "type": "text",
            "notNull": false,
            "default": "service"
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "configs",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "configTypeId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "data",
            "type": "json",
            "notNull": true
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": [
          {
            "column": "configTypeId",
            "table": "config_types",
            "onDelete": "restrict"
          }
        ]
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "config_types_createdAt_idx",
        "table": "config_types",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "config_types_name_key",
        "table": "config_types",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "configs_createdAt_idx",
        "table": "configs",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "configs_name_key",
        "table": "configs",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "configs_configTypeId_idx",
        "table": "configs",
        "columns": [
          "configTypeId"
        ],
        "unique": false
      }
    }
  ]
};

// src/controller/store/migrations/0004-the-management-table-certificate-authorities-and-signers.ts
var migration4 = {
  "id": 4,
  "name": "the-management-table-certificate-authorities-and-signers",
  "ops": [
    {
      "op": "addColumn",
      "table": "authenticators",
      "column": {
        "name": "pendingCertPem",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "authenticators",
      "column": {
        "name": "pendingFingerprint",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "enrollments",
      "column": {
        "name": "caId",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "services",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "roleAttributes",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "configs",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "encryptionRequired",
            "type": "integer",
            "notNull": true
          },
          {
            "name": "terminatorStrategy",
            "type": "text",
            "notNull": false,
            "default": "smartrouting"
          },
          {
            "name": "maxIdleTimeMillis",
            "type": "integer",
            "notNull": false,
            "default": 0
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "services_roleAttributes",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "services",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "services_configs",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "services",
            "onDelete": "cascade"
          },
          {
            "column": "value",
            "table": "configs",
            "onDelete": "set null"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "edge_routers",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "cost",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "noTraversal",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "disabled",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "configs",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "ctrlChanListeners",
            "type": "json",
            "notNull": false,
            "default": "{}"
          },
          {
            "name": "fingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "isVerified",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "unverifiedCertPem",
            "type": "text",
            "notNull": false
          },
          {
            "name": "unverifiedFingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentToken",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentJwt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentCreatedAt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentExpiresAt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "roleAttributes",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "isTunnelerEnabled",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "appData",
            "type": "json",
            "notNull": false,
            "default": "{}"
          },
          {
            "name": "certPem",
            "type": "text",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "edge_routers_configs",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "edge_routers",
            "onDelete": "cascade"
          },
          {
            "column": "value",
            "table": "configs",
            "onDelete": "restrict"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "edge_routers_roleAttributes",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "edge_routers",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "posture_check_types",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": false
          },
          {
            "name": "operatingSystems",
            "type": "json",
            "notNull": false
          },
          {
            "name": "version",
            "type": "text",
            "notNull": false,
            "default": "1"
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "posture_checks",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "typeId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "version",
            "type": "integer",
            "notNull": false,
            "default": 1
          },
          {
            "name": "roleAttributes",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "operatingSystems",
            "type": "json",
            "notNull": false
          },
          {
            "name": "process",
            "type": "json",
            "notNull": false
          },
          {
            "name": "semantic",
            "type": "text",
            "notNull": false
          },
          {
            "name": "processes",
            "type": "json",
            "notNull": false
          },
          {
            "name": "domains",
            "type": "json",
            "notNull": false
          },
          {
            "name": "macAddresses",
            "type": "json",
            "notNull": false
          },
          {
            "name": "timeoutSeconds",
            "type": "integer",
            "notNull": false
          },
          {
            "name": "promptOnWake",
            "type": "integer",
            "notNull": false
          },
          {
            "name": "promptOnUnlock",
            "type": "integer",
            "notNull": false
          },
          {
            "name": "ignoreLegacyEndpoints",
            "type": "integer",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "posture_checks_roleAttributes",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "posture_checks",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_policies",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "type",
            "type": "text",
            "notNull": true
          },
          {
            "name": "semantic",
            "type": "text",
            "notNull": true
          },
          {
            "name": "identityRoles",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "serviceRoles",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "postureCheckRoles",
            "type": "json",
            "notNull": false,
            "default": "[]"
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_policies_identityRoles",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "service_policies",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_policies_identityRoles_matches",
        "columns": [
          {
            "name": "policyId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "entityId",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "policyId",
          "entityId"
        ],
        "foreignKeys": [
          {
            "column": "policyId",
            "table": "service_policies",
            "onDelete": "cascade"
          },
          {
            "column": "entityId",
            "table": "identities",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_policies_serviceRoles",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "service_policies",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_policies_serviceRoles_matches",
        "columns": [
          {
            "name": "policyId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "entityId",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "policyId",
          "entityId"
        ],
        "foreignKeys": [
          {
            "column": "policyId",
            "table": "service_policies",
            "onDelete": "cascade"
          },
          {
            "column": "entityId",
            "table": "services",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_policies_postureCheckRoles",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "service_policies",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_policies_postureCheckRoles_matches",
        "columns": [
          {
            "name": "policyId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "entityId",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "policyId",
          "entityId"
        ],
        "foreignKeys": [
          {
            "column": "policyId",
            "table": "service_policies",
            "onDelete": "cascade"
          },
          {
            "column": "entityId",
            "table": "posture_checks",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "edge_router_policies",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "semantic",
            "type": "text",
            "notNull": true
          },
          {
            "name": "identityRoles",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "edgeRouterRoles",
            "type": "json",
            "notNull": false,
            "default": "[]"
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "edge_router_policies_identityRoles",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "edge_router_policies",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "edge_router_policies_identityRoles_matches",
        "columns": [
          {
            "name": "policyId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "entityId",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "policyId",
          "entityId"
        ],
        "foreignKeys": [
          {
            "column": "policyId",
            "table": "edge_router_policies",
            "onDelete": "cascade"
          },
          {
            "column": "entityId",
            "table": "identities",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "edge_router_policies_edgeRouterRoles",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "edge_router_policies",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "edge_router_policies_edgeRouterRoles_matches",
        "columns": [
          {
            "name": "policyId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "entityId",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "policyId",
          "entityId"
        ],
        "foreignKeys": [
          {
            "column": "policyId",
            "table": "edge_router_policies",
            "onDelete": "cascade"
          },
          {
            "column": "entityId",
            "table": "edge_routers",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_edge_router_policies",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "semantic",
            "type": "text",
            "notNull": true
          },
          {
            "name": "serviceRoles",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "edgeRouterRoles",
            "type": "json",
            "notNull": false,
            "default": "[]"
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_edge_router_policies_serviceRoles",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "service_edge_router_policies",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_edge_router_policies_serviceRoles_matches",
        "columns": [
          {
            "name": "policyId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "entityId",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "policyId",
          "entityId"
        ],
        "foreignKeys": [
          {
            "column": "policyId",
            "table": "service_edge_router_policies",
            "onDelete": "cascade"
          },
          {
            "column": "entityId",
            "table": "services",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_edge_router_policies_edgeRouterRoles",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "service_edge_router_policies",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "service_edge_router_policies_edgeRouterRoles_matches",
        "columns": [
          {
            "name": "policyId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "entityId",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "policyId",
          "entityId"
        ],
        "foreignKeys": [
          {
            "column": "policyId",
            "table": "service_edge_router_policies",
            "onDelete": "cascade"
          },
          {
            "column": "entityId",
            "table": "edge_routers",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "sessions",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "apiSessionId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "identityId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "serviceId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "type",
            "type": "text",
            "notNull": false
          },
          {
            "name": "servicePolicies",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "tokenHash",
            "type": "text",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": [
          {
            "column": "apiSessionId",
            "table": "api_sessions",
            "onDelete": "cascade"
          },
          {
            "column": "identityId",
            "table": "identities",
            "onDelete": "cascade"
          },
          {
            "column": "serviceId",
            "table": "services",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "sessions_servicePolicies",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "sessions",
            "onDelete": "cascade"
          },
          {
            "column": "value",
            "table": "service_policies",
            "onDelete": "set null"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "controllers",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": false
          },
          {
            "name": "ctrlAddress",
            "type": "text",
            "notNull": false
          },
          {
            "name": "apiAddresses",
            "type": "json",
            "notNull": false,
            "default": "{}"
          },
          {
            "name": "certPem",
            "type": "text",
            "notNull": false
          },
          {
            "name": "fingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "lastJoinedAt",
            "type": "text",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "identity_service_configs",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "identityId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "serviceId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "configId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "configTypeId",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": [
          {
            "column": "identityId",
            "table": "identities",
            "onDelete": "cascade"
          },
          {
            "column": "serviceId",
            "table": "services",
            "onDelete": "cascade"
          },
          {
            "column": "configId",
            "table": "configs",
            "onDelete": "restrict"
          },
          {
            "column": "configTypeId",
            "table": "config_types",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "routers",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "cost",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "noTraversal",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "disabled",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "configs",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "ctrlChanListeners",
            "type": "json",
            "notNull": false,
            "default": "{}"
          },
          {
            "name": "fingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "isVerified",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "unverifiedCertPem",
            "type": "text",
            "notNull": false
          },
          {
            "name": "unverifiedFingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentToken",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentJwt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentCreatedAt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentExpiresAt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "isEdgeRouter",
            "type": "integer",
            "notNull": false,
            "default": 0
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "routers_configs",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "routers",
            "onDelete": "cascade"
          },
          {
            "column": "value",
            "table": "configs",
            "onDelete": "restrict"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "terminators",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "service",
            "type": "text",
            "notNull": true
          },
          {
            "name": "router",
            "type": "text",
            "notNull": true
          },
          {
            "name": "binding",
            "type": "text",
            "notNull": true
          },
          {
            "name": "address",
            "type": "text",
            "notNull": true
          },
          {
            "name": "cost",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "precedence",
            "type": "text",
            "notNull": false,
            "default": "default"
          },
          {
            "name": "identity",
            "type": "text",
            "notNull": false,
            "default": ""
          },
          {
            "name": "identitySecret",
            "type": "text",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": [
          {
            "column": "service",
            "table": "services",
            "onDelete": "cascade"
          },
          {
            "column": "router",
            "table": "routers",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "cas",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "certPem",
            "type": "text",
            "notNull": true
          },
          {
            "name": "fingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "isVerified",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "verificationToken",
            "type": "text",
            "notNull": false
          },
          {
            "name": "isAutoCaEnrollmentEnabled",
            "type": "integer",
            "notNull": true
          },
          {
            "name": "isOttCaEnrollmentEnabled",
            "type": "integer",
            "notNull": true
          },
          {
            "name": "isAuthEnabled",
            "type": "integer",
            "notNull": true
          },
          {
            "name": "identityRoles",
            "type": "json",
            "notNull": true,
            "default": "[]"
          },
          {
            "name": "identityNameFormat",
            "type": "text",
            "notNull": false,
            "default": "[caName]-[commonName]"
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "external_jwt_signers",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "name",
            "type": "text",
            "notNull": true
          },
          {
            "name": "enabled",
            "type": "integer",
            "notNull": true
          },
          {
            "name": "issuer",
            "type": "text",
            "notNull": true
          },
          {
            "name": "audience",
            "type": "text",
            "notNull": false
          },
          {
            "name": "certPem",
            "type": "text",
            "notNull": false
          },
          {
            "name": "kid",
            "type": "text",
            "notNull": false
          },
          {
            "name": "jwksEndpoint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "claimsProperty",
            "type": "text",
            "notNull": false,
            "default": "sub"
          },
          {
            "name": "useExternalId",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "externalAuthUrl",
            "type": "text",
            "notNull": false
          },
          {
            "name": "clientId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "scopes",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "targetToken",
            "type": "text",
            "notNull": false,
            "default": "ACCESS"
          },
          {
            "name": "fingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "commonName",
            "type": "text",
            "notNull": false
          },
          {
            "name": "notBefore",
            "type": "text",
            "notNull": false
          },
          {
            "name": "notAfter",
            "type": "text",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "services_createdAt_idx",
        "table": "services",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "services_name_key",
        "table": "services",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "services_roleAttributes_value_ownerId_idx",
        "table": "services_roleAttributes",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "services_configs_value_ownerId_idx",
        "table": "services_configs",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "edge_routers_createdAt_idx",
        "table": "edge_routers",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "edge_routers_name_key",
        "table": "edge_routers",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "edge_routers_configs_value_ownerId_idx",
        "table": "edge_routers_configs",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "edge_routers_roleAttributes_value_ownerId_idx",
        "table": "edge_routers_roleAttributes",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "posture_check_types_createdAt_idx",
        "table": "posture_check_types",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "posture_checks_createdAt_idx",
        "table": "posture_checks",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "posture_checks_name_key",
        "table": "posture_checks",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "posture_checks_roleAttributes_value_ownerId_idx",
        "table": "posture_checks_roleAttributes",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_policies_createdAt_idx",
        "table": "service_policies",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_policies_name_key",
        "table": "service_policies",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_policies_identityRoles_value_ownerId_idx",
        "table": "service_policies_identityRoles",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_policies_identityRoles_matches_entityId_policyId_idx",
        "table": "service_policies_identityRoles_matches",
        "columns": [
          "entityId",
          "policyId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_policies_serviceRoles_value_ownerId_idx",
        "table": "service_policies_serviceRoles",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_policies_serviceRoles_matches_entityId_policyId_idx",
        "table": "service_policies_serviceRoles_matches",
        "columns": [
          "entityId",
          "policyId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_policies_postureCheckRoles_value_ownerId_idx",
        "table": "service_policies_postureCheckRoles",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_policies_postureCheckRoles_matches_entityId_po_7a1cbad3",
        "table": "service_policies_postureCheckRoles_matches",
        "columns": [
          "entityId",
          "policyId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "edge_router_policies_createdAt_idx",
        "table": "edge_router_policies",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "edge_router_policies_name_key",
        "table": "edge_router_policies",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "edge_router_policies_identityRoles_value_ownerId_idx",
        "table": "edge_router_policies_identityRoles",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "edge_router_policies_identityRoles_matches_entityId_po_dccd8089",
        "table": "edge_router_policies_identityRoles_matches",
        "columns": [
          "entityId",
          "policyId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "edge_router_policies_edgeRouterRoles_value_ownerId_idx",
        "table": "edge_router_policies_edgeRouterRoles",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "edge_router_policies_edgeRouterRoles_matches_entityId__f66d6931",
        "table": "edge_router_policies_edgeRouterRoles_matches",
        "columns": [
          "entityId",
          "policyId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_edge_router_policies_createdAt_idx",
        "table": "service_edge_router_policies",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_edge_router_policies_name_key",
        "table": "service_edge_router_policies",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_edge_router_policies_serviceRoles_value_ownerId_idx",
        "table": "service_edge_router_policies_serviceRoles",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_edge_router_policies_serviceRoles_matches_enti_c457dbb7",
        "table": "service_edge_router_policies_serviceRoles_matches",
        "columns": [
          "entityId",
          "policyId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_edge_router_policies_edgeRouterRoles_value_ownerId_idx",
        "table": "service_edge_router_policies_edgeRouterRoles",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "service_edge_router_policies_edgeRouterRoles_matches_e_9cc4f75a",
        "table": "service_edge_router_policies_edgeRouterRoles_matches",
        "columns": [
          "entityId",
          "policyId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_createdAt_idx",
        "table": "sessions",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_apiSessionId_idx",
        "table": "sessions",
        "columns": [
          "apiSessionId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_identityId_idx",
        "table": "sessions",
        "columns": [
          "identityId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_serviceId_idx",
        "table": "sessions",
        "columns": [
          "serviceId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_servicePolicies_value_ownerId_idx",
        "table": "sessions_servicePolicies",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_tokenHash_key",
        "table": "sessions",
        "columns": [
          "tokenHash"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "controllers_createdAt_idx",
        "table": "controllers",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identity_service_configs_createdAt_idx",
        "table": "identity_service_configs",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identity_service_configs_identityId_idx",
        "table": "identity_service_configs",
        "columns": [
          "identityId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identity_service_configs_serviceId_idx",
        "table": "identity_service_configs",
        "columns": [
          "serviceId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identity_service_configs_configId_idx",
        "table": "identity_service_configs",
        "columns": [
          "configId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identity_service_configs_configTypeId_idx",
        "table": "identity_service_configs",
        "columns": [
          "configTypeId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "identity_service_configs_identityId_serviceId_configTypeId_key",
        "table": "identity_service_configs",
        "columns": [
          "identityId",
          "serviceId",
          "configTypeId"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "routers_createdAt_idx",
        "table": "routers",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "routers_name_key",
        "table": "routers",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "routers_configs_value_ownerId_idx",
        "table": "routers_configs",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "terminators_createdAt_idx",
        "table": "terminators",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "terminators_service_idx",
        "table": "terminators",
        "columns": [
          "service"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "terminators_router_idx",
        "table": "terminators",
        "columns": [
          "router"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "cas_createdAt_idx",
        "table": "cas",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "cas_name_key",
        "table": "cas",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "external_jwt_signers_createdAt_idx",
        "table": "external_jwt_signers",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "external_jwt_signers_name_key",
        "table": "external_jwt_signers",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "external_jwt_signers_issuer_key",
        "table": "external_jwt_signers",
        "columns": [
          "issuer"
        ],
        "unique": true
      }
    }
  ]
};

// src/controller/store/migrations/index.ts
var MIGRATIONS = [migration, migration2, migration3, migration4];

// src/controller/store/postgres-driver.ts
import { AsyncLocalStorage } from "node:async_hooks";

// src/controller/store/dialects/postgres.ts
var TYPES2 = { text: 'TEXT COLLATE "C"', integer: "BIGINT", json: "TEXT" };
var ISO_DATETIME = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$";
var postgresDialect = {
  name: "postgres",
  createTable: (table) => renderCreateTable(table, (c) => TYPES2[c.type]),
  createIndex: renderCreateIndex,
  dropIndex: (name) => `DROP INDEX IF EXISTS "${name}"`,
  addColumn: (table, c) => `ALTER TABLE "${table}" ADD COLUMN "${c.name}" ${TYPES2[c.type]}${c.notNull ? " NOT NULL" : ""}${defaultClause(c)}`,
  dropColumn: (table, column) => `ALTER TABLE "${table}" DROP COLUMN "${column}"`,
  dropTable: (name) => `DROP TABLE IF EXISTS "${name}"`,
  noLimit: null,
  inList: (expr, values) => ({ sql: `${expr.sql} = ANY(?::text[])`, params: [...expr.params, values] }),
  containsText: (haystack, needle, ignoreCase) => ignoreCase ? sql`strpos(upper((${haystack})::text), upper(${needle}::text)) > 0` : sql`strpos((${haystack})::text, ${needle}::text) > 0`,
  tagValue(tagsSql, key, view) {
    const json = sql`((${raw(tagsSql)})::jsonb -> (${key}::text))`;
    const text2 = sql`((${raw(tagsSql)})::jsonb ->> (${key}::text))`;
    const type = sql`jsonb_typeof(${json})`;
    return typedTag2(json, text2, type, view);
  },
  tagSort: (tagsSql, key) => `((${tagsSql})::jsonb -> '${key}')`,
  violation(err) {
    const e = err;
    if (e?.code === "23505") return { kind: "unique", table: e.table, constraint: e.constraint };
    if (e?.code === "23503") return { kind: "foreignKey", constraint: e.constraint };
    return void 0;
  }
};
function typedTag2(json, text2, type, view) {
  switch (view) {
    case "any":
      return text2;
    case "string":
      return sql`(CASE WHEN ${type} = 'string' THEN ${text2} END)`;
    case "number":
      return sql`(CASE WHEN ${type} = 'number' THEN (${text2})::double precision END)`;
    case "substring":
      return sql`(CASE WHEN ${type} IN ('string', 'number') THEN ${text2} END)`;
    case "boolean":
      return sql`(CASE ${type} WHEN 'boolean' THEN (CASE WHEN (${json})::boolean THEN 1 ELSE 0 END) END)`;
    case "datetime":
      return sql`(CASE WHEN ${type} = 'string' AND ${text2} ~ ${param(ISO_DATETIME)} THEN to_char((${text2})::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END)`;
  }
}

// src/controller/store/postgres-driver.ts
var POOL_SIZE = 8;
var MIGRATION_LOCK = 1668574209;
var CONTROLLER_LOCK = 1668574210;
var PostgresDriver = class _PostgresDriver {
  constructor(pool) {
    this.pool = pool;
  }
  dialect = postgresDialect;
  client = new AsyncLocalStorage();
  /** Transactions open now; the storage is switched off when none is (see SqliteDriver.tx). */
  openTransactions = 0;
  numbered = new LruCache(1024);
  /** Held for the life of the process: the one controller allowed on this database. */
  ownerLock;
  static async open(url2) {
    const { default: pg2 } = await import("pg");
    let parsed;
    try {
      parsed = new URL(url2);
    } catch {
      throw new StoreUnavailableError(`'${redact(url2)}' is not a store URL: expected postgres://user[:password]@host[:port]/database`);
    }
    if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
      throw new StoreUnavailableError(`unsupported store '${parsed.protocol}': expected postgres://user[:password]@host[:port]/database`);
    }
    const types = { getTypeParser: (oid2, format) => oid2 === 20 ? (v) => Number(v) : pg2.types.getTypeParser(oid2, format) };
    const pool = new pg2.Pool({ connectionString: url2, max: POOL_SIZE, connectionTimeoutMillis: 1e4, types });
    pool.on("error", () => {
    });
    const driver = new _PostgresDriver(pool);
    try {
      await pool.query("SELECT 1");
    } catch (err) {
      await pool.end().catch(() => {
      });
      throw new StoreUnavailableError(`cannot connect to the store ${redact(url2)}: ${describePgError(err)}`);
    }
    return driver;
  }
  /**
   * Takes the database for this process, or refuses: several controllers on one database come later (their
   * caches would need invalidating), so for now a second one is told clearly and stops.
   */
  async claim() {
    const client2 = await this.pool.connect();
    const { rows } = await client2.query("SELECT pg_try_advisory_lock($1) AS ok", [CONTROLLER_LOCK]);
    if (!rows[0].ok) {
      client2.release();
      throw new StoreUnavailableError("another controller is already using this database (one controller per database for now)");
    }
    this.ownerLock = client2;
  }
  /** Runs `fn` holding an advisory lock, on a connection of its own (migrations run one at a time). */
  async withLock(key, fn) {
    const client2 = await this.pool.connect();
    try {
      await client2.query("SELECT pg_advisory_lock($1)", [key]);
      return await fn();
    } finally {
      await client2.query("SELECT pg_advisory_unlock($1)", [key]).catch(() => {
      });
      client2.release();
    }
  }
  text(sql2) {
    let text2 = this.numbered.get(sql2);
    if (text2 === void 0) {
      let n = 0;
      text2 = sql2.replace(/\?/g, () => `$${++n}`);
      this.numbered.set(sql2, text2);
    }
    return text2;
  }
  async query(sql2, params) {
    const runner = this.client.getStore() ?? this.pool;
    return runner.query(this.text(sql2), params);
  }
  async all(sql2, params = []) {
    return (await this.query(sql2, params)).rows;
  }
  async get(sql2, params = []) {
    return (await this.query(sql2, params)).rows[0];
  }
  async run(sql2, params = []) {
    return { changes: (await this.query(sql2, params)).rowCount ?? 0 };
  }
  async exec(sql2) {
    const runner = this.client.getStore() ?? this.pool;
    await runner.query(sql2);
  }
  async tx(fn) {
    if (this.client.getStore()) return fn();
    const client2 = await this.pool.connect();
    this.openTransactions++;
    try {
      await client2.query("BEGIN");
      const result = await this.client.run(client2, fn);
      await client2.query("COMMIT");
      return result;
    } catch (err) {
      await client2.query("ROLLBACK").catch(() => {
      });
      throw err;
    } finally {
      client2.release();
      if (--this.openTransactions === 0) this.client.disable();
    }
  }
  async close() {
    this.ownerLock?.release();
    this.ownerLock = void 0;
    await this.pool.end();
  }
};
function redact(url2) {
  return url2.replace(/(\/\/[^:/@]+):[^@/]*@/, "$1:***@");
}
function describePgError(err) {
  const e = err;
  switch (e.code) {
    case "ECONNREFUSED":
      return "connection refused (is PostgreSQL running on that host and port?)";
    case "ENOTFOUND":
      return "unknown host";
    case "28P01":
    case "28000":
      return "authentication failed (check the user and password)";
    case "3D000":
      return "the database does not exist (create it first, e.g. createdb)";
    default:
      return e.message ?? String(err);
  }
}

// src/controller/store/role-index.ts
var RoleIndex = class {
  constructor(driver, policy, field, target) {
    this.driver = driver;
    this.policy = policy;
    this.field = field;
    this.target = target;
    const attributesField = target.roleAttributes?.field;
    if (!attributesField || !target.fields[attributesField]?.filterable) {
      throw new Error(`${policy.name}.${field} selects ${target.plural}, which need filterable role attributes`);
    }
    this.matches = quote(matchTableName(policy, field));
    this.roles = quote(setTableName(policy, field));
    this.attributes = quote(setTableName(target, attributesField));
    this.targetTable = quote(target.table);
    this.policyTable = quote(policy.table);
    this.semanticField = policy.fields.semantic ? "semantic" : void 0;
  }
  matches;
  roles;
  attributes;
  targetTable;
  policyTable;
  /** The policy field whose value says how `#attribute` roles combine; policies without one use AllOf. */
  semanticField;
  /** Recomputes what one policy selects, after its roles or semantic changed: two statements, however many rows. */
  async refreshPolicy(policyId, roles, semantic) {
    await this.driver.run(`DELETE FROM ${this.matches} WHERE "policyId" = ?`, [policyId]);
    const selection = this.selection(roles, semantic);
    if (!selection) return;
    const insert = sql`INSERT INTO ${raw(this.matches)} ("policyId", "entityId") SELECT CAST(${param(policyId)} AS TEXT), x."entityId" FROM (${selection}) x`;
    await this.driver.run(insert.sql, insert.params);
  }
  /**
   * Policies whose rows differ from what their roles select now (the database integrity check): each with the
   * number of rows missing and extra. `#all` role sets have no rows to differ.
   */
  async drift() {
    const policies = await this.driver.all(
      `SELECT p."id" AS id, ${this.semanticField ? `p.${quote(this.semanticField)}` : "NULL"} AS semantic FROM ${this.policyTable} p ORDER BY p."id"`
    );
    const out = [];
    for (const p of policies) {
      const roles = (await this.driver.all(`SELECT "value" AS value FROM ${this.roles} WHERE "ownerId" = ?`, [p.id])).map((r) => r.value);
      const selection = this.selection(roles, p.semantic);
      const expected = new Set(selection ? (await this.driver.all(selection.sql, selection.params)).map((r) => r.entityId) : []);
      const actual = new Set((await this.driver.all(`SELECT "entityId" AS "entityId" FROM ${this.matches} WHERE "policyId" = ?`, [p.id])).map((r) => r.entityId));
      const missing = [...expected].filter((id) => !actual.has(id)).length;
      const extra = [...actual].filter((id) => !expected.has(id)).length;
      if (missing || extra) out.push({ policyId: p.id, missing, extra });
    }
    return out;
  }
  /** Re-evaluates one policy from its stored roles and semantic (the integrity fix). */
  async rebuild(policyId) {
    const roles = (await this.driver.all(`SELECT "value" AS value FROM ${this.roles} WHERE "ownerId" = ?`, [policyId])).map((r) => r.value);
    const row = await this.driver.get(
      `SELECT ${this.semanticField ? `p.${quote(this.semanticField)}` : "NULL"} AS semantic FROM ${this.policyTable} p WHERE p."id" = ?`,
      [policyId]
    );
    await this.refreshPolicy(policyId, roles, row?.semantic);
  }
  /** The entities a role set selects by `@id` or `#attribute`, as one SELECT of `entityId`s (none: undefined). */
  selection(roles, semantic) {
    const { ids, attributes } = splitRoles(roles);
    if (ids.length === 0 && attributes.length === 0) return void 0;
    const parts = [];
    const dialect = this.driver.dialect;
    if (ids.length) parts.push(sql`SELECT t."id" AS "entityId" FROM ${raw(this.targetTable)} t WHERE ${dialect.inList(raw('t."id"'), ids)}`);
    if (attributes.length) {
      const needed = semantic === "AnyOf" ? 1 : attributes.length;
      parts.push(
        sql`SELECT a."ownerId" AS "entityId" FROM ${raw(this.attributes)} a WHERE ${dialect.inList(raw('a."value"'), attributes)} GROUP BY a."ownerId" HAVING count(*) >= ${param(needed)}`
      );
    }
    return parts.length === 2 ? sql`${parts[0]} UNION ${parts[1]}` : parts[0];
  }
  /**
   * Recomputes which policies select one entity, after its attributes changed (or it was created): the policies
   * naming it or one of its attributes are the only candidates, and only AllOf ones need a second look.
   */
  async refreshEntity(entityId, attributes, created2) {
    if (created2 && attributes.length === 0) return;
    if (!created2) await this.driver.run(`DELETE FROM ${this.matches} WHERE "entityId" = ?`, [entityId]);
    const dialect = this.driver.dialect;
    const wanted = [`@${entityId}`, ...attributes.map((a) => `#${a}`)];
    const hits = dialect.inList(raw('r."value"'), wanted);
    const semantic = this.semanticField ? `p.${quote(this.semanticField)}` : `'AllOf'`;
    const candidates = await this.driver.all(
      `SELECT r."ownerId" AS "policyId", r."value" AS value, ${semantic} AS semantic FROM ${this.roles} r JOIN ${this.policyTable} p ON p."id" = r."ownerId" WHERE ${hits.sql}`,
      hits.params
    );
    const chosen = /* @__PURE__ */ new Set();
    const allOf = /* @__PURE__ */ new Set();
    for (const c of candidates) {
      if (c.value.startsWith("@") || c.semantic === "AnyOf") chosen.add(c.policyId);
      else allOf.add(c.policyId);
    }
    const pending = [...allOf].filter((id) => !chosen.has(id));
    if (pending.length) {
      const owned = new Set(attributes.map((a) => `#${a}`));
      const owners = dialect.inList(raw('r."ownerId"'), pending);
      const roleRows = await this.driver.all(
        `SELECT r."ownerId" AS "ownerId", r."value" AS value FROM ${this.roles} r WHERE ${owners.sql}`,
        owners.params
      );
      const missing = /* @__PURE__ */ new Set();
      for (const r of roleRows) if (r.value.startsWith("#") && r.value !== "#all" && !owned.has(r.value)) missing.add(r.ownerId);
      for (const id of pending) if (!missing.has(id)) chosen.add(id);
    }
    if (chosen.size === 0) return;
    const ids = [...chosen];
    await this.driver.run(
      `INSERT INTO ${this.matches} ("policyId", "entityId") VALUES ${ids.map(() => "(?, ?)").join(", ")}`,
      ids.flatMap((id) => [id, entityId])
    );
  }
  /**
   * Ids of the policies that select the entity (by id, attribute or `#all`); with `policyWhere`, only policies whose
   * fields have those values (`{type: 'Dial'}`).
   */
  selecting(entityId, policyWhere = {}) {
    let text2 = `SELECT s."id" FROM (SELECT m."policyId" AS "id" FROM ${this.matches} m WHERE m."entityId" = ? UNION SELECT r."ownerId" AS "id" FROM ${this.roles} r WHERE r."value" = '#all') s`;
    const params = [entityId];
    const fields = Object.keys(policyWhere);
    if (fields.length) {
      for (const f of fields) if (!this.policy.fields[f]) throw new Error(`${this.policy.name} has no field '${f}'`);
      text2 += ` JOIN ${this.policyTable} p ON p."id" = s."id" WHERE ${fields.map((f) => `p.${quote(f)} = ?`).join(" AND ")}`;
      params.push(...fields.map((f) => policyWhere[f]));
    }
    return { sql: text2, params };
  }
  /** Whether any of these policies selects every entity (`#all`). */
  async anySelectsAll(policyIds) {
    if (policyIds.length === 0) return false;
    const owners = this.driver.dialect.inList(raw('r."ownerId"'), policyIds);
    const row = await this.driver.get(`SELECT 1 AS one FROM ${this.roles} r WHERE r."value" = '#all' AND ${owners.sql} LIMIT 1`, owners.params);
    return row !== void 0;
  }
  /** `entity` is selected by one of the policies, by id or attribute (`#all` is the caller's: see anySelectsAll). */
  selectedBy(entityColumn, policyIds) {
    return sql`${raw(entityColumn)} IN (SELECT m."entityId" FROM ${raw(this.matches)} m WHERE ${this.driver.dialect.inList(raw('m."policyId"'), policyIds)})`;
  }
  /** Of these entities, the ones the policies select (for permissions on a page of services). */
  async selectedAmong(policyIds, entityIds) {
    if (policyIds.length === 0 || entityIds.length === 0) return /* @__PURE__ */ new Set();
    if (await this.anySelectsAll(policyIds)) return new Set(entityIds);
    const dialect = this.driver.dialect;
    const cond = sql`${dialect.inList(raw('m."policyId"'), policyIds)} AND ${dialect.inList(raw('m."entityId"'), entityIds)}`;
    const rows = await this.driver.all(`SELECT DISTINCT m."entityId" AS "entityId" FROM ${this.matches} m WHERE ${cond.sql}`, cond.params);
    return new Set(rows.map((r) => r.entityId));
  }
  /** Ids of every entity one of the policies selects (policy advice compares two such sets). */
  async selectedIds(policyIds) {
    if (policyIds.length === 0) return [];
    if (await this.anySelectsAll(policyIds)) return (await this.driver.all(`SELECT "id" FROM ${this.targetTable}`)).map((r) => r.id);
    const owners = this.driver.dialect.inList(raw('m."policyId"'), policyIds);
    return (await this.driver.all(`SELECT DISTINCT m."entityId" AS "id" FROM ${this.matches} m WHERE ${owners.sql}`, owners.params)).map((r) => r.id);
  }
  /** Ids of the policies (among all, or matching `policyWhere`) that select the entity. */
  async policiesSelecting(entityId, policyWhere) {
    const q = this.selecting(entityId, policyWhere);
    return (await this.driver.all(q.sql, q.params)).map((r) => r.id);
  }
};
function splitRoles(roles) {
  const ids = [];
  const attributes = [];
  for (const role of roles) {
    if (role.startsWith("@")) ids.push(role.slice(1));
    else if (role.startsWith("#") && role !== "#all") attributes.push(role.slice(1));
  }
  return { ids, attributes: [...new Set(attributes)] };
}

// src/controller/store/sqlite-driver.ts
import { AsyncLocalStorage as AsyncLocalStorage2 } from "node:async_hooks";
import { chmodSync, closeSync as closeSync2, openSync as openSync2 } from "node:fs";

// src/controller/store/sqlite-native.ts
import { createRequire } from "node:module";
import path2 from "node:path";
var FIX = "rebuild it with: npm rebuild better-sqlite3";
var FROM_SOURCE = "without network access to a prebuilt binary it compiles from source: that needs python3, make, a C++ compiler and Node.js headers";
var SqliteNativeError = class extends Error {
  problem;
  details;
  constructor(problem, message, details, cause) {
    super(message, { cause });
    this.name = "SqliteNativeError";
    this.problem = problem;
    this.details = details;
  }
};
var loaded = /* @__PURE__ */ new Map();
function loadSqlite(bindingPath = process.env.CTL_SQLITE_BINDING || void 0) {
  const key = bindingPath ?? "";
  const cached = loaded.get(key);
  if (cached) return cached;
  const requireHere = createRequire(import.meta.url);
  let Database;
  let packageRoot;
  try {
    packageRoot = path2.dirname(requireHere.resolve("better-sqlite3/package.json"));
    Database = requireHere("better-sqlite3");
  } catch (err) {
    throw new SqliteNativeError("not-installed", "the SQLite module better-sqlite3 is not installed", ["install the dependencies with: npm install"], err);
  }
  let nativeBinding;
  try {
    if (bindingPath !== void 0) {
      nativeBinding = requireHere(path2.resolve(bindingPath).replace(/(\.node)?$/, ".node"));
    } else {
      const bindings = createRequire(path2.join(packageRoot, "package.json"))("bindings");
      nativeBinding = bindings({ bindings: "better_sqlite3.node", module_root: packageRoot });
    }
  } catch (err) {
    throw describeLoadFailure(err, bindingPath);
  }
  const result = { Database, nativeBinding };
  loaded.set(key, result);
  return result;
}
function openSqlite(file, options = {}) {
  const { Database, nativeBinding } = loadSqlite();
  return new Database(file, { ...options, nativeBinding });
}
function describeLoadFailure(err, bindingPath) {
  const message = err instanceof Error ? err.message : String(err);
  const code = err?.code;
  const where = bindingPath ? ` (${bindingPath})` : "";
  const versionMismatch = /NODE_MODULE_VERSION (\d+)[\s\S]*?NODE_MODULE_VERSION (\d+)/.exec(message);
  if (versionMismatch) {
    return new SqliteNativeError(
      "node-version",
      `the SQLite native module (better-sqlite3)${where} was built for another Node.js version (NODE_MODULE_VERSION ${versionMismatch[1]}; Node.js ${process.version} needs ${versionMismatch[2]})`,
      [`${FIX} (with the Node.js that runs ctl)`, FROM_SOURCE],
      err
    );
  }
  if (message.startsWith("Could not locate the bindings file") || code === "MODULE_NOT_FOUND" && /\.node\b/.test(message)) {
    return new SqliteNativeError(
      "missing",
      `the SQLite native module (better-sqlite3) is not built${where || ": no better_sqlite3.node was found"}`,
      [
        FIX,
        FROM_SOURCE,
        "npm 12 skips install scripts that package.json's allowScripts does not approve: see `npm install-scripts ls`"
      ],
      err
    );
  }
  if (code === "ERR_DLOPEN_FAILED") {
    return new SqliteNativeError(
      "load-failed",
      `the SQLite native module (better-sqlite3)${where} could not be loaded: ${message.split("\n")[0]}`,
      [`${FIX} (it may have been built for another platform or C library)`, FROM_SOURCE],
      err
    );
  }
  return err instanceof Error ? err : new Error(message);
}

// src/controller/store/sqlite-driver.ts
var SqliteDriver = class _SqliteDriver {
  constructor(db, cacheSize) {
    this.db = db;
    this.statements = new LruCache(cacheSize);
  }
  dialect = sqliteDialect;
  statements;
  inTx = new AsyncLocalStorage2();
  busy;
  static open(file, opts = {}) {
    let db;
    try {
      if (file !== ":memory:") {
        closeSync2(openSync2(file, "a", 384));
        chmodSync(file, 384);
      }
      db = openSqlite(file);
    } catch (err) {
      if (err.name === "SqliteNativeError") throw err;
      throw new StoreUnavailableError(`cannot open the database ${file}: ${err.message}`);
    }
    try {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = FULL");
      db.pragma("foreign_keys = ON");
      db.pragma("busy_timeout = 5000");
      db.pragma("schema_version");
    } catch (err) {
      db.close();
      throw new StoreUnavailableError(`cannot use the database ${file}: ${err.message}`);
    }
    return new _SqliteDriver(db, opts.cacheSize ?? STATEMENT_CACHE_SIZE);
  }
  /** How many statements are cached (bounded by the LRU). */
  get cachedStatements() {
    return this.statements.size;
  }
  statement(sql2) {
    let stmt = this.statements.get(sql2);
    if (!stmt) {
      stmt = this.db.prepare(sql2);
      this.statements.set(sql2, stmt);
    }
    return stmt;
  }
  async idle() {
    while (this.busy && !this.inTx.getStore()) await this.busy;
  }
  async all(sql2, params = []) {
    if (this.busy) await this.idle();
    return this.statement(sql2).all(...params);
  }
  async get(sql2, params = []) {
    if (this.busy) await this.idle();
    return this.statement(sql2).get(...params);
  }
  async run(sql2, params = []) {
    if (this.busy) await this.idle();
    return { changes: this.statement(sql2).run(...params).changes };
  }
  /** DDL of a migration: several statements, not cached. */
  async exec(sql2) {
    if (this.busy) await this.idle();
    this.db.exec(sql2);
  }
  async tx(fn) {
    if (this.inTx.getStore()) return fn();
    await this.idle();
    let release;
    this.busy = new Promise((resolve2) => release = resolve2);
    try {
      this.db.exec("BEGIN IMMEDIATE");
      const result = await this.inTx.run(true, fn);
      this.db.exec("COMMIT");
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      throw err;
    } finally {
      this.inTx.disable();
      this.busy = void 0;
      release();
    }
  }
  async close() {
    await this.idle();
    this.db.close();
  }
};

// src/controller/store/store.ts
function parseStoreLocation(value) {
  if (/^postgres(ql)?:/i.test(value)) return { postgres: value };
  if (/^sqlite:/i.test(value)) return { sqlite: value.replace(/^sqlite:(\/\/)?/i, "") };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value);
  if (scheme) throw new StoreUnavailableError(`unsupported store '${scheme[1]}://': expected postgres://user@host:port/db, or the path of a SQLite file`);
  return { sqlite: value };
}
function referrersOf(catalogue) {
  const byTarget = /* @__PURE__ */ new Map();
  for (const def of catalogue) {
    for (const [field, f] of Object.entries(def.fields)) {
      const type = f.type;
      if (type.kind !== "ref" && type.kind !== "refList" && type.kind !== "roles") continue;
      if (f.virtual || f.computed) continue;
      const onDelete = type.kind === "roles" ? "clear" : type.onDelete ?? "restrict";
      const list = byTarget.get(type.resource) ?? [];
      list.push({ def, field, kind: type.kind, onDelete });
      byTarget.set(type.resource, list);
    }
  }
  return byTarget;
}
function roleIndexesOf(driver, catalogue) {
  return catalogue.flatMap(
    (def) => Object.entries(def.fields).filter(([, f]) => f.type.kind === "roles").map(([field, f]) => new RoleIndex(driver, def, field, resource(f.type.resource)))
  );
}
var Store = class _Store {
  constructor(driver) {
    this.driver = driver;
    const referrers = referrersOf(CATALOGUE);
    const uniqueIndexes = {};
    for (const index of Object.values(declaredSchema(CATALOGUE, resource).indexes)) {
      if (index.unique) uniqueIndexes[index.name] = index.columns;
    }
    const roleIndexes = roleIndexesOf(driver, CATALOGUE);
    for (const def of CATALOGUE) {
      const indexes = {
        own: roleIndexes.filter((i) => i.policy.name === def.name),
        selectedBy: roleIndexes.filter((i) => i.target.name === def.name)
      };
      this.repos.set(def.name, new Repository(driver, def, resource, referrers.get(def.name) ?? [], uniqueIndexes, indexes, (event) => this.emit(event)));
    }
    this.roleIndexes = new Map(roleIndexes.map((i) => [`${i.policy.name}.${i.field}`, i]));
  }
  repos = /* @__PURE__ */ new Map();
  roleIndexes;
  listeners = [];
  /**
   * Tells `listener` of every write a repository makes, as it is made (inside its transaction, if any). What may be
   * cached from reads must also know whether the store lets a read see a transaction's state before it commits:
   * see `readsWaitForWrites`.
   */
  onWrite(listener) {
    this.listeners.push(listener);
  }
  /**
   * Whether a read outside a transaction waits until an open one ends (SQLite: the driver serialises them). Then a
   * cache dropped at each write can never keep a state read before a commit; on PostgreSQL a read sees the last
   * committed state while a transaction is open, so such a cache would need to be dropped at commit as well.
   */
  get readsWaitForWrites() {
    return this.driver.dialect.name === "sqlite";
  }
  /** Drops every cache built on reads: after writes made without a repository (the integrity fix). */
  changedOutsideRepositories() {
    this.emit({ resource: "*", op: "update" });
  }
  emit(event) {
    for (const listener of this.listeners) listener(event);
  }
  /** The access index of a policy's role set, e.g. `roleIndex('service-policy', 'identityRoles')`. */
  roleIndex(policy, field) {
    const index = this.roleIndexes.get(`${policy}.${field}`);
    if (!index) throw new Error(`${policy}.${field} is not a role set`);
    return index;
  }
  /** Opens the database, brings its schema to the last migration, and makes sure the built-in rows exist. */
  static async open(location, opts = {}) {
    const now = opts.now ?? (() => (/* @__PURE__ */ new Date()).toISOString());
    let driver;
    if ("postgres" in location) {
      const pg2 = await PostgresDriver.open(location.postgres);
      try {
        await pg2.claim();
        await pg2.withLock(MIGRATION_LOCK, () => migrate(pg2, MIGRATIONS, now));
      } catch (err) {
        await pg2.close();
        throw err;
      }
      driver = pg2;
    } else {
      driver = SqliteDriver.open(location.sqlite, { cacheSize: opts.cacheSize });
      await migrate(driver, MIGRATIONS, now);
    }
    const store = new _Store(driver);
    await store.ensureBuiltIns(now());
    return store;
  }
  repo(name) {
    const repo = this.repos.get(name);
    if (!repo) throw new Error(`no repository for resource '${name}'`);
    return repo;
  }
  repoFor(def) {
    return this.repo(def.name);
  }
  /** Runs fn in one transaction: all of it is written, or none. Repositories used inside join it. */
  tx(fn) {
    return this.driver.tx(fn);
  }
  close() {
    return this.driver.close();
  }
  /** Consistency checks, repairs and snapshots of the whole database (integrity.ts). */
  integrity() {
    return new Integrity(this.driver, CATALOGUE, resource, [...this.roleIndexes.values()], () => this.changedOutsideRepositories());
  }
  async ensureBuiltIns(now) {
    await this.tx(async () => {
      for (const def of CATALOGUE) {
        for (const row of def.builtIns ?? []) await this.repoFor(def).ensure(row, now);
      }
    });
  }
};

// src/controller/version.ts
var CONTROLLER_VERSION = "0.1.0";

// src/controller/index.ts
var SWEEP_INTERVAL_MS = 3e4;
async function createController(options) {
  const timeoutMinutes = Math.max(options.sessionTimeoutMinutes ?? 30, 1);
  const log = options.log ?? (() => {
  });
  const site = options.consoleDir ? createStaticSite(options.consoleDir, { log }) : void 0;
  const pki = options.pki ?? await loadOrCreatePki(options.pkiDir ?? join3(options.dataDir, "pki"), { hosts: options.hosts ?? ["localhost", "127.0.0.1"] });
  const location = options.store ?? (options.storeUrl ? parseStoreLocation(options.storeUrl) : { sqlite: join3(options.dataDir, "ctl.db") });
  const store = await Store.open(location);
  const passwords = new PasswordHasher(options.passwordCost);
  const adminUser = options.adminUser ?? "admin";
  try {
    await ensureDefaultAdmin(store, {
      username: adminUser,
      password: options.adminPassword,
      now: /* @__PURE__ */ new Date(),
      passwords,
      announce: options.announceAdminPassword
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  const runtime = {
    store,
    apiSessions: new ApiSessions(store, timeoutMinutes * 6e4),
    passwords,
    // As many checks as libuv has threads to run scrypt on (4 by default); a burst beyond 256 waiting gets 429.
    passwordChecks: new ConcurrencyLimiter(4, 256),
    loginThrottle: new LoginThrottle(options.loginThrottle ?? DEFAULT_LOGIN_THROTTLE),
    validators: new Validators(),
    pki,
    enrollmentSigner: createEnrollmentJwtSigner(pki, options.publicUrl),
    config: {
      publicUrl: options.publicUrl,
      sessionTimeoutMs: timeoutMinutes * 6e4,
      enrollmentDurationMinutes: 180,
      version: CONTROLLER_VERSION,
      corsOrigins: options.corsOrigins
    },
    clock: () => /* @__PURE__ */ new Date(),
    log,
    accessLog: options.accessLog,
    present: (def, rows) => registry.present(def, rows),
    hooks: (resource2) => registry.hooks(resource2)
  };
  const registry = buildRoutes(runtime);
  const app = createApp(runtime, registry.routes, site);
  await recordSelf(runtime);
  const sweep = setInterval(() => void runtime.apiSessions.sweep(/* @__PURE__ */ new Date()).catch((err) => log(`session sweep failed: ${err}`)), SWEEP_INTERVAL_MS);
  sweep.unref();
  return {
    runtime,
    adminUser,
    handle: app.handle,
    async inject(request) {
      const { inject } = await import("light-my-request");
      const res = await inject((req, res2) => void app.handle(req, res2), {
        method: request.method,
        url: request.url,
        headers: request.headers,
        payload: request.payload,
        remoteAddress: "127.0.0.1"
      });
      return { statusCode: res.statusCode, headers: res.headers, body: res.body, json: () => JSON.parse(res.body) };
    },
    async close() {
      clearInterval(sweep);
      await store.close();
    }
  };
}

// test/helpers/fixtures.ts
import { existsSync as existsSync2 } from "node:fs";
import { cp, mkdtemp, rename as rename2, rm } from "node:fs/promises";
import os from "node:os";
import path3 from "node:path";
var TEST_PASSWORD_COST = { N: 2 ** 10, r: 8, p: 1 };
function testHosts() {
  return ["127.0.0.1", "localhost", "::1", os.hostname()];
}
var shared;
async function sharedTestPki() {
  shared ??= (async () => {
    const dir = path3.join(os.tmpdir(), `ctl-test-pki-${os.userInfo().uid}-v1-${os.hostname()}`);
    if (existsSync2(path3.join(dir, "server.cert.pem"))) return dir;
    const scratch = await mkdtemp(`${dir}-making-`);
    await loadOrCreatePki(scratch, { hosts: testHosts() });
    await rename2(scratch, dir).catch(async () => rm(scratch, { recursive: true, force: true }));
    return dir;
  })();
  return shared;
}

// test/helpers/postgres.ts
import { randomBytes as randomBytes8 } from "node:crypto";
import { writeFileSync } from "node:fs";
import os2 from "node:os";
import path4 from "node:path";
import pg from "pg";
var PG_URL_VARIABLE = "CTL_TEST_PG_URL";
var SKIPPED_NOTICE = `note: PostgreSQL tests are skipped: ${PG_URL_VARIABLE} is not set. To run them: export ${PG_URL_VARIABLE}=$(node scripts/pg-cluster.mjs start) (see README, "PostgreSQL tests")`;
function storesUnderTest(env = process.env, notice = noticeOncePerRun) {
  if (env[PG_URL_VARIABLE]) return ["sqlite", "postgres"];
  notice(SKIPPED_NOTICE);
  return ["sqlite"];
}
var noticed = false;
function noticeOncePerRun(text2) {
  if (noticed) return;
  noticed = true;
  try {
    writeFileSync(path4.join(os2.tmpdir(), `ctl-test-pg-skipped-${os2.userInfo().uid}-${process.ppid}`), "", { flag: "wx" });
  } catch {
    return;
  }
  process.stderr.write(`${text2}
`);
}
function testPgUrl(env = process.env) {
  const url2 = env[PG_URL_VARIABLE];
  if (!url2) throw new Error(`${PG_URL_VARIABLE} is not set: start a cluster with node scripts/pg-cluster.mjs start and export its URL`);
  return url2;
}
async function withAdminClient(serverUrl, work) {
  const client2 = new pg.Client({ connectionString: serverUrl });
  await client2.connect();
  try {
    return await work(client2);
  } finally {
    await client2.end();
  }
}
async function createTestDatabase(serverUrl = testPgUrl()) {
  const name = `ctl_test_${process.pid}_${Date.now().toString(36)}_${randomBytes8(4).toString("hex")}`;
  await withAdminClient(serverUrl, (client2) => client2.query(`CREATE DATABASE ${client2.escapeIdentifier(name)}`));
  const url2 = new URL(serverUrl);
  url2.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url2.toString(),
    async drop() {
      if (dropped) return;
      await withAdminClient(serverUrl, async (client2) => {
        await client2.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
        const { rows } = await client2.query("SELECT current_setting('server_version_num') AS version");
        const force = Number(rows[0].version) >= 13e4 ? " WITH (FORCE)" : "";
        await client2.query(`DROP DATABASE IF EXISTS ${client2.escapeIdentifier(name)}${force}`);
      });
      dropped = true;
    }
  };
}

// test/helpers/spec.ts
import { AssertionError } from "node:assert";
import { createHash as createHash13 } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync as writeFileSync2 } from "node:fs";
import path5 from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv as Ajv3 } from "ajv";
import { parse as parseYaml } from "yaml";
var REPO_ROOT = path5.resolve(path5.dirname(fileURLToPath(import.meta.url)), "..", "..");
var SPEC_DIR = path5.resolve(REPO_ROOT, "..", "shared", "spec", "openziti");
var BASE_PATHS = {
  management: "/edge/management/v1",
  client: "/edge/client/v1"
};
var ERROR_STATUS = {
  NOT_FOUND: 404,
  UNHANDLED: 500,
  COULD_NOT_VALIDATE: 400,
  COULD_NOT_PARSE_BODY: 400,
  INVALID_CONTENT_TYPE: 400,
  UNAUTHORIZED: 401,
  INVALID_AUTH: 401,
  INVALID_AUTH_METHOD: 400,
  INVALID_FILTER: 400,
  INVALID_PAGINATION: 400,
  INVALID_SORT_IDENTIFIER: 400,
  ENTITY_CAN_NOT_BE_DELETED: 400,
  ENTITY_CAN_NOT_BE_UPDATED: 400,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_ENTITY_TOO_LARGE: 413,
  INVALID_UUID: 400,
  ENROLLMENT_EXPIRED: 400,
  INVALID_ENROLLMENT_TOKEN: 400,
  INVALID_ENROLL_METHOD: 400,
  CAN_NOT_DELETE_REFERENCED_ENTITY: 409,
  CAN_NOT_UPDATE_AUTHENTICATOR: 409,
  INVALID_AUTHENTICATOR_PROPERTIES: 400,
  MAX_AUTHENTICATOR_METHODS_REACHED: 409,
  REFERENCED_ENTITY_NOT_FOUND: 400,
  ENROLLMENT_EXISTS: 409,
  MFA_EXISTS: 409,
  MFA_NOT_ENROLLED: 409,
  MFA_INVALID_TOKEN: 400,
  MFA_ENROLLMENT_NOT_STARTED: 404,
  SERVER_TOO_MANY_REQUESTS: 429,
  RATE_LIMITED: 429,
  TIMEOUT: 503
};
var SPEC_CORRECTIONS = [];
var SCHEMA_ID = {
  management: "https://spec.test.invalid/edge-management.json",
  client: "https://spec.test.invalid/edge-client.json"
};
var HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch"];
var loaded2 = /* @__PURE__ */ new Map();
function specFile(api) {
  return path5.join(SPEC_DIR, api === "management" ? "management.yml" : "client.yml");
}
function loadSpec(api) {
  const cached = loaded2.get(api);
  if (cached) return cached;
  const doc = parsedDocument(specFile(api));
  fixNullItems(doc, `${api}.yml`, "");
  const operations = [];
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item?.[method];
      if (!op) continue;
      const names = [];
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{([^}]+)\}/g, (_m, name) => {
        names.push(name);
        return "([^/]+)";
      });
      operations.push({
        api,
        method: method.toUpperCase(),
        template,
        operationId: String(op.operationId ?? `${method} ${template}`),
        responses: op.responses ?? {},
        // No global `security` in either document: an operation without one needs no authentication either.
        anonymous: op.security === void 0 || Array.isArray(op.security) && op.security.length === 0,
        regex: new RegExp(`^${pattern}$`),
        paramCount: names.length
      });
    }
  }
  operations.sort((a, b) => a.paramCount - b.paramCount);
  const result = { doc, operations };
  loaded2.set(api, result);
  return result;
}
function parsedDocument(file) {
  const text2 = readFileSync(file, "utf8");
  const cacheDir = path5.join(REPO_ROOT, "node_modules", ".cache", "ctl-spec");
  const cached = path5.join(cacheDir, `${createHash13("sha256").update(text2).digest("hex").slice(0, 32)}.json`);
  try {
    return JSON.parse(readFileSync(cached, "utf8"));
  } catch {
  }
  const floatTag = { tag: "tag:yaml.org,2002:float", resolve: (s) => Number(s), identify: () => false };
  const doc = parseYaml(text2, { maxAliasCount: -1, customTags: (tags2) => [floatTag, ...tags2] });
  mkdirSync(cacheDir, { recursive: true });
  const partial = `${cached}.${process.pid}`;
  writeFileSync2(partial, JSON.stringify(doc));
  renameSync(partial, cached);
  return doc;
}
function fixNullItems(node, file, where) {
  if (Array.isArray(node)) {
    node.forEach((v, i) => fixNullItems(v, file, `${where}/${i}`));
    return;
  }
  if (!node || typeof node !== "object") return;
  if ("items" in node && node.items === null) {
    node.items = { type: "object" };
    SPEC_CORRECTIONS.push(`${file}${where}: items: null replaced with {type: object} (known defect, spec README)`);
  }
  for (const [k, v] of Object.entries(node)) fixNullItems(v, file, `${where}/${k}`);
}
function normalisePath2(api, rawPath) {
  let p = rawPath.split("?")[0].split("#")[0];
  p = p.replace(/\/{2,}/g, "/");
  if (p.length > 1 && p.endsWith("/")) p = p.replace(/\/+$/, "");
  if (p === "") p = "/";
  const base = BASE_PATHS[api];
  if (p === base) return "/";
  if (p.startsWith(`${base}/`)) p = p.slice(base.length);
  return p;
}
function findOperation(api, method, rawPath) {
  const p = normalisePath2(api, rawPath);
  const m = method.toUpperCase();
  return loadSpec(api).operations.find((op) => op.method === m && op.regex.test(p));
}
var DROPPED_KEYWORDS = /* @__PURE__ */ new Set(["discriminator", "example", "examples", "xml", "externalDocs", "readOnly", "title"]);
function declaredProperties(schema, defs, seen = /* @__PURE__ */ new Set()) {
  const out = /* @__PURE__ */ new Set();
  if (!schema || typeof schema !== "object" || seen.has(schema)) return out;
  seen.add(schema);
  if (typeof schema.$ref === "string") {
    const target = defs[refName(schema.$ref)];
    for (const n of declaredProperties(target, defs, seen)) out.add(n);
  }
  for (const n of Object.keys(schema.properties ?? {})) out.add(n);
  for (const part of schema.allOf ?? []) for (const n of declaredProperties(part, defs, seen)) out.add(n);
  return out;
}
function refName(ref2) {
  const prefix = "#/definitions/";
  if (!ref2.startsWith(prefix)) throw new Error(`unsupported $ref ${ref2} (only local definitions are expected)`);
  return ref2.slice(prefix.length);
}
function dropUndeclaredRequired(schema, defs, where, inherited) {
  if (!schema || typeof schema !== "object") return;
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => dropUndeclaredRequired(s, defs, `${where}/${i}`));
    return;
  }
  const own = declaredProperties(schema, defs);
  const allowed = /* @__PURE__ */ new Set([...own, ...inherited ?? []]);
  if (Array.isArray(schema.allOf)) {
    const union = declaredProperties(schema, defs);
    schema.allOf.forEach((part, i) => dropUndeclaredRequired(part, defs, `${where}/allOf/${i}`, union));
  }
  if (Array.isArray(schema.required) && (schema.properties || schema.allOf || inherited)) {
    const kept = schema.required.filter((n) => allowed.has(n));
    const dropped = schema.required.filter((n) => !allowed.has(n));
    if (dropped.length > 0) {
      SPEC_CORRECTIONS.push(`${where}: required ${JSON.stringify(dropped)} never declared as properties; dropped`);
      schema.required = kept;
    }
  }
  for (const [k, v] of Object.entries(schema.properties ?? {})) dropUndeclaredRequired(v, defs, `${where}/properties/${k}`);
  if (schema.items) dropUndeclaredRequired(schema.items, defs, `${where}/items`);
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    dropUndeclaredRequired(schema.additionalProperties, defs, `${where}/additionalProperties`);
  }
}
function nullable2(schema) {
  return { anyOf: [{ type: "null" }, schema] };
}
function convertSchema(node, api) {
  if (Array.isArray(node)) return node.map((n) => convertSchema(n, api));
  if (!node || typeof node !== "object") return node;
  const src = node;
  const out = {};
  for (const [key, value] of Object.entries(src)) {
    if (key.startsWith("x-") || DROPPED_KEYWORDS.has(key)) continue;
    if (key === "$ref") {
      out.$ref = `${SCHEMA_ID[api]}#/definitions/${refName(String(value))}`;
    } else if (key === "properties" || key === "definitions") {
      const props = {};
      for (const [name, sub] of Object.entries(value)) {
        props[name] = key === "properties" && name === "appData" ? { type: ["object", "null"] } : convertSchema(sub, api);
      }
      out[key] = props;
    } else if (key === "enum" || key === "required" || key === "default" || key === "description") {
      out[key] = value;
    } else {
      out[key] = convertSchema(value, api);
    }
  }
  return src["x-nullable"] === true ? nullable2(out) : out;
}
function buildDefinitions(api, doc) {
  const raw2 = structuredClone(doc.definitions ?? {});
  for (const [name, def] of Object.entries(raw2)) dropUndeclaredRequired(def, raw2, `${api}.yml#/definitions/${name}`);
  if (raw2.subTags) {
    raw2.subTags = { type: "object", additionalProperties: { type: ["string", "boolean", "number", "null"] } };
    SPEC_CORRECTIONS.push(`${api}.yml#/definitions/subTags: tag values are scalars (null, string, boolean, number)`);
  }
  if (raw2.meta) {
    raw2.meta = { ...raw2.meta, "x-nullable": true };
    SPEC_CORRECTIONS.push(`${api}.yml#/definitions/meta: may be null (wire-protocol section 9)`);
  }
  if (raw2.capabilities?.enum && !raw2.capabilities.enum.includes("OIDC_AUTH_WITH_CSR")) {
    raw2.capabilities = { ...raw2.capabilities, enum: [...raw2.capabilities.enum, "OIDC_AUTH_WITH_CSR"] };
    SPEC_CORRECTIONS.push(`${api}.yml#/definitions/capabilities: OIDC_AUTH_WITH_CSR added (newer-than-spec)`);
  }
  const serviceDetail = raw2.serviceDetail?.allOf?.[1]?.properties?.config;
  if (serviceDetail?.additionalProperties?.additionalProperties) {
    serviceDetail.additionalProperties = { type: "object" };
    SPEC_CORRECTIONS.push(`${api}.yml#/definitions/serviceDetail: config data members may be any JSON value`);
  }
  for (const time2 of ["startTime", "endTime"]) {
    const property = raw2.dataIntegrityCheckDetails?.properties?.[time2];
    if (property) {
      property["x-nullable"] = true;
      SPEC_CORRECTIONS.push(`${api}.yml#/definitions/dataIntegrityCheckDetails: ${time2} is null until known`);
    }
  }
  return Object.fromEntries(Object.entries(raw2).map(([name, def]) => [name, convertSchema(def, api)]));
}
function responseOverride(op, status, converted) {
  if (op.operationId === "detailSpecBody" && status === "200") {
    return {
      anyOf: [
        converted,
        { type: "object", required: ["swagger", "paths"], properties: { swagger: { type: "string" }, paths: { type: "object" } } }
      ]
    };
  }
  return converted;
}
var DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;
var UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
var BASE642 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;
function isUriReference(s) {
  if (/[\s\u0000-\u001f]/.test(s)) return false;
  try {
    new URL(s, "https://base.invalid/edge/");
    return true;
  } catch {
    return false;
  }
}
var ajvInstance;
function ajv2() {
  if (ajvInstance) return ajvInstance;
  const a = new Ajv3({ strict: false, allErrors: true, validateFormats: true });
  a.addFormat("date-time", { type: "string", validate: (s) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)) });
  a.addFormat("date", { type: "string", validate: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) });
  a.addFormat("uri", { type: "string", validate: isUriReference });
  a.addFormat("url", { type: "string", validate: isUriReference });
  a.addFormat("uuid", { type: "string", validate: (s) => UUID.test(s) });
  a.addFormat("byte", { type: "string", validate: (s) => BASE642.test(s) });
  a.addFormat("password", { type: "string", validate: () => true });
  a.addFormat("int32", { type: "number", validate: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  a.addFormat("int64", { type: "number", validate: (n) => Number.isInteger(n) });
  a.addFormat("float", { type: "number", validate: () => true });
  a.addFormat("double", { type: "number", validate: () => true });
  for (const api of ["management", "client"]) {
    const { doc } = loadSpec(api);
    a.addSchema({ $id: SCHEMA_ID[api], definitions: buildDefinitions(api, doc) });
  }
  ajvInstance = a;
  return a;
}
var validators = /* @__PURE__ */ new Map();
function compiled2(key, schema) {
  let v = validators.get(key);
  if (!v) {
    v = ajv2().compile(schema);
    validators.set(key, v);
  }
  return v;
}
function definitionValidator(api, name) {
  return compiled2(`def:${api}:${name}`, { $ref: `${SCHEMA_ID[api]}#/definitions/${name}` });
}
function formatErrors(errors) {
  return (errors ?? []).slice(0, 25).map((e) => `  ${e.instancePath || "(root)"} ${e.message ?? e.keyword}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""}`).join("\n");
}
function preview(body) {
  let s;
  try {
    s = typeof body === "string" ? body : JSON.stringify(body) ?? String(body);
  } catch {
    s = String(body);
  }
  return s.length > 1500 ? `${s.slice(0, 1500)}... (${s.length} chars)` : s;
}
function fail(message, body) {
  throw new AssertionError({ message: `${message}
  body: ${preview(body)}` });
}
function checkErrorEnvelope(status, body, what) {
  const v = definitionValidator("management", "apiErrorEnvelope");
  if (!v(body)) fail(`${what}: error body is not an apiErrorEnvelope:
${formatErrors(v.errors)}`, body);
  const b = body;
  const e = b.error ?? {};
  const problems = [];
  if (typeof e.code !== "string" || !/^[A-Z][A-Z0-9_]*$/.test(e.code)) problems.push("error.code must be an UPPER_SNAKE string");
  if (typeof e.message !== "string" || e.message === "") problems.push("error.message must be a non-empty string");
  if (typeof e.requestId !== "string" || e.requestId === "") problems.push("error.requestId must be a non-empty string");
  if (!b.meta || typeof b.meta.apiVersion !== "string" || typeof b.meta.apiEnrollmentVersion !== "string") {
    problems.push("meta must carry apiVersion and apiEnrollmentVersion strings");
  }
  if (e.cause !== void 0 && (e.cause === null || typeof e.cause !== "object")) problems.push("error.cause, when present, must be an object");
  const expected = typeof e.code === "string" ? ERROR_STATUS[e.code] : void 0;
  if (expected !== void 0 && expected !== status) problems.push(`code ${String(e.code)} goes with HTTP ${expected}, got ${status}`);
  if (problems.length > 0) fail(`${what}: error envelope violates wire-protocol section 2:
  ${problems.join("\n  ")}`, body);
}
function hasOperation(api, method, pathWithoutBase) {
  return findOperation(api, method, pathWithoutBase) !== void 0;
}
function validateResponse(api, method, pathWithoutBase, status, body) {
  const op = findOperation(api, method, pathWithoutBase);
  const what = `${method.toUpperCase()} ${BASE_PATHS[api]}${normalisePath2(api, pathWithoutBase)} -> ${status}`;
  if (!op) {
    throw new AssertionError({
      message: `${what}: no operation in ${api}.yml matches ${method.toUpperCase()} ${normalisePath2(api, pathWithoutBase)} (route not in the spec)`
    });
  }
  validateOperationResponse(op, status, body, what);
}
function validateOperationResponse(op, status, body, what) {
  const key = String(status);
  const response = op.responses[key] ?? op.responses.default;
  if (!response) {
    if (status >= 400) {
      checkErrorEnvelope(status, body, `${what} (${op.operationId}; status not listed, checked as error envelope)`);
      return;
    }
    throw new AssertionError({
      message: `${what}: status ${status} is not documented for ${op.operationId} (documented: ${Object.keys(op.responses).join(", ")})
  body: ${preview(body)}`
    });
  }
  if (response.schema !== void 0) {
    const schema = responseOverride(op, key, convertSchema(response.schema, op.api));
    const v = compiled2(`op:${op.api}:${op.method}:${op.template}:${key}`, schema);
    if (!v(body)) {
      fail(`${what}: body does not match the ${op.api}.yml ${op.operationId} response ${key} schema:
${formatErrors(v.errors)}`, body);
    }
  }
  if (status >= 400) checkErrorEnvelope(status, body, `${what} (${op.operationId})`);
}

// test/helpers/in-process.ts
var MANAGEMENT = "/edge/management/v1";
function client(app, token) {
  return {
    async request(method, path6, opts = {}) {
      const url2 = `${path6.startsWith("/edge/") ? "" : MANAGEMENT}${path6}${opts.query ? `?${opts.query}` : ""}`;
      const headers = token ? { "zt-session": token } : {};
      if (opts.json !== void 0) headers["content-type"] = "application/json";
      const res = await app.inject({ method, url: url2, headers, payload: opts.json === void 0 ? void 0 : JSON.stringify(opts.json) });
      const body = res.body ? JSON.parse(res.body) : void 0;
      const api = url2.startsWith("/edge/client/") ? "client" : "management";
      const route = url2.slice(BASE_PATHS[api].length).split("?")[0];
      if (hasOperation(api, method, route)) validateResponse(api, method, route, res.statusCode, body);
      return { status: res.statusCode, body };
    }
  };
}
async function login(app, username2, password2) {
  const res = await client(app, void 0).request("POST", "/authenticate", { query: "method=password", json: { username: username2, password: password2 } });
  if (res.status !== 200) throw new Error(`login of ${username2} failed: ${JSON.stringify(res.body)}`);
  return res.body.data.token;
}
async function createTestApp(store) {
  const database = store === "postgres" ? await createTestDatabase() : void 0;
  const adminPassword = `Admin-${randomBytes9(6).toString("hex")}`;
  const app = await createController({
    dataDir: "/nonexistent",
    publicUrl: "https://127.0.0.1:1",
    pki: await loadOrCreatePki(await sharedTestPki(), { hosts: ["127.0.0.1"] }),
    store: database ? { postgres: database.url } : { sqlite: ":memory:" },
    adminPassword,
    passwordCost: TEST_PASSWORD_COST
  });
  const admin = client(app, await login(app, "admin", adminPassword));
  const userId = (await admin.request("POST", "/identities", { json: { name: "conformance-user", type: "User", isAdmin: false } })).body.data.id;
  await admin.request("POST", "/authenticators", { json: { method: "updb", identityId: userId, username: "conformance-user", password: "User-password-1" } });
  const user = client(app, await login(app, "conformance-user", "User-password-1"));
  return {
    app,
    admin,
    anonymous: client(app, void 0),
    user,
    async close() {
      await app.close();
      await database?.drop();
    }
  };
}

// test/behaviour/configs.test.ts
var PORTS = {
  type: "object",
  properties: { hostname: { type: "string" }, port: { type: "integer", minimum: 1, maximum: 65535 } },
  required: ["hostname", "port"],
  additionalProperties: false
};
var BUILT_IN_NAMES = /* @__PURE__ */ new Set(["ziti-tunneler-client.v1", "ziti-tunneler-server.v1", "intercept.v1", "host.v1", "host.v2", "interfaces.v1", "proxy.v1", "router.link.v1"]);
for (const store of storesUnderTest()) {
  describe2(`configs and their types (${store})`, () => {
    let t;
    let typeId;
    before(async () => {
      t = await createTestApp(store);
      const res = await t.admin.request("POST", "/config-types", { json: { name: "tunneler.v1", schema: PORTS } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      typeId = res.body.data.id;
    });
    after(async () => t?.close());
    it("accepts data that satisfies the schema, and lists it under its type", async () => {
      const res = await t.admin.request("POST", "/configs", { json: { name: "web", configTypeId: typeId, data: { hostname: "web.internal", port: 443 } } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const config2 = (await t.admin.request("GET", `/configs/${res.body.data.id}`)).body.data;
      assert.deepEqual(config2.data, { hostname: "web.internal", port: 443 });
      assert.equal(config2.configType.name, "tunneler.v1");
      const listed = await t.admin.request("GET", `/config-types/${typeId}/configs`);
      assert.deepEqual(listed.body.data.map((c) => c.name), ["web"]);
    });
    it("refuses data that fails the schema, naming the failing path, on create and on patch", async () => {
      const bad = await t.admin.request("POST", "/configs", { json: { name: "bad", configTypeId: typeId, data: { hostname: "x", port: 7e4 } } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, "COULD_NOT_VALIDATE");
      assert.equal(bad.body.error.cause.field, "data.port");
      const ok = await t.admin.request("POST", "/configs", { json: { name: "ok", configTypeId: typeId, data: { hostname: "x", port: 80 } } });
      const patched = await t.admin.request("PATCH", `/configs/${ok.body.data.id}`, { json: { data: { hostname: "x" } } });
      assert.equal(patched.status, 400);
      assert.equal(patched.body.error.cause.field, "data.port", "the missing property is named");
      assert.deepEqual((await t.admin.request("GET", `/configs/${ok.body.data.id}`)).body.data.data, { hostname: "x", port: 80 }, "unchanged");
    });
    it("refuses a config type whose schema does not compile", async () => {
      const res = await t.admin.request("POST", "/config-types", { json: { name: "broken", schema: { type: "no-such-type" } } });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, "schema");
    });
    it("a type in use cannot be deleted (409 naming the field); once unused it can", async () => {
      const type = (await t.admin.request("POST", "/config-types", { json: { name: "short-lived" } })).body.data.id;
      const config2 = (await t.admin.request("POST", "/configs", { json: { name: "user-of-type", configTypeId: type, data: {} } })).body.data.id;
      const refused = await t.admin.request("DELETE", `/config-types/${type}`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.error.code, "CAN_NOT_DELETE_REFERENCED_ENTITY");
      assert.equal(refused.body.error.cause.field, "configTypeId");
      assert.equal((await t.admin.request("DELETE", `/configs/${config2}`)).status, 200);
      assert.equal((await t.admin.request("DELETE", `/config-types/${type}`)).status, 200);
    });
    it("a changed schema applies to the next write", async () => {
      const type = (await t.admin.request("POST", "/config-types", { json: { name: "evolving", schema: { type: "object" } } })).body.data.id;
      const config2 = (await t.admin.request("POST", "/configs", { json: { name: "evolving-1", configTypeId: type, data: { a: 1 } } })).body.data.id;
      assert.equal((await t.admin.request("PATCH", `/config-types/${type}`, { json: { schema: { type: "object", required: ["b"] } } })).status, 200);
      const res = await t.admin.request("PATCH", `/configs/${config2}`, { json: { data: { a: 2 } } });
      assert.equal(res.status, 400, JSON.stringify(res.body));
    });
    it("has the built-in types from the first start, with their ids and targets, listed as the Swagger says", async () => {
      const res = await t.admin.request("GET", "/config-types", { query: "limit=100" });
      validateResponse("management", "GET", "/config-types", res.status, res.body);
      const builtIn = res.body.data.filter((c) => BUILT_IN_NAMES.has(c.name));
      assert.deepEqual(Object.fromEntries(builtIn.map((c) => [c.name, [c.id, c.target]])), {
        "ziti-tunneler-client.v1": ["f2dd2df0-9c04-4b84-a91e-71437ac229f1", "service"],
        "ziti-tunneler-server.v1": ["cea49285-6c07-42cf-9f52-09a9b115c783", "service"],
        "intercept.v1": ["g7cIWbcGg", "service"],
        "host.v1": ["NH5p4FpGR", "service"],
        "host.v2": ["host.v2", "service"],
        "interfaces.v1": ["interfaces.v1", "service"],
        "proxy.v1": ["proxy.v1", "service"],
        "router.link.v1": ["router.link.v1", "router"]
      });
    });
    it("built-in types can be neither changed nor deleted", async () => {
      const patched = await t.admin.request("PATCH", "/config-types/g7cIWbcGg", { json: { schema: {} } });
      assert.equal(patched.status, 400);
      assert.equal(patched.body.error.code, "ENTITY_CAN_NOT_BE_UPDATED");
      const deleted = await t.admin.request("DELETE", "/config-types/host.v2");
      assert.equal(deleted.status, 400);
      assert.equal(deleted.body.error.code, "ENTITY_CAN_NOT_BE_DELETED");
    });
    it("a type's target is set at creation only", async () => {
      const res = await t.admin.request("POST", "/config-types", { json: { name: "router-thing", target: "router" } });
      assert.equal(res.status, 201);
      const patched = await t.admin.request("PATCH", `/config-types/${res.body.data.id}`, { json: { target: "service" } });
      assert.equal(patched.status, 400);
      assert.equal(patched.body.error.cause.field, "target");
      const put = await t.admin.request("PUT", `/config-types/${res.body.data.id}`, { json: { name: "router-thing" } });
      assert.equal(put.status, 200);
      assert.equal((await t.admin.request("GET", `/config-types/${res.body.data.id}`)).body.data.target, "router", "a replace keeps it");
    });
    let made = 0;
    const create = (configTypeId, data) => t.admin.request("POST", "/configs", { json: { name: `builtin-${++made}`, configTypeId, data } });
    it("the built-in schemas accept configs as tunnelers are given them", async () => {
      const good = [
        ["intercept.v1", { protocols: ["tcp", "udp"], addresses: ["web.ziti", "*.internal.example", "10.0.0.0/24"], portRanges: [{ low: 80, high: 80 }, { low: 8e3, high: 8100 }] }],
        ["intercept.v1", { protocols: ["tcp"], addresses: ["db.ziti"], portRanges: [{ low: 5432, high: 5432 }], dialOptions: { identity: "$dst_ip", connectTimeoutSeconds: 10 }, sourceIp: "$tunneler_id.name", allowedSourceAddresses: ["192.168.1.0/24"] }],
        ["host.v1", { protocol: "tcp", address: "localhost", port: 80 }],
        ["host.v1", { forwardProtocol: true, allowedProtocols: ["tcp", "udp"], forwardAddress: true, allowedAddresses: ["10.0.0.0/8"], forwardPort: true, allowedPortRanges: [{ low: 1, high: 65535 }], listenOptions: { bindUsingEdgeIdentity: true, precedence: "required", cost: 10, connectTimeout: "5s", maxConnections: 10 } }],
        ["host.v1", { protocol: "tcp", address: "web", port: 443, httpChecks: [{ url: "https://web/health", interval: "5s", timeout: "1s", method: "GET", expectStatus: 200, actions: [{ trigger: "fail", consecutiveEvents: 3, action: "mark unhealthy" }, { trigger: "pass", action: "increase cost 10", duration: "1m30s" }] }], portChecks: [{ address: "web:443", interval: "10s", timeout: "500ms" }] }],
        ["host.v2", { terminators: [{ protocol: "tcp", address: "a", port: 1 }, { protocol: "udp", address: "b", port: 53, listenOptions: { identity: "$tunneler_id.name" } }] }],
        ["ziti-tunneler-client.v1", { hostname: "web.ziti", port: 80 }],
        ["ziti-tunneler-server.v1", { hostname: "localhost", port: 8080, protocol: "tcp" }],
        ["interfaces.v1", { interfaces: ["eth0"] }],
        ["proxy.v1", { port: 8080, protocols: ["tcp"], binding: "edge" }],
        ["router.link.v1", { listeners: [{ binding: "transport", bind: "tls:0.0.0.0:6262", advertise: "tls:router:6262", groups: ["default"] }], dialers: [{ binding: "transport", groups: "default" }], heartbeats: { sendInterval: "10s" }, gcMode: "orphaned" }]
      ];
      const ids = await typeIds();
      for (const [type, data] of good) {
        const res = await create(ids.get(type), data);
        assert.equal(res.status, 201, `${type} ${JSON.stringify(data)}: ${JSON.stringify(res.body)}`);
      }
    });
    it("the built-in schemas refuse what OpenZiti refuses, naming the path", async () => {
      const bad = [
        ["intercept.v1", { protocols: ["tcp"], addresses: ["a"] }, "data.portRanges"],
        ["intercept.v1", { protocols: ["icmp"], addresses: ["a"], portRanges: [{ low: 1, high: 1 }] }, "data.protocols.0"],
        ["intercept.v1", { protocols: ["tcp"], addresses: ["a"], portRanges: [{ low: 1, high: 7e4 }] }, "data.portRanges.0.high"],
        ["intercept.v1", { protocols: ["tcp"], addresses: [""], portRanges: [{ low: 1, high: 1 }] }, "data.addresses.0"],
        ["intercept.v1", { protocols: [], addresses: ["a"], portRanges: [{ low: 1, high: 1 }] }, "data.protocols"],
        ["intercept.v1", { protocols: ["tcp"], addresses: ["a"], portRanges: [{ low: 1, high: 1 }], extra: true }, "data.extra"],
        ["host.v1", { address: "a", port: 1 }, "data.protocol"],
        ["host.v1", { forwardProtocol: true, address: "a", port: 1 }, "data.allowedProtocols"],
        ["host.v1", { protocol: "tcp", address: "a", port: -1 }, "data.port"],
        ["host.v1", { protocol: "tcp", address: "a", port: 1, listenOptions: { precedence: "sometimes" } }, "data.listenOptions.precedence"],
        ["host.v1", { protocol: "tcp", address: "a", port: 1, portChecks: [{ address: "a:1", interval: "often", timeout: "1s" }] }, "data.portChecks.0.interval"],
        ["host.v2", { terminators: [] }, "data.terminators"],
        ["ziti-tunneler-client.v1", { hostname: "a" }, "data.port"],
        ["proxy.v1", { port: 0, protocols: ["tcp"] }, "data.port"],
        ["interfaces.v1", {}, "data.interfaces"],
        ["router.link.v1", { listeners: [{ advertise: "x" }] }, "data.listeners.0.bind"]
      ];
      const ids = await typeIds();
      for (const [type, data, field] of bad) {
        const res = await create(ids.get(type), data);
        assert.equal(res.status, 400, `${type} ${JSON.stringify(data)} was accepted`);
        assert.equal(res.body.error.cause.field, field, `${type} ${JSON.stringify(data)}: ${JSON.stringify(res.body.error.cause)}`);
      }
    });
    it("schemas carrying an $id (as OpenZiti exports them) can be used by several types and edited", async () => {
      const schema = { $id: "http://example.test/schemas/x.json", type: "object", required: ["x"] };
      const a = (await t.admin.request("POST", "/config-types", { json: { name: "with-id-a", schema } })).body.data.id;
      const b = (await t.admin.request("POST", "/config-types", { json: { name: "with-id-b", schema } })).body.data.id;
      assert.equal((await create(a, { x: 1 })).status, 201);
      assert.equal((await create(b, { x: 1 })).status, 201);
      assert.equal((await t.admin.request("PATCH", `/config-types/${a}`, { json: { schema: { ...schema, required: ["y"] } } })).status, 200);
      assert.equal((await create(a, { x: 1 })).status, 400);
    });
    async function typeIds() {
      const res = await t.admin.request("GET", "/config-types", { query: "limit=100" });
      return new Map(res.body.data.map((c) => [c.name, c.id]));
    }
  });
}
//# sourceMappingURL=configs.test.mjs.map
