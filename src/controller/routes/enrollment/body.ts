import { invalidField } from '../../../protocol/errors.js';
import type { Runtime } from '../../runtime.js';
import type { JsonSchema } from '../../server/schemas.js';

const PEM_TEXT = /^[\x20-\x7e\t\r\n]*$/;

/**
 * Validates a JSON enrollment body: the PEM members (`pemMembers`) by hand (they are multi-line text, which the general
 * body check refuses in strings), the rest against `schema`.
 */
export function enrollBody(
  rt: Runtime,
  schema: JsonSchema,
  json: unknown,
  pemMembers: readonly string[],
): Record<string, unknown> {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return rt.validators.custom(schema, json);
  const rest: Record<string, unknown> = { ...(json as Record<string, unknown>) };
  const pems: Record<string, string> = {};
  for (const name of pemMembers) {
    if (!(name in rest)) continue;
    const value = rest[name];
    delete rest[name];
    if (value === null) continue;
    if (typeof value !== 'string') throw invalidField(name, `${name} must be a PEM string`, value);
    if (!PEM_TEXT.test(value))
      throw invalidField(name, `${name} must be PEM text (printable ASCII and line breaks)`, '<pem>');
    pems[name] = value;
  }
  return { ...rt.validators.custom(schema, rest), ...pems };
}
