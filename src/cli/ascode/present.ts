import type { Action, Change, Plan } from './plan.js';
import type { Outcome } from './write.js';

const SIGN: Record<Action, string> = {
  create: '+',
  update: '~',
  delete: '-',
  conflict: '!',
  replace: '-/+',
  repoint: '~',
};

/**
 * One line per change: `+ create`, `~ update` with each changed field old → new, `- delete`, `! conflict`, `-/+
 * replace` with the fields as an update's, `~ re-point` with each field and the replaced entities it names again;
 * then why, where the plan says (a conflict's reason, the update a create leaves a forward reference to).
 */
export function planLines(plan: Plan): string[] {
  return [...plan.changes.map(changeLine), summaryLine(plan)];
}

function changeLine(change: Change): string {
  const verb = change.action === 'repoint' ? 're-point' : change.action;
  const head = `${SIGN[change.action]} ${verb} ${change.kind.def.label} "${change.name}"`;
  if (change.action === 'create' || change.action === 'delete') {
    return change.reason === undefined ? head : `${head} (${change.reason})`;
  }
  if (change.action === 'repoint') {
    const fields = Object.entries(change.repoint ?? {}).map(([k, names]) => `${k} to the new ${names.map(shown)}`);
    return `${head}: ${fields.join('; ')}`;
  }
  const fields = Object.entries(change.fields).map(([k, { from, to }]) => `${k} ${shown(from)} → ${shown(to)}`);
  const reenrol = change.action === 'replace' && change.kind.enrollmentJwt ? '; it must enrol again' : '';
  const reason = change.reason === undefined ? '' : ` (${change.reason}${reenrol})`;
  return `${head}${fields.length > 0 ? `: ${fields.join(', ')}` : ''}${reason}`;
}

function shown(value: unknown): string {
  return value === undefined ? '(unset)' : JSON.stringify(value);
}

export function counts(changes: readonly Change[]): Record<Action, number> {
  const out: Record<Action, number> = { create: 0, update: 0, delete: 0, conflict: 0, replace: 0, repoint: 0 };
  for (const c of changes) out[c.action]++;
  return out;
}

function summaryLine(plan: Plan): string {
  if (plan.changes.length === 0) return 'No changes: the controller matches the file.';
  const n = counts(plan.changes);
  const conflicts = `${n.conflict} conflict${n.conflict === 1 ? '' : 's'}`;
  const replaces = n.replace + n.repoint === 0 ? '' : `, ${n.replace} to replace, ${n.repoint} to re-point`;
  return `Plan: ${n.create} to create, ${n.update} to update, ${n.delete} to delete, ${conflicts}${replaces}.`;
}

/** The plan as data (`-o json`): kinds by resource name, fields as the file names them. */
export function planData(plan: Plan) {
  return {
    changes: plan.changes.map((c) => ({
      action: c.action,
      kind: c.kind.def.name,
      name: c.name,
      ...(c.action === 'create' || c.action === 'delete' || c.action === 'repoint' ? {} : { fields: c.fields }),
      ...(c.reason === undefined ? {} : { reason: c.reason }),
      ...(c.after === undefined ? {} : { after: c.after.def.name }),
      ...(c.repoint === undefined ? {} : { repoint: c.repoint }),
      ...(c.action === 'replace' && c.kind.enrollmentJwt ? { enrolsAgain: true } : {}),
    })),
    summary: counts(plan.changes),
  };
}

/**
 * What apply did, as data: what was done, what failed and why, what was not attempted, the replaces put back as
 * they were, and the replaced entities that were deleted and not created again.
 */
export function outcomeData(outcome: Outcome, why: (error: unknown) => string) {
  const ref = (c: Change) => ({ action: c.action, kind: c.kind.def.name, name: c.name });
  return {
    done: outcome.done.map(ref),
    failed: outcome.failed.map(({ change, error }) => ({ ...ref(change), error: why(error) })),
    notAttempted: outcome.skipped.map(ref),
    restored: outcome.restored.map(ref),
    deletedNotCreatedAgain: deletedNotCreated(outcome).map(ref),
  };
}

/** Replaced entities deleted and neither created again from the file nor restored as they were. */
export function deletedNotCreated(outcome: Outcome): Change[] {
  return outcome.removed.filter((c) => !outcome.done.includes(c) && !outcome.restored.includes(c));
}
