import { ApiError } from '../../protocol/errors.js';
import type { ResourceDef } from '../../resources/index.js';

/**
 * Bounds on everything a client can make the controller store (docs/security.md, "Limits"). Beyond them a request
 * is refused with 400 COULD_NOT_VALIDATE naming the field. Fields with a declared maximum in the catalogue keep it
 * (names 1,024, usernames and passwords 100); these cover the rest.
 */
export const FIELD_LIMITS = {
  /** A string field without a declared maximum. */
  stringMaxLength: 4096,
  /** An id referring to another entity, or in a path. */
  refMaxLength: 256,
  /**
   * An integer without declared bounds: what a 64-bit integer column holds. The maximum is the largest JSON number
   * below 2^63 (2^63 - 1 itself reads as 2^63, one past the column's range).
   */
  integerMinimum: -(2 ** 63),
  integerMaximum: 2 ** 63 - 1024,
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
  infoValueMaxLength: 256,
} as const;

/** The schema of `tags` with its bounds (maxLength applies to string values only). Key length: see checkBody. */
export const BOUNDED_TAGS_SCHEMA = {
  type: 'object',
  maxProperties: FIELD_LIMITS.tagsMaxKeys,
  additionalProperties: { type: ['string', 'boolean', 'number', 'null'], maxLength: FIELD_LIMITS.tagValueMaxLength },
};

/** `envInfo` / `sdkInfo` of a login body. */
const INFO_SCHEMA = {
  type: ['object', 'null'],
  maxProperties: FIELD_LIMITS.infoMaxKeys,
  additionalProperties: { type: 'string', maxLength: FIELD_LIMITS.infoValueMaxLength },
};

/** The login body's optional parts, bounded: each is stored with the session or the identity. */
export const LOGIN_EXTRAS_SCHEMA = {
  configTypes: {
    type: ['array', 'null'],
    maxItems: FIELD_LIMITS.configTypesMaxItems,
    items: { type: 'string', minLength: 1, maxLength: FIELD_LIMITS.configTypeMaxLength },
  },
  envInfo: INFO_SCHEMA,
  sdkInfo: INFO_SCHEMA,
};

/**
 * C0 and C1 control characters (NUL, ESC, ...), DEL and unpaired UTF-16 surrogates (which cannot be stored as
 * UTF-8). A name with ESC in it could drive the terminal of whoever lists it.
 */
export const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;
/** Inside a free-form object (appData) tab, line feed and carriage return are text; the rest is still refused. */
const FORBIDDEN_IN_FREE_FORM = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\p{Cs}/u;

/**
 * Checks a validated body: no control characters or unpaired surrogates in any string or key, keys at most
 * `keyMaxLength`, nesting at most
 * `bodyMaxDepth`, and free-form object fields (`kind: 'object'` in the catalogue) at most `objectMaxBytes`.
 */
export function checkBody(body: unknown, def?: ResourceDef): void {
  const freeForm = new Set(
    Object.entries(def?.fields ?? {})
      .filter(([, f]) => f.type.kind === 'object')
      .map(([name]) => name),
  );
  // PEM text is multi-line: line breaks pass the control-character check there (its format checks the rest).
  const multiLine = new Set(
    Object.entries(def?.fields ?? {})
      .filter(([, f]) => f.type.kind === 'string' && f.type.format === 'pem')
      .map(([name]) => name),
  );
  walk(body, [], 0, false, new Set([...freeForm, ...multiLine]));
  if (!body || typeof body !== 'object') return;
  for (const name of freeForm) {
    const value = (body as Record<string, unknown>)[name];
    if (value === undefined || value === null) continue;
    const bytes = Buffer.byteLength(JSON.stringify(value));
    if (bytes > FIELD_LIMITS.objectMaxBytes) {
      throw refuse(
        name,
        `${name} is ${bytes} bytes as JSON; at most ${FIELD_LIMITS.objectMaxBytes} are allowed`,
        `<${bytes} bytes>`,
      );
    }
  }
}

function walk(value: unknown, path: string[], depth: number, freeForm: boolean, freeFormFields: Set<string>): void {
  if (depth > FIELD_LIMITS.bodyMaxDepth) {
    throw refuse(
      path.join('.'),
      `${path.join('.')} is nested more than ${FIELD_LIMITS.bodyMaxDepth} levels deep`,
      '<nested>',
    );
  }
  if (typeof value === 'string') {
    checkText(value, path, freeForm);
  } else if (typeof value === 'number' && !Number.isFinite(value)) {
    // JSON.parse reads 1e309 as Infinity, which JSON cannot write back: stored, it would be served as null.
    const field = path.join('.') || 'body';
    throw refuse(field, `${field} is a number too large to represent`, 'a number beyond 1.8e308');
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) walk(item, [...path, String(i)], depth + 1, freeForm, freeFormFields);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.length > FIELD_LIMITS.keyMaxLength) {
        const field = path.join('.') || 'body';
        throw refuse(field, `${field} has a key longer than ${FIELD_LIMITS.keyMaxLength} characters`, visible(key));
      }
      checkText(key, [...path, key], freeForm, 'key');
      // appData and other free-form values (top-level fields the catalogue types as objects) may hold line breaks.
      walk(item, [...path, key], depth + 1, freeForm || (depth === 0 && freeFormFields.has(key)), freeFormFields);
    }
  }
}

function checkText(text: string, path: string[], freeForm: boolean, what: 'value' | 'key' = 'value'): void {
  if (!(freeForm ? FORBIDDEN_IN_FREE_FORM : FORBIDDEN).test(text)) return;
  const field = path.join('.') || 'body';
  throw refuse(
    field,
    `${field} ${what === 'key' ? 'has a key that contains' : 'contains'} ` +
      'a control character or an invalid character (not allowed)',
    visible(text),
  );
}

/** The offending text with every control character escaped, so the error itself cannot carry one. */
export function visible(text: string): string {
  const escaped = JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}...` : text).slice(1, -1);
  return escaped.replace(/[\u007f-\u009f]|\p{Cs}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function refuse(field: string, reason: string, value: string): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { cause: { field: field || 'body', reason, value } });
}
