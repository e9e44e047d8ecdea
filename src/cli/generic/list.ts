import { Command, Option } from '@commander-js/extra-typings';
import { everyPage, stoppedAt } from './pages.js';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Pagination } from '../../protocol/envelope.js';
import { SEMANTICS } from '../../resources/common.js';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { printFooter } from '../output/footer.js';
import { asFormat, isHuman } from '../output/formats.js';
import type { OutputFormat } from '../output/formats.js';
import { render } from '../output/render.js';
import { completeWith } from '../completion/hints.js';
import { checkRole } from './fields.js';
import { addPaging, addQuiet } from './flags.js';
import type { PagingValues } from './flags.js';
import { withMeta } from './meta.js';
import { readableRows } from './readable.js';
import { entityPath, resolveId } from './resolve.js';
import type { ApiClient } from '../../client/types.js';
import { columnsOf, noun, plural, requireOperation } from './words.js';

export interface ListOptions extends PagingValues {
  /** The resource listed: its columns, label and API. */
  def: ResourceDef;
  /** Where to list from; `/{plural}` unless this is a related list such as `/identities/{id}/authenticators`. */
  path: string;
  filter?: string;
  roleFilter?: string[];
  roleSemantic?: string;
  quiet: boolean;
  format: OutputFormat;
  /** Further query parameters of this list (`policyType=dial` on an identity's services). */
  query?: Record<string, string>;
}

export const FILTER_ARGUMENT = 'a ZitiQL filter, e.g. \'name contains "lap" sort by name\' (see: ctl help filters)';

/** What the list flags give: the role filters only where the resource has role attributes. */
export type ListFlagValues = PagingValues & { quiet?: boolean; roleFilter?: string[]; roleSemantic?: string };

/** The list flags: paging, ids only, and role filters where the resource has role attributes. */
export function addListFlags<A extends unknown[]>(command: Command<A>, def: ResourceDef): Command<A, ListFlagValues> {
  const paged = addPaging(addQuiet(command));
  if (!def.roleAttributes) return paged;
  const roleFilterHelp = 'only entities matching a role: #attribute, @name-or-id or #all; repeat for several';
  const roleFilter = new Option('--role-filter <role>', roleFilterHelp).argParser(
    (value: string, previous: string[] | undefined) => [...(previous ?? []), checkRole(value)],
  );
  return paged
    .addOption(completeWith(roleFilter, { kind: 'role', resource: def.name }))
    .addOption(new Option('--role-semantic <semantic>', 'how several --role-filter combine').choices(SEMANTICS));
}

/** Reads the list flags into options, all but where to list from (no I/O: flag tests capture these). */
export function listOptions(
  def: ResourceDef,
  filter: string | undefined,
  o: ListFlagValues,
  deps: Deps,
): Omit<ListOptions, 'path'> {
  return {
    def,
    filter,
    limit: o.limit,
    offset: o.offset,
    all: o.all,
    roleFilter: o.roleFilter,
    roleSemantic: o.roleSemantic,
    quiet: Boolean(o.quiet),
    format: asFormat(deps.globals().output),
  };
}

export function buildList(deps: Deps, def: ResourceDef, run = runList): CommandUnknownOpts {
  requireOperation(def, 'list', 'list');
  const n = noun(def);
  const examples = [`ctl ${n} list`, `ctl ${n} list --all -o json`];
  if ('name' in def.fields) examples.push(`ctl ${n} list 'name contains "lap" sort by name' --limit 50`);
  if (def.roleAttributes)
    examples.push(`ctl ${n} list --role-filter '#sales' --role-filter '#emea' --role-semantic AllOf`);
  const command = withMeta(new Command('list').alias('ls').argument('[filter]', FILTER_ARGUMENT), {
    description: `List ${plural(def)}`,
    examples,
  });
  return addListFlags(command, def).action(async (filter, o) => {
    await run({ ...listOptions(def, filter, o, deps), path: entityPath(def) }, deps);
  });
}

export async function runList(opts: ListOptions, deps: Deps): Promise<void> {
  const { io } = deps;
  const { rows, page } = await fetchRows(opts, deps);
  const human = isHuman(opts.format) && !opts.quiet;
  const shown = human ? await readableRows(await deps.api(), opts.def, rows) : rows;
  const empty = `no ${plural(opts.def)} found`;
  await render(io, shown, { format: opts.format, columns: columnsOf(opts.def), quiet: opts.quiet, empty });
  printFooter(io, page, rows.length, human);
}

/** `@name` in a role filter means that entity: the controller matches only `@id`, so names become ids here. */
async function roleIds(api: ApiClient, def: ResourceDef, roles: string[] | undefined): Promise<string[] | undefined> {
  if (!roles) return undefined;
  return Promise.all(
    roles.map(async (role) =>
      role.startsWith('@') && role.length > 1 ? `@${await resolveId(api, def, role.slice(1))}` : role,
    ),
  );
}

async function fetchRows(opts: ListOptions, deps: Deps): Promise<{ rows: unknown[]; page: Pagination }> {
  const api = await deps.api();
  const roleFilter = await roleIds(api, opts.def, opts.roleFilter);
  const query = { filter: opts.filter, roleFilter, roleSemantic: opts.roleSemantic };
  const target = { api: opts.def.api, ...(opts.query ? { query: opts.query } : {}) };
  if (!opts.all) {
    const envelope = await api.list(opts.path, { ...query, limit: opts.limit, offset: opts.offset }, target);
    return { rows: envelope.data, page: envelope.meta.pagination };
  }
  return deps.io.spin(`fetching ${plural(opts.def)}`, async () => {
    const { rows, totalCount } = await everyPage(api, opts.path, query, target, (n) => deps.io.warn(stoppedAt(n)));
    return { rows, page: { limit: rows.length, offset: 0, totalCount } };
  });
}
