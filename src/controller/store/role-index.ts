import type { ResourceDef } from '../../resources/index.js';
import type { Driver } from './driver.js';
import { type Fragment, param, quote, raw, sql } from './fragment.js';
import { insertRows } from './insert-rows.js';
import { matchTableName, setTableName } from './schema-model.js';

/** The columns of a match table (schema-model.ts). */
const MATCH_COLUMNS = [
  { name: 'policyId', type: 'text' },
  { name: 'entityId', type: 'text' },
] as const;

/**
 * The access index of one policy role set (a service policy's `identityRoles`, say): which entities it selects,
 * kept as `(policyId, entityId)` rows in the transaction of every write that changes the answer.
 *
 * Only `@id` and `#attribute` selections are rows. A `#all` role set is never expanded: it is read from the role
 * set itself (its side table holds the value `#all`), so a policy over every identity costs no rows, and an
 * identity created later is selected without a write. Access questions then join two small sets: the policies
 * that select an entity on one side, and what those policies select on the other (docs/architecture.md).
 */
export class RoleIndex {
  private readonly matches: string;
  private readonly matchTable: string;
  private readonly roles: string;
  private readonly attributes: string;
  private readonly targetTable: string;
  private readonly policyTable: string;
  /** The policy field whose value says how `#attribute` roles combine; policies without one use AllOf. */
  private readonly semanticField: string | undefined;

  constructor(
    private readonly driver: Driver,
    readonly policy: ResourceDef,
    readonly field: string,
    readonly target: ResourceDef,
  ) {
    const attributesField = target.roleAttributes?.field;
    if (!attributesField || !target.fields[attributesField]?.filterable) {
      throw new Error(`${policy.name}.${field} selects ${target.plural}, which need filterable role attributes`);
    }
    this.matchTable = matchTableName(policy, field);
    this.matches = quote(this.matchTable);
    this.roles = quote(setTableName(policy, field));
    this.attributes = quote(setTableName(target, attributesField));
    this.targetTable = quote(target.table);
    this.policyTable = quote(policy.table);
    this.semanticField = policy.fields.semantic ? 'semantic' : undefined;
  }

  /** Recomputes what one policy selects, after its roles or semantic changed: two statements, however many rows. */
  async refreshPolicy(policyId: string, roles: readonly string[], semantic: unknown): Promise<void> {
    await this.driver.run(`DELETE FROM ${this.matches} WHERE "policyId" = ?`, [policyId]);
    const selection = this.selection(roles, semantic);
    if (!selection) return;
    const entities = sql`SELECT CAST(${param(policyId)} AS TEXT), x."entityId" FROM (${selection}) x`;
    const insert = sql`INSERT INTO ${raw(this.matches)} ("policyId", "entityId") ${entities}`;
    await this.driver.run(insert.sql, insert.params);
  }

  /** The first `@id` of the roles whose entity does not exist, if any. */
  async missingEntity(roles: readonly string[]): Promise<string | undefined> {
    const { ids } = splitRoles(roles);
    if (ids.length === 0) return undefined;
    const list = this.driver.dialect.inList(raw('t."id"'), ids);
    const query = `SELECT t."id" AS id FROM ${this.targetTable} t WHERE ${list.sql}`;
    const rows = await this.driver.all<{ id: string }>(query, list.params);
    const found = new Set(rows.map((r) => r.id));
    return ids.find((id) => !found.has(id));
  }

