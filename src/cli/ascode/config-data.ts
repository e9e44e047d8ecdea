import { UsageError } from '../../console/errors.js';
import { checkData, compilable, configSchemaAjv } from '../../protocol/config-data.js';
import type { Declaration } from './input.js';
import type { Network } from './network.js';

/**
 * Checks each declared config's data against its config type's schema, the type as the file declares it or else as
 * the controller has it, before anything is written; the same validator the controller uses. A schema this side
 * cannot compile is left to the controller.
 */
export function checkConfigData(declaration: Declaration, network: Network): void {
  const declaredTypes = new Map(
    declaration.entities.filter((d) => d.kind.def.name === 'config-type').map((d) => [d.entity.name, d.entity.schema]),
  );
  const servedTypes = new Map((network.rows.get('config-type') ?? []).map((r) => [String(r.name), r.schema]));
  for (const { kind, entity, file } of declaration.entities) {
    if (kind.def.name !== 'config' || entity.data === undefined) continue;
    const typeName = String(entity.configType);
    const schema = declaredTypes.has(typeName) ? declaredTypes.get(typeName) : servedTypes.get(typeName);
    if (schema === null || typeof schema !== 'object') continue;
    let validate: ReturnType<ReturnType<typeof configSchemaAjv>['compile']>;
    try {
      validate = configSchemaAjv().compile(compilable(schema));
    } catch {
      continue;
    }
    const failure = checkData(validate, entity.data);
    if (failure) {
      throw new UsageError(`${file}: config "${entity.name}": ${failure.reason}`, [
        `the schema of config type ${typeName}; value: ${JSON.stringify(failure.value) ?? '(none)'}`,
      ]);
    }
  }
}
