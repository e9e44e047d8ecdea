import { Argument, Command } from '@commander-js/extra-typings';
import { everyPage, stoppedAt } from '../generic/pages.js';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { FILTER_ARGUMENT, addListFlags, listOptions, runList, type ListFlagValues } from '../generic/list.js';
import { withMeta } from '../generic/meta.js';
import { entityPath } from '../generic/resolve.js';
import { displayedRoles } from '../generic/readable.js';
import { printFooter } from '../output/footer.js';
import { asFormat, isHuman } from '../output/formats.js';
import { render } from '../output/render.js';
import { similarWords } from '../similar.js';
import { KINDS, KIND_NAMES, kindNamed, kindOf, POLICY_RESOURCES, unknownKind } from './kinds.js';
import { completeWith } from '../completion/hints.js';

export interface PolicyListOptions {
  kind?: string;
  filter?: string;
  flags: ListFlagValues;
}

export function buildPolicyList(deps: Deps, run = runPolicyList): CommandUnknownOpts {
  const command = withMeta(
    new Command('list')
      .alias('ls')
      .addArgument(
        completeWith(new Argument('[kind]', `only policies of this kind: ${KIND_NAMES.join(', ')}`), {
          kind: 'values',
          values: KIND_NAMES,
        }),
      )
      .argument('[filter]', FILTER_ARGUMENT),
    {
      description:
        'List policies: of one kind (paged like every list), or of every kind in one table ' +
        '(--limit and --offset choose the rows shown)',
      examples: [
        'ctl policy list',
        'ctl policy list dial',
        'ctl policy list router \'name contains "public"\' -o json',
      ],
    },
  );
  return addListFlags(command, KINDS[0].def).action(async (kind, filter, flags) => {
    // `ctl policy list 'name = "x"'`: a single argument that is no kind is the filter, unless it is a kind misspelt.
    if (kind !== undefined && filter === undefined && !KIND_NAMES.includes(kind)) {
      if (/^[\w-]+$/.test(kind) && similarWords(kind, KIND_NAMES).length > 0) throw unknownKind(kind);
      await run({ filter: kind, flags }, deps);
    } else await run({ kind, filter, flags }, deps);
  });
}

/** ZitiQL predicates end where `sort by`, `limit` or `skip` begin (outside quotes): conditions go before those. */
export function withCondition(filter: string | undefined, condition: string): string {
  if (!filter || filter.trim() === '') return condition;
  let quote: string | undefined;
  for (let i = 0; i < filter.length; i++) {
    const c = filter[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if ((i === 0 || /\s/.test(filter[i - 1])) && /^(sort\s+by|limit|skip)\b/i.test(filter.slice(i))) {
      const predicate = filter.slice(0, i).trim();
      return `${predicate ? `${condition} and (${predicate})` : condition} ${filter.slice(i)}`;
    }
  }
  return `${condition} and (${filter})`;
}

export async function runPolicyList(opts: PolicyListOptions, deps: Deps): Promise<void> {
  if (opts.kind !== undefined) {
    const kind = kindNamed(opts.kind);
    const condition = Object.entries(kind.fixed)
      .map(([f, v]) => `${f} = "${v}"`)
      .join(' and ');
    const filter = condition ? withCondition(opts.filter, condition) : opts.filter;
    await runList({ ...listOptions(kind.def, filter, opts.flags, deps), path: entityPath(kind.def) }, deps);
    return;
  }
  // Every kind: one table with the kind beside each policy; json and yaml get the policies with a `kind` member.
  const api = await deps.api();
  const rows: Record<string, unknown>[] = [];
  const pages = await Promise.all(
    POLICY_RESOURCES.map((def) =>
      everyPage<Record<string, unknown>>(api, entityPath(def), { filter: opts.filter }, { api: def.api }, (n) =>
        deps.io.warn(stoppedAt(n)),
      ),
    ),
  );
  for (const [i, def] of POLICY_RESOURCES.entries()) {
    for (const entity of pages[i]!.rows) {
      const kind = kindOf(def, entity);
      // The table shows roles as a person reads them (`@crm`, not `@<id>`): the controller's display form.
      const [who, what] = Object.values(kind.roles).map((field) => displayedRoles(entity, field) ?? []);
      rows.push({ kind: kind.kind, ...entity, selects: { who, what } });
    }
  }
  // Every row is read (one table needs all three lists): --offset and --limit choose the part shown.
  const { offset = 0, limit, quiet } = opts.flags;
  const shown = rows.slice(offset, limit === undefined ? undefined : offset + limit);
  const format = asFormat(deps.globals().output);
  const human = isHuman(format);
  await render(deps.io, human ? shown : shown.map(({ selects: _, ...rest }) => rest), {
    format,
    quiet: Boolean(quiet),
    empty: 'no policies found',
    columns: [
      { header: 'Kind', field: 'kind' },
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Semantic', field: 'semantic' },
      { header: 'Who', field: 'selects.who' },
      { header: 'What', field: 'selects.what' },
    ],
  });
  printFooter(deps.io, { offset, limit: limit ?? rows.length, totalCount: rows.length }, shown.length, human && !quiet);
}