  /**
   * Policies whose rows differ from what their roles select now (the database integrity check): each with the
   * number of rows missing and extra. `#all` role sets have no rows to differ.
   */
  async drift(): Promise<Array<{ policyId: string; missing: number; extra: number }>> {
    const policies = await this.driver.all<{ id: string; semantic: string | null }>(
      `SELECT p."id" AS id, ${this.semanticField ? `p.${quote(this.semanticField)}` : 'NULL'} ` +
        `AS semantic FROM ${this.policyTable} p ORDER BY p."id"`,
    );
    const out: Array<{ policyId: string; missing: number; extra: number }> = [];
    for (const p of policies) {
      const roles = (
        await this.driver.all<{ value: string }>(`SELECT "value" AS value FROM ${this.roles} WHERE "ownerId" = ?`, [
          p.id,
        ])
      ).map((r) => r.value);
      const selection = this.selection(roles, p.semantic);
      const expected = new Set(
        selection
          ? (await this.driver.all<{ entityId: string }>(selection.sql, selection.params)).map((r) => r.entityId)
          : [],
      );
      const actual = new Set(
        (
          await this.driver.all<{ entityId: string }>(
            `SELECT "entityId" AS "entityId" FROM ${this.matches} WHERE "policyId" = ?`,
            [p.id],
          )
        ).map((r) => r.entityId),
      );
      const missing = [...expected].filter((id) => !actual.has(id)).length;
      const extra = [...actual].filter((id) => !expected.has(id)).length;
      if (missing || extra) out.push({ policyId: p.id, missing, extra });
    }
    return out;
  }

  /** Re-evaluates one policy from its stored roles and semantic (the integrity fix). */
  async rebuild(policyId: string): Promise<void> {
    const roles = (
      await this.driver.all<{ value: string }>(`SELECT "value" AS value FROM ${this.roles} WHERE "ownerId" = ?`, [
        policyId,
      ])
    ).map((r) => r.value);
    const row = await this.driver.get<{ semantic: string | null }>(
      `SELECT ${this.semanticField ? `p.${quote(this.semanticField)}` : 'NULL'} ` +
        `AS semantic FROM ${this.policyTable} p WHERE p."id" = ?`,
      [policyId],
    );
    await this.refreshPolicy(policyId, roles, row?.semantic);
  }

  /** The entities a role set selects by `@id` or `#attribute`, as one SELECT of `entityId`s (none: undefined). */
  private selection(roles: readonly string[], semantic: unknown): Fragment | undefined {
    const { ids, attributes } = splitRoles(roles);
    if (ids.length === 0 && attributes.length === 0) return undefined;
    const parts: Fragment[] = [];
    const dialect = this.driver.dialect;
    if (ids.length)
      parts.push(
        sql`SELECT t."id" AS "entityId" FROM ${raw(this.targetTable)} t WHERE ${dialect.inList(raw('t."id"'), ids)}`,
      );
    if (attributes.length) {
      // AnyOf: any one of the attributes; AllOf: every one (the side table holds each value once per owner).
      const needed = semantic === 'AnyOf' ? 1 : attributes.length;
      const matching = dialect.inList(raw('a."value"'), attributes);
      const owners = sql`SELECT a."ownerId" AS "entityId" FROM ${raw(this.attributes)} a WHERE ${matching}`;
      parts.push(sql`${owners} GROUP BY a."ownerId" HAVING count(*) >= ${param(needed)}`);
    }
    return parts.length === 2 ? sql`${parts[0]} UNION ${parts[1]}` : parts[0];
  }

