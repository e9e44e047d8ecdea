import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { commonJs } from '../../protocol/commonjs.js';
import { UsageError } from '../../console/errors.js';
import { unknownWordDetails } from '../similar.js';
import { fileFields, fileKey } from './document.js';
import type { FileEntity } from './document.js';
import { KINDS } from './kinds.js';
import { fromIdKeys, fromOpenZiti, looksLikeOpenZiti } from './openziti.js';
import type { Kind } from './kinds.js';
import { fileProblem } from '../../console/file-problem.js';

/** An entity the file declares, with where it was declared, for messages. */
export interface Declared {
  kind: Kind;
  entity: FileEntity;
  file: string;
  /** Keys whose value is an id of the controller (`enrollAuthPolicyId`: OpenZiti's, ctl's earlier), named once read. */
  byId?: string[];
}

/** What the files declare: the kinds they name (an empty list names a kind too) and their entities. */
export interface Declaration {
  kinds: Set<Kind>;
  entities: Declared[];
  /** What a person should know about how the files were read (fields of OpenZiti's export that were ignored). */
  notes: string[];
}

const EXTENSIONS = ['.yaml', '.yml', '.json'];

/**
 * Reads every `-f` path (a directory: its *.yaml, *.yml and *.json files, in name order) and checks the whole of
 * it before anything is planned: each file parses to a document of known kinds, each entity is an object with a
 * name and only the fields the file format has, and no name is declared twice for a kind.
 */
export async function readDeclaration(paths: readonly string[]): Promise<Declaration> {
  const files = (await Promise.all(paths.map(filesAt))).flat();
  const declaration: Declaration = { kinds: new Set(), entities: [], notes: [] };
  const seen = new Map<string, string>();
  for (const file of files) {
    const doc = await parse(file);
    for (const kind of kindsIn(doc)) declaration.kinds.add(kind);
    for (const item of check(file, doc, declaration.notes)) {
      const key = `${item.kind.key}/${item.entity.name}`;
      const first = seen.get(key);
      if (first !== undefined) {
        const what = `${item.kind.def.label} "${item.entity.name}"`;
        throw new UsageError(`${file}: ${what} is declared twice (first in ${first})`);
      }
      seen.set(key, file);
      declaration.entities.push(item);
    }
  }
  return declaration;
}

async function filesAt(p: string): Promise<string[]> {
  const info = await stat(p).catch(() => {
    throw new UsageError(`${p}: no such file or directory`);
  });
  if (!info.isDirectory()) return [p];
  const names = (await readdir(p)).filter((n) => EXTENSIONS.includes(path.extname(n))).sort();
  if (names.length === 0) throw new UsageError(`${p}: no *.yaml, *.yml or *.json file in the directory`);
  return names.map((n) => path.join(p, n));
}

async function parse(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch((err: unknown) => {
    throw new UsageError(`${file}: cannot read: ${fileProblem(err)}`);
  });
  try {
    return path.extname(file) === '.json' ? JSON.parse(text) : commonJs(await import('yaml')).parse(text);
  } catch (err) {
    throw new UsageError(`${file}: does not parse: ${(err as Error).message.split('\n')[0]}`);
  }
}

function kindsIn(doc: unknown): Kind[] {
  return KINDS.filter((k) => doc !== null && typeof doc === 'object' && k.key in doc);
}

function check(file: string, doc: unknown, notes: string[]): Declared[] {
  if (doc === null || doc === undefined) return [];
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new UsageError(`${file}: is not a document of kinds`);
  const out: Declared[] = [];
  const openZiti = isOpenZitiExport(doc);
  const ignored = new Set<string>();
  for (const [key, list] of Object.entries(doc)) {
    const kind = KINDS.find((k) => k.key === key);
    if (!kind) {
      throw new UsageError(
        `${file}: unknown kind '${key}'`,
        unknownWordDetails(
          key,
          'kinds',
          KINDS.map((k) => k.key),
        ),
      );
    }
    if (list === null) continue;
    if (!Array.isArray(list)) throw new UsageError(`${file}: ${key} is not a list`);
    const allowed = new Set([...fileFields(kind).map(([f, def]) => fileKey(f, def)), 'tags']);
    list.forEach((given: unknown, i) => {
      if (given === null || typeof given !== 'object' || Array.isArray(given)) {
        throw new UsageError(`${file}: ${key}[${i}] is not an object`);
      }
      const object = given as Record<string, unknown>;
      const read = openZiti ? fromOpenZiti(kind, object) : fromIdKeys(kind, object);
      for (const field of read.ignored) ignored.add(`${key}.${field}`);
      const entity = read.entity;
      const name = (entity as { name?: unknown }).name;
      if (typeof name !== 'string' || name === '') throw new UsageError(`${file}: ${key}[${i}] has no name`);
      const unknown = Object.keys(entity).find((field) => !allowed.has(field));
      if (unknown !== undefined) {
        throw new UsageError(
          `${file}: ${kind.def.label} "${name}": unknown field '${unknown}'`,
          unknownWordDetails(unknown, 'fields', [...allowed]),
        );
      }
      out.push({ kind, entity: entity as FileEntity, file, ...(read.byId.length > 0 ? { byId: read.byId } : {}) });
    });
  }
  if (openZiti) {
    const list = [...ignored].sort().join(', ');
    const fields = ignored.size === 0 ? '' : `; fields a create does not take were ignored: ${list}`;
    notes.push(`${file}: read as written by OpenZiti's 'ziti ops export'${fields}`);
  }
  return out;
}

/** A document written by OpenZiti's `ziti ops export`: one of its entities has something this format never writes. */
function isOpenZitiExport(doc: object): boolean {
  return Object.entries(doc).some(([key, list]) => {
    const kind = KINDS.find((k) => k.key === key);
    const entities = Array.isArray(list) ? list : [];
    const isEntity = (e: unknown): e is Record<string, unknown> => e !== null && typeof e === 'object';
    return kind !== undefined && entities.some((e) => isEntity(e) && looksLikeOpenZiti(kind, e));
  });
}
