/**
 * JSON schemas (draft-07) of the config types a fresh controller has, with OpenZiti's fixed ids.
 *
 * intercept.v1, host.v1 and proxy.v1 are OpenZiti's own schemas, vendored unchanged (`openziti-config-types/`, source
 * and licence beside them): clients such as OpenZiti's web console build their forms from a type's schema, so its
 * shape must be OpenZiti's, not only what it accepts. host.v2 is composed from host.v1 as OpenZiti's controller
 * composes it. The others (the two ziti-tunneler types, interfaces.v1, router.link.v1) were written for this project
 * from what OpenZiti's tunnelers and routers read (wire-protocol section 10).
 *
 * Plain data, like the declarations that carry them: the CLI loads them too, to check a config before sending it.
 */
import hostV1 from './openziti-config-types/host.v1.json' with { type: 'json' };
import interceptV1 from './openziti-config-types/intercept.v1.json' with { type: 'json' };
import proxyV1 from './openziti-config-types/proxy.v1.json' with { type: 'json' };

type Schema = Record<string, unknown>;

const MAX_PORT = 65535;

const port: Schema = { type: 'integer', minimum: 0, maximum: MAX_PORT };
/** A Go duration such as `5s`, `1m30s` or `250ms`. */
const duration: Schema = { type: 'string', pattern: '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$' };

function closed(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/** What a health check does when it fails, passes or changes: mark, change the terminator's cost, or report. */
const healthAction = closed(
  {
    trigger: { type: 'string', enum: ['fail', 'pass', 'change'] },
    consecutiveEvents: { type: 'integer', minimum: 0, maximum: MAX_PORT },
    duration,
    action: { type: 'string', pattern: '^(mark (un)?healthy|increase cost [0-9]+|decrease cost [0-9]+|send event)$' },
  },
  ['trigger', 'action'],
);
const healthActions: Schema = { type: 'array', minItems: 1, maxItems: 20, items: healthAction };

/** Health checks of a hosted service (`portChecks`, `httpChecks`), shared by ziti-tunneler-server.v1 and host.v1/v2. */
const healthChecks: Record<string, Schema> = {
  portChecks: {
    type: 'array',
    items: closed({ interval: duration, timeout: duration, address: { type: 'string' }, actions: healthActions }, [
      'interval',
      'timeout',
      'address',
    ]),
  },
  httpChecks: {
    type: 'array',
    items: closed(
      {
        url: { type: 'string' },
        method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH'] },
        body: { type: 'string' },
        interval: duration,
        timeout: duration,
        actions: healthActions,
        expectStatus: { type: 'integer', minimum: 100, maximum: 599 },
        expectInBody: { type: 'string' },
      },
      ['interval', 'timeout', 'url'],
    ),
  },
};

/**
 * host.v2 as OpenZiti's controller builds it: host.v1 without its `$id` and `definitions` is one terminator, and the
 * type takes a non-empty list of them, with host.v1's definitions beside.
 */
function hostV2(): Schema {
  const { $id: _id, definitions, ...terminator } = hostV1 as Schema;
  return {
    $id: 'http://ziti-edge.netfoundry.io/schemas/host.v2.schema.json',
    definitions: {
      ...(definitions as Schema),
      terminator,
      terminatorList: { type: 'array', minItems: 1, items: { $ref: '#/definitions/terminator' } },
    },
    type: 'object',
    properties: { terminators: { $ref: '#/definitions/terminatorList' } },
    required: ['terminators'],
    additionalProperties: false,
  };
}

const linkGroups: Schema = { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] };
const channelOptions = closed({
  outQueueSize: { type: 'integer', minimum: 0 },
  maxQueuedConnects: { type: 'integer', minimum: 0, maximum: 5000 },
  maxOutstandingConnects: { type: 'integer', minimum: 1, maximum: 1000 },
  connectTimeout: duration,
  writeTimeout: duration,
});
const backoff = closed({
  retryBackoffFactor: { type: 'number', minimum: 1, maximum: 100 },
  minRetryInterval: duration,
  maxRetryInterval: duration,
});

/** A built-in config type as the store keeps it. */
export type BuiltInConfigType = {
  id: string;
  name: string;
  target: 'service' | 'router';
  schema: Schema;
};

/** The config types of a fresh controller, with OpenZiti's fixed ids (so configs exported from one import here). */
export const BUILT_IN_CONFIG_TYPES: readonly BuiltInConfigType[] = [
  {
    id: 'f2dd2df0-9c04-4b84-a91e-71437ac229f1',
    name: 'ziti-tunneler-client.v1',
    target: 'service',
    schema: closed({ hostname: { type: 'string' }, port }, ['hostname', 'port']),
  },
  {
    id: 'cea49285-6c07-42cf-9f52-09a9b115c783',
    name: 'ziti-tunneler-server.v1',
    target: 'service',
    schema: closed(
      {
        protocol: { type: ['string', 'null'], enum: ['tcp', 'udp', null] },
        hostname: { type: 'string' },
        port,
        ...healthChecks,
      },
      ['hostname', 'port'],
    ),
  },
  { id: 'g7cIWbcGg', name: 'intercept.v1', target: 'service', schema: interceptV1 },
  { id: 'NH5p4FpGR', name: 'host.v1', target: 'service', schema: hostV1 },
  { id: 'host.v2', name: 'host.v2', target: 'service', schema: hostV2() },
  {
    id: 'interfaces.v1',
    name: 'interfaces.v1',
    target: 'service',
    schema: closed({ interfaces: { type: 'array', items: { type: 'string' } } }, ['interfaces']),
  },
  { id: 'proxy.v1', name: 'proxy.v1', target: 'service', schema: proxyV1 },
  {
    id: 'router.link.v1',
    name: 'router.link.v1',
    target: 'router',
    schema: closed({
      listeners: {
        type: 'array',
        items: closed(
          {
            binding: { type: 'string', minLength: 1 },
            bind: { type: 'string', minLength: 1, description: 'transport address, e.g. tls:0.0.0.0:6262' },
            advertise: { type: 'string' },
            bindInterface: { type: 'string' },
            groups: linkGroups,
            options: channelOptions,
          },
          ['bind'],
        ),
      },
      dialers: {
        type: 'array',
        items: closed({
          binding: { type: 'string', minLength: 1 },
          maxDefaultConnections: { type: 'integer', minimum: 1, maximum: 100 },
          maxAckConnections: { type: 'integer', minimum: 0, maximum: 100 },
          startupDelay: duration,
          bindInterface: { type: 'string' },
          groups: linkGroups,
          healthyDialBackoff: backoff,
          unhealthyDialBackoff: backoff,
          options: channelOptions,
        }),
      },
      heartbeats: closed({ sendInterval: duration, checkInterval: duration, closeUnresponsiveTimeout: duration }),
      payloadSenderQueueSize: { type: 'integer', minimum: 1 },
      ackSenderQueueSize: { type: 'integer', minimum: 1 },
      gcMode: { type: 'string', enum: ['preserve', 'orphaned', 'changed'] },
    }),
  },
];