  /**
   * Recomputes which policies select some entities, after their attributes changed (or they were created): the
   * policies naming one of them or one of their attributes are the only candidates, and only AllOf ones need a second
   * look. A few statements for any number of entities (a seeded batch).
   */
  async refreshEntities(entities: ReadonlyArray<AttributedEntity>, created: boolean): Promise<void> {
    const dialect = this.driver.dialect;
    if (!created) {
      const ids = dialect.inList(
        raw('"entityId"'),
        entities.map((e) => e.id),
      );
      await this.driver.run(`DELETE FROM ${this.matches} WHERE ${ids.sql}`, ids.params);
    }
    // A new entity has no rows yet, and nothing can name its fresh id: without attributes nothing selects it.
    const candidates = created ? entities.filter((e) => e.attributes.length > 0) : entities;
    if (candidates.length === 0) return;
    const wanted = (e: AttributedEntity) => [`@${e.id}`, ...e.attributes.map((a) => `#${a}`)];
    const hits = dialect.inList(raw('r."value"'), [...new Set(candidates.flatMap(wanted))]);
    const semantic = this.semanticField ? `p.${quote(this.semanticField)}` : `'AllOf'`;
    const naming = await this.driver.all<{ policyId: string; value: string; semantic: string | null }>(
      `SELECT r."ownerId" AS "policyId", r."value" AS value, ${semantic} AS semantic FROM ` +
        `${this.roles} r JOIN ${this.policyTable} p ON p."id" = r."ownerId" WHERE ${hits.sql}`,
      hits.params,
    );
    const byValue = new Map<string, typeof naming>();
    for (const n of naming) listed(byValue, n.value).push(n);
    const chosen = new Map<string, Set<string>>();
    const pending = new Map<string, Set<string>>();
    for (const entity of candidates) {
      const yes = new Set<string>();
      const allOf = new Set<string>();
      for (const value of wanted(entity)) {
        for (const n of byValue.get(value) ?? []) {
          (n.value.startsWith('@') || n.semantic === 'AnyOf' ? yes : allOf).add(n.policyId);
        }
      }
      chosen.set(entity.id, yes);
      pending.set(entity.id, new Set([...allOf].filter((id) => !yes.has(id))));
    }
    // An AllOf policy selects the entity when the entity holds every attribute it names.
    const allOfPolicies = [...new Set([...pending.values()].flatMap((ids) => [...ids]))];
    if (allOfPolicies.length) {
      const owners = dialect.inList(raw('r."ownerId"'), allOfPolicies);
      const roleRows = await this.driver.all<{ ownerId: string; value: string }>(
        `SELECT r."ownerId" AS "ownerId", r."value" AS value FROM ${this.roles} r WHERE ${owners.sql}`,
        owners.params,
      );
      const named = new Map<string, string[]>();
      for (const r of roleRows) {
        if (r.value.startsWith('#') && r.value !== '#all') listed(named, r.ownerId).push(r.value);
      }
      for (const entity of candidates) {
        const owned = new Set(entity.attributes.map((a) => `#${a}`));
        const selects = (policyId: string) => (named.get(policyId) ?? []).every((v) => owned.has(v));
        for (const id of pending.get(entity.id)!) if (selects(id)) chosen.get(entity.id)!.add(id);
      }
    }
    const rows = [...chosen].flatMap(([entityId, policies]) => [...policies].map((policyId) => [policyId, entityId]));
    await insertRows(this.driver, this.matchTable, MATCH_COLUMNS, rows);
  }

  /**
   * Ids of the policies that select the entity (by id, attribute or `#all`); with `policyWhere`, only policies whose
   * fields have those values (`{type: 'Dial'}`).
   */
  selecting(entityId: string, policyWhere: PolicyWhere = {}): Fragment {
    let text =
      `SELECT s."id" FROM (SELECT m."policyId" AS "id" FROM ${this.matches} m WHERE m."entityId" = ? ` +
      `UNION SELECT r."ownerId" AS "id" FROM ${this.roles} r WHERE r."value" = '#all') s`;
    const params: unknown[] = [entityId];
    const fields = Object.keys(policyWhere);
    if (fields.length) {
      for (const f of fields) if (!this.policy.fields[f]) throw new Error(`${this.policy.name} has no field '${f}'`);
      text +=
        ` JOIN ${this.policyTable} p ON p."id" = s."id" WHERE ` +
        `${fields.map((f) => `p.${quote(f)} = ?`).join(' AND ')}`;
      params.push(...fields.map((f) => policyWhere[f]));
    }
    return { sql: text, params };
  }

