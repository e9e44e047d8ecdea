import type { ResourceDef } from '../../resources/index.js';
import { readSchema, type JsonSchema } from './schemas.js';

/**
 * The words a route describes its success answer with, for the served Swagger document (server/openapi.ts): each
 * route says what it answers where it is built, and the document only walks the routes.
 */

export const ref = (name: string): JsonSchema => ({ $ref: `#/definitions/${name}` });
const pascal = (name: string): string => name.replace(/(^|-)(\w)/g, (_, __: string, c: string) => c.toUpperCase());
export const camel = (name: string): string => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** What a successful call answers: its status and body schema (and the media type, when not JSON). */
export interface Success {
  /** 202: accepted, the work goes on after the answer (the database checks). */
  status: 200 | 201 | 202;
  description: string;
  schema: JsonSchema;
  produces?: string[];
  /** A paged list: takes filter, sort and paging parameters (which can be refused). */
  paged?: boolean;
  /** A sub-list answered without reading its parent: an unknown parent lists nothing, never 404. */
  emptyForUnknownParent?: boolean;
}

/** Builds the responses of one document, adding each read model, envelope and named shape as it is first used. */
export class Responses {
  constructor(private readonly definitions: Record<string, JsonSchema>) {}

  /** A shape named in the document's definitions (the first description of a name is the one kept). */
  define(name: string, schema: JsonSchema): JsonSchema {
    this.definitions[name] ??= schema;
    return ref(name);
  }

  private envelope(name: string, data: JsonSchema, meta = 'meta'): JsonSchema {
    return this.define(name, { type: 'object', properties: { data, meta: ref(meta) }, required: ['data', 'meta'] });
  }

  private readModel(def: ResourceDef): JsonSchema {
    const name = `${camel(def.name)}Detail`;
    this.definitions[name] ??= readSchema(def);
    return ref(name);
  }

  detail(def: ResourceDef): Success {
    const schema = this.envelope(`detail${pascal(def.name)}Envelope`, this.readModel(def));
    return { status: 200, description: `one ${def.label}`, schema };
  }

  list(def: ResourceDef): Success {
    const data = { type: 'array', items: this.readModel(def) };
    const schema = this.envelope(`list${pascal(def.plural)}Envelope`, data, 'listMeta');
    return { status: 200, description: `a page of ${def.plural}`, schema, paged: true };
  }

  /** An envelope named `name` around `data`; `meta` names the definition of its meta (`listMeta` for a page). */
  data(name: string, description: string, data: JsonSchema, meta?: string): Success {
    return { status: 200, description, schema: this.envelope(name, data, meta) };
  }

  /** A page of `data`'s items that is not a catalogue resource's list. */
  page(name: string, description: string, data: JsonSchema): Success {
    return { ...this.data(name, description, data, 'listMeta'), paged: true };
  }

  created(def: ResourceDef, description = `the ${def.label} was created`): Success {
    return { status: 201, description, schema: ref('createEnvelope') };
  }

  empty(description: string): Success {
    return { status: 200, description, schema: ref('empty') };
  }

  /** Not an envelope: a body of its own (a document, a key set, a PEM or an image), with its media type if not JSON. */
  raw(description: string, schema: JsonSchema, produces?: string[]): Success {
    return { status: 200, description, schema, ...(produces ? { produces } : {}) };
  }
}
