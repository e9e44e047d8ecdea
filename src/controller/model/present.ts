import type { ResourceDef } from '../../resources/index.js';
import type { Row } from '../store/repository.js';
import { wireSerialiser } from './serialise.js';

export { entityRef, links } from './serialise.js';

/**
 * The generic read model of a stored row (serialise.ts, compiled per resource). Resource handlers add what
 * is computed (see presenters.ts).
 */
export function toWire(def: ResourceDef, row: Row): Record<string, unknown> {
  return wireSerialiser(def)(row);
}