  /** Whether any of these policies selects every entity (`#all`). */
  async anySelectsAll(policyIds: readonly string[]): Promise<boolean> {
    if (policyIds.length === 0) return false;
    const owners = this.driver.dialect.inList(raw('r."ownerId"'), policyIds);
    const row = await this.driver.get(
      `SELECT 1 AS one FROM ${this.roles} r WHERE r."value" = '#all' AND ${owners.sql} LIMIT 1`,
      owners.params,
    );
    return row !== undefined;
  }

  /** `entity` is selected by one of the policies, by id or attribute (`#all` is the caller's: see anySelectsAll). */
  selectedBy(entityColumn: string, policyIds: readonly string[]): Fragment {
    const inPolicies = this.driver.dialect.inList(raw('m."policyId"'), policyIds);
    return sql`${raw(entityColumn)} IN (SELECT m."entityId" FROM ${raw(this.matches)} m WHERE ${inPolicies})`;
  }

  /**
   * selectedBy as a test of each entity in turn, through its own match rows (a few), where the dialect lets the
   * store choose the plan (Dialect.unseekable): walked in the list's order, a page of a set that holds most entities
   * stops after its rows, where selectedBy reads every match row of the policies first.
   */
  selectedByWalk(entityColumn: string, policyIds: readonly string[]): Fragment | undefined {
    const dialect = this.driver.dialect;
    if (!dialect.unseekable) return undefined;
    const inPolicies = dialect.inList(raw(dialect.unseekable('m."policyId"')), policyIds);
    const own = raw(`${this.matches} m WHERE m."entityId" = ${entityColumn}`);
    return sql`EXISTS (SELECT 1 FROM ${own} AND ${inPolicies})`;
  }

  /**
   * How many entities the policies select by id or attribute (none of them `#all`), counted over their match rows
   * alone: each row's entity exists (its foreign key), so the list needs no visit. Grouped rather than DISTINCT:
   * SQLite sorts the rows once instead of inserting each in a tree (12,000 rows: 2.7 ms against 3.9 ms).
   */
  countSelected(policyIds: readonly string[]): Fragment {
    const owners = this.driver.dialect.inList(raw('m."policyId"'), policyIds);
    const selected = sql`SELECT m."entityId" FROM ${raw(this.matches)} m WHERE ${owners} GROUP BY m."entityId"`;
    return sql`SELECT count(*) AS n FROM (${selected}) selected`;
  }

  /** Of these entities, the ones the policies select (for permissions on a page of services). */
  async selectedAmong(policyIds: readonly string[], entityIds: readonly string[]): Promise<Set<string>> {
    if (policyIds.length === 0 || entityIds.length === 0) return new Set();
    if (await this.anySelectsAll(policyIds)) return new Set(entityIds);
    return new Set((await this.pairsAmong(policyIds, entityIds)).map((r) => r.entityId));
  }

  /**
   * Which of these policies select each of these entities, in two queries whatever their numbers (the posture
   * queries of a page of services): `#all` policies select every one.
   */
  async policiesSelectingAmong(
    policyIds: readonly string[],
    entityIds: readonly string[],
  ): Promise<Map<string, string[]>> {
    const out = new Map(entityIds.map((id) => [id, [] as string[]]));
    if (policyIds.length === 0 || entityIds.length === 0) return out;
    const all = await this.selectingAll(policyIds);
    for (const r of await this.pairsAmong(policyIds, entityIds)) out.get(r.entityId)?.push(r.policyId);
    for (const list of out.values()) list.push(...all.filter((id) => !list.includes(id)));
    return out;
  }

  /**
   * What each of these policies selects, in at most three queries whatever their number (the posture checks of the
   * policies that grant a page of services): `#all` policies select every entity.
   */
  async selectedByEach(policyIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map(policyIds.map((id) => [id, [] as string[]]));
    if (policyIds.length === 0) return out;
    const all = await this.selectingAll(policyIds);
    for (const r of await this.matchPairs(this.driver.dialect.inList(raw('m."policyId"'), policyIds)))
      out.get(r.policyId)?.push(r.entityId);
    if (all.length > 0) {
      const every = (await this.driver.all<{ id: string }>(`SELECT "id" FROM ${this.targetTable}`)).map((r) => r.id);
      for (const id of all) out.set(id, every);
    }
    return out;
  }

