import { UsageError } from '../../console/errors.js';
import { resource } from '../../resources/index.js';
import { fileField } from './document.js';
import type { Declaration } from './input.js';
import type { Network } from './network.js';

/**
 * The references OpenZiti's export writes as ids (a signer's `enrollAuthPolicyId`), named as the controller they
 * are applied to names them. The id is the exporting controller's: one this controller has too (the built-in
 * default auth policy's `default`, or the file applied where it was exported) is named; any other is a usage error
 * that says how to name it. `network` must hold the rows of the kinds they name.
 */
export function nameIdsOf(declaration: Declaration, network: Network): void {
  for (const item of declaration.entities) {
    for (const key of item.byId ?? []) {
      const [field, def] = fileField(item.kind, key) ?? [];
      const id = item.entity[key];
      if (def?.type.kind !== 'ref' || id === null || id === undefined) continue;
      const named = resource(def.type.resource);
      const row = network.rows.get(named.name)?.find((r) => r.id === id);
      if (row === undefined) {
        throw new UsageError(
          `${item.file}: ${item.kind.def.label} "${item.entity.name}": ${field} names ${named.label} id ` +
            `"${String(id)}", which this controller does not have`,
          [`an id holds only where it was made: name the ${named.label} instead, as ${key}: NAME`],
        );
      }
      item.entity[key] = row.name;
    }
    delete item.byId;
  }
}
