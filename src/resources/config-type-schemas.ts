/**
 * JSON schemas (draft-07) of the config types a fresh controller has, written for this project from what OpenZiti's
 * tunnelers and routers read (wire-protocol section 10). They accept the configs real tunnelers are given and refuse
 * what OpenZiti refuses: missing required fields, unknown members, protocols other than tcp|udp, ports outside
 * 0..65535 (proxy.v1: 1..65535), empty addresses, malformed durations and health-check actions.
 *
 * Plain data, like the declarations that carry them: the CLI loads them too, to check a config before sending it.
 */
type Schema = Record<string, unknown>;

const MAX_PORT = 65535;
const MAX_INT32 = 2147483647;

const port: Schema = { type: 'integer', minimum: 0, maximum: MAX_PORT };
const protocol: Schema = { type: 'string', enum: ['tcp', 'udp'] };
/** An intercepted or dialled address: an IP, a CIDR, a hostname or a wildcard such as `*.example.com`; never empty. */
const address: Schema = { type: 'string', minLength: 1 };
/** A Go duration such as `5s`, `1m30s` or `250ms`. */
const duration: Schema = { type: 'string', pattern: '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$' };
const portRange: Schema = {
  type: 'object',
  properties: { low: port, high: port },
  required: ['low', 'high'],
  additionalProperties: false,
};

/** A non-empty array without duplicates, of `items`. */
function setOf(items: Schema, description?: string): Schema {
  return { type: 'array', minItems: 1, uniqueItems: true, items, ...(description ? { description } : {}) };
}

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
    items: closed({ interval: duration, timeout: duration, address: { type: 'string' }, actions: healthActions }, ['interval', 'timeout', 'address']),
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

const translation = (format: 'ipv4' | 'ipv6', maxPrefix: number): Schema =>
  closed({ from: { type: 'string', format }, to: { type: 'string', format }, prefixLength: { type: 'integer', minimum: 0, maximum: maxPrefix } });

/**
 * A value given outright, or forwarded from what the client intercepted: `forwardX: true` needs the allow-list,
 * otherwise `x` itself is required.
 */
function fixedOrForwarded(field: string, forward: string, allowed: string): Schema {
  return { if: { properties: { [forward]: { const: true } }, required: [forward] }, then: { required: [allowed] }, else: { required: [field] } };
}

/** One hosting terminator: where the hosting tunneler dials, with its listen options and health checks. */
const hostTerminator: Schema = {
  type: 'object',
  properties: {
    protocol,
    forwardProtocol: { const: true, description: "Dial the intercepted protocol ('protocol' then unused)" },
    allowedProtocols: setOf(protocol, 'Protocols that may be forwarded'),
    address: address,
    forwardAddress: { const: true, description: "Dial the intercepted address ('address' then unused)" },
    allowedAddresses: setOf(address, 'Addresses that may be forwarded'),
    forwardAddressTranslations: setOf({ oneOf: [translation('ipv4', 32), translation('ipv6', 128)] }),
    port,
    forwardPort: { const: true, description: "Dial the intercepted port ('port' then unused)" },
    allowedPortRanges: setOf(portRange, 'Ports that may be forwarded'),
    allowedSourceAddresses: setOf(address, 'Source addresses the hosting tunneler routes locally'),
    listenOptions: closed({
      connectTimeoutSeconds: { type: 'integer', minimum: 0, maximum: MAX_INT32 },
      connectTimeout: duration,
      maxConnections: { type: 'integer', minimum: 1 },
      identity: { type: 'string' },
      bindUsingEdgeIdentity: { type: 'boolean' },
      cost: { type: 'integer', minimum: 0, maximum: MAX_PORT },
      precedence: { type: 'string', enum: ['default', 'required', 'failed'] },
    }),
    proxy: {
      type: 'object',
      properties: { type: { type: 'string', enum: ['http'] }, address: { type: 'string', description: 'host:port of the proxy' } },
      required: ['type', 'address'],
    },
    ...healthChecks,
  },
  additionalProperties: false,
  allOf: [
    fixedOrForwarded('protocol', 'forwardProtocol', 'allowedProtocols'),
    fixedOrForwarded('address', 'forwardAddress', 'allowedAddresses'),
    fixedOrForwarded('port', 'forwardPort', 'allowedPortRanges'),
  ],
};

const linkGroups: Schema = { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] };
const channelOptions = closed({
  outQueueSize: { type: 'integer', minimum: 0 },
  maxQueuedConnects: { type: 'integer', minimum: 0, maximum: 5000 },
  maxOutstandingConnects: { type: 'integer', minimum: 1, maximum: 1000 },
  connectTimeout: duration,
  writeTimeout: duration,
});
const backoff = closed({ retryBackoffFactor: { type: 'number', minimum: 1, maximum: 100 }, minRetryInterval: duration, maxRetryInterval: duration });

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
    schema: closed({ protocol: { type: ['string', 'null'], enum: ['tcp', 'udp', null] }, hostname: { type: 'string' }, port, ...healthChecks }, ['hostname', 'port']),
  },
  {
    id: 'g7cIWbcGg',
    name: 'intercept.v1',
    target: 'service',
    schema: closed(
      {
        protocols: setOf(protocol),
        addresses: setOf(address),
        portRanges: setOf(portRange),
        dialOptions: closed({ identity: { type: 'string' }, connectTimeoutSeconds: { type: 'integer', minimum: 0, maximum: MAX_INT32 } }),
        sourceIp: { type: 'string' },
        allowedSourceAddresses: setOf(address),
      },
      ['protocols', 'addresses', 'portRanges'],
    ),
  },
  { id: 'NH5p4FpGR', name: 'host.v1', target: 'service', schema: hostTerminator },
  {
    id: 'host.v2',
    name: 'host.v2',
    target: 'service',
    schema: closed({ terminators: { type: 'array', minItems: 1, items: hostTerminator } }, ['terminators']),
  },
  {
    id: 'interfaces.v1',
    name: 'interfaces.v1',
    target: 'service',
    schema: closed({ interfaces: { type: 'array', items: { type: 'string' } } }, ['interfaces']),
  },
  {
    id: 'proxy.v1',
    name: 'proxy.v1',
    target: 'service',
    schema: closed(
      { port: { type: 'integer', minimum: 1, maximum: MAX_PORT }, protocols: { type: 'array', minItems: 1, items: protocol }, binding: { type: 'string' } },
      ['port', 'protocols'],
    ),
  },
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