  /** Those of the policies whose role set is `#all`. */
  private async selectingAll(policyIds: readonly string[]): Promise<string[]> {
    const owners = this.driver.dialect.inList(raw('r."ownerId"'), policyIds);
    const rows = await this.driver.all<{ id: string }>(
      `SELECT DISTINCT r."ownerId" AS "id" FROM ${this.roles} r WHERE r."value" = '#all' AND ${owners.sql}`,
      owners.params,
    );
    return rows.map((r) => r.id);
  }

  /**
   * The (policy, entity) rows of these policies and entities: read by entity (a page of them, each selected by a few
   * policies) and kept by policy here. Both lists in the statement let SQLite, which keeps no statistics, seek every
   * (entity, policy) pair instead: a hundred policies for a page of a hundred services took 10 ms, this takes 0.3 ms.
   */
  private async pairsAmong(policyIds: readonly string[], entityIds: readonly string[]): Promise<MatchPair[]> {
    const wanted = new Set(policyIds);
    const pairs = await this.matchPairs(this.driver.dialect.inList(raw('m."entityId"'), entityIds));
    return pairs.filter((r) => wanted.has(r.policyId));
  }

  /** The (policy, entity) rows of the index that `cond` (on `m`) keeps. */
  private matchPairs(cond: Fragment): Promise<MatchPair[]> {
    return this.driver.all(
      `SELECT DISTINCT m."policyId" AS "policyId", m."entityId" AS "entityId" FROM ${this.matches} m WHERE ${cond.sql}`,
      cond.params,
    );
  }

  /** Ids of every entity one of the policies selects (policy advice compares two such sets). */
  async selectedIds(policyIds: readonly string[]): Promise<string[]> {
    if (policyIds.length === 0) return [];
    if (await this.anySelectsAll(policyIds))
      return (await this.driver.all<{ id: string }>(`SELECT "id" FROM ${this.targetTable}`)).map((r) => r.id);
    const owners = this.driver.dialect.inList(raw('m."policyId"'), policyIds);
    return (
      await this.driver.all<{ id: string }>(
        `SELECT DISTINCT m."entityId" AS "id" FROM ${this.matches} m WHERE ${owners.sql}`,
        owners.params,
      )
    ).map((r) => r.id);
  }

  /** Ids of the policies (among all, or matching `policyWhere`) that select the entity. */
  async policiesSelecting(entityId: string, policyWhere?: PolicyWhere): Promise<string[]> {
    const q = this.selecting(entityId, policyWhere);
    return (await this.driver.all<{ id: string }>(q.sql, q.params)).map((r) => r.id);
  }
}

/** A row of a match table: the policy selects the entity. */
interface MatchPair {
  policyId: string;
  entityId: string;
}

/** The list a map holds under a key, made empty when it holds none. */
function listed<T>(map: Map<string, T[]>, key: string): T[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** An entity and its role attributes, as the access index reads them. */
export interface AttributedEntity {
  id: string;
  attributes: readonly string[];
}

/** Equality conditions on a policy's own fields. */
export type PolicyWhere = Readonly<Record<string, string>>;

/** The `@id`s and `#attribute`s of a role set; `#all` is neither (it is read from the role set itself). */
export function splitRoles(roles: readonly string[]): { ids: string[]; attributes: string[] } {
  const ids: string[] = [];
  const attributes: string[] = [];
  for (const role of roles) {
    if (role.startsWith('@')) ids.push(role.slice(1));
    else if (role.startsWith('#') && role !== '#all') attributes.push(role.slice(1));
  }
  return { ids, attributes: [...new Set(attributes)] };
}
