import type { ValidateFunction } from 'ajv';
import { ApiError, invalidField, renderValue } from '../../../protocol/errors.js';
import { checkData as checkAgainst, compilable, configSchemaAjv } from '../../../protocol/config-data.js';
import type { ResourceBehaviour } from '../../model/behaviour.js';
import type { Runtime, Write } from '../../runtime.js';
import { LruCache } from '../../store/driver.js';

/**
 * Config types carry JSON schemas written by users, so they get an Ajv of their own (never the one that checks
 * request bodies) and a bounded cache: a compiled schema is dropped from both when the cache lets it go.
 */
const ajv = configSchemaAjv();
const compiled = new LruCache<string, { schema: object; validate: ValidateFunction }>(256, (entry) =>
  ajv.removeSchema(entry.schema),
);

/** The schema as compiled (see compilable) and its validator; refused, naming `field`, when it does not compile. */
function compile(schema: object, field: string): { schema: object; validate: ValidateFunction } {
  const anonymous = compilable(schema);
  try {
    return { schema: anonymous, validate: ajv.compile(anonymous) };
  } catch (err) {
    throw invalidField(field, `is not a usable JSON schema: ${(err as Error).message}`, schema);
  }
}

/** The validator of a config type's schema as stored now (keyed by its last update, so an edit takes effect). */
function validatorOf(type: { id: string; updatedAt: string; schema: unknown }): ValidateFunction {
  const key = `${type.id}@${type.updatedAt}`;
  let entry = compiled.get(key);
  if (!entry) {
    entry = compile((type.schema ?? {}) as object, 'schema');
    compiled.set(key, entry);
  }
  return entry.validate;
}

/** A config type's schema must compile: a schema no data could be checked against is refused at once. */
export const configTypeBehaviour: ResourceBehaviour = {
  resource: 'config-type',
  hooks: {
    async beforeWrite(_rt, write) {
      if (write.values.schema === undefined || write.values.schema === null) return;
      ajv.removeSchema(compile(write.values.schema as object, 'schema').schema);
    },
  },
};

/** A config's data must satisfy its type's schema; the error names the failing path under `data`. */
async function checkData(rt: Runtime, write: Write): Promise<void> {
  if (write.values.data === undefined) return;
  const typeId = (write.values.configTypeId ?? write.existing?.configTypeId) as string;
  const type = await rt.store.repo('config-type').get(typeId);
  const validate = validatorOf(type as unknown as { id: string; updatedAt: string; schema: unknown });
  const failure = checkAgainst(validate, write.values.data);
  if (!failure) return;
  throw new ApiError('COULD_NOT_VALIDATE', {
    message: `the data does not satisfy the schema of config type '${type.name}'`,
    cause: {
      field: failure.field,
      reason: `${failure.reason} (schema of config type ${type.name})`,
      value: renderValue(failure.value),
    },
  });
}

export const configBehaviour: ResourceBehaviour = { resource: 'config', hooks: { beforeWrite: checkData } };
