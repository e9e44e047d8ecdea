import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { apiSession } from '../resources/api-session.js';
import { authPolicy } from '../resources/auth-policy.js';
import { authenticator } from '../resources/authenticator.js';
import { enrollment } from '../resources/enrollment.js';
import { identityType } from '../resources/identity-type.js';
import { identity } from '../resources/identity.js';
import { buildComplete, buildCompletion } from './completion/command.js';
import { buildController, buildQuickstart } from './controller/index.js';
import type { Deps } from './deps.js';
import { buildDelete } from './generic/delete.js';
import { buildList } from './generic/list.js';
import { buildNoun } from './generic/noun.js';
import { buildRelationList } from './generic/relation.js';
import { buildShow } from './generic/show.js';
import { buildUpdate } from './generic/update.js';
import { buildHelp } from './help-topics.js';
import { buildIdentityCreate } from './identity/create.js';
import { buildIdentityDisable } from './identity/disable.js';
import { buildIdentityEnable } from './identity/enable.js';
import { buildApi, buildLogin, buildLogout, buildProfile, buildVersion, buildWhoami } from './session/index.js';

/** One command of the tree, declared by its full path; its parent must be declared before it. */
export interface TreeEntry {
  path: string;
  build(deps: Deps): CommandUnknownOpts;
  /** Heading the command is listed under in its parent's help. */
  group?: string;
  /** Left out of help (machinery such as `__complete`). */
  hidden?: boolean;
}

const SESSION = 'Session:';
const IDENTITIES = 'Identities and authentication:';
const CONTROLLER = 'Local controller:';
const OTHER = 'Other:';

/**
 * The whole command tree, in one place, by full path. Builders stay small and testable on their own; this list
 * alone decides where each command lives, and `assemble` rejects duplicates and orphans at start-up.
 */
export const TREE: readonly TreeEntry[] = [
  { path: 'login', group: SESSION, build: (d) => buildLogin(d) },
  { path: 'logout', group: SESSION, build: (d) => buildLogout(d) },
  { path: 'whoami', group: SESSION, build: (d) => buildWhoami(d) },
  { path: 'profile', group: SESSION, build: (d) => buildProfile(d) },

  { path: 'identity', group: IDENTITIES, build: () => buildNoun(identity) },
  { path: 'identity list', build: (d) => buildList(d, identity) },
  { path: 'identity show', build: (d) => buildShow(d, identity) },
  { path: 'identity create', build: (d) => buildIdentityCreate(d) },
  { path: 'identity update', build: (d) => buildUpdate(d, identity) },
  { path: 'identity delete', build: (d) => buildDelete(d, identity) },
  { path: 'identity enable', build: (d) => buildIdentityEnable(d) },
  { path: 'identity disable', build: (d) => buildIdentityDisable(d) },
  { path: 'identity authenticators', build: (d) => buildRelationList(d, identity, 'authenticators') },
  { path: 'identity enrollments', build: (d) => buildRelationList(d, identity, 'enrollments') },

  { path: 'identity-type', group: IDENTITIES, build: () => buildNoun(identityType) },
  { path: 'identity-type list', build: (d) => buildList(d, identityType) },
  { path: 'identity-type show', build: (d) => buildShow(d, identityType) },

  { path: 'auth-policy', group: IDENTITIES, build: () => buildNoun(authPolicy) },
  { path: 'auth-policy list', build: (d) => buildList(d, authPolicy) },
  { path: 'auth-policy show', build: (d) => buildShow(d, authPolicy) },

  { path: 'authenticator', group: IDENTITIES, build: () => buildNoun(authenticator) },
  { path: 'authenticator list', build: (d) => buildList(d, authenticator) },
  { path: 'authenticator show', build: (d) => buildShow(d, authenticator) },
  { path: 'authenticator delete', build: (d) => buildDelete(d, authenticator) },

  { path: 'enrollment', group: IDENTITIES, build: () => buildNoun(enrollment) },
  { path: 'enrollment list', build: (d) => buildList(d, enrollment) },
  { path: 'enrollment show', build: (d) => buildShow(d, enrollment) },
  { path: 'enrollment delete', build: (d) => buildDelete(d, enrollment) },

  { path: 'api-session', group: IDENTITIES, build: () => buildNoun(apiSession) },
  { path: 'api-session list', build: (d) => buildList(d, apiSession) },
  { path: 'api-session show', build: (d) => buildShow(d, apiSession) },
  { path: 'api-session delete', build: (d) => buildDelete(d, apiSession) },

  { path: 'controller', group: CONTROLLER, build: (d) => buildController(d) },
  { path: 'quickstart', group: CONTROLLER, build: (d) => buildQuickstart(d) },

  { path: 'api', group: OTHER, build: (d) => buildApi(d) },
  { path: 'version', group: OTHER, build: (d) => buildVersion(d) },
  { path: 'completion', group: OTHER, build: (d) => buildCompletion(d) },
  { path: 'help', group: OTHER, build: (d) => buildHelp(d) },
  { path: '__complete', hidden: true, build: (d) => buildComplete(d) },
];

/** Every command below `command` with its full path (`identity create`), parents before children. */
export function* walk(command: CommandUnknownOpts, path = ''): Generator<[string, CommandUnknownOpts]> {
  for (const child of command.commands) {
    const childPath = path === '' ? child.name() : `${path} ${child.name()}`;
    yield [childPath, child];
    yield* walk(child, childPath);
  }
}

/**
 * Builds every entry and attaches it under its parent. Fails at start-up, never at the user's command, on a
 * duplicate path, a parent declared later or not at all, or a builder whose command is named differently from its
 * path. Commands built with their own subcommands (controller start|stop|status) are checked the same way.
 */
export function assemble(root: CommandUnknownOpts, deps: Deps, entries: readonly TreeEntry[] = TREE): CommandUnknownOpts {
  const byPath = new Map<string, CommandUnknownOpts>([['', root]]);
  const claim = (path: string, command: CommandUnknownOpts) => {
    if (byPath.has(path)) throw new Error(`command '${path}' is declared twice`);
    byPath.set(path, command);
  };
  for (const entry of entries) {
    const words = entry.path.split(' ');
    const parentPath = words.slice(0, -1).join(' ');
    const parent = byPath.get(parentPath);
    if (!parent) throw new Error(`command '${entry.path}' has no parent '${parentPath}' declared before it`);
    const command = entry.build(deps);
    if (command.name() !== words[words.length - 1]) throw new Error(`command '${entry.path}' is built as '${command.name()}'`);
    claim(entry.path, command);
    for (const [sub, child] of walk(command, entry.path)) claim(sub, child);
    if (entry.group) command.helpGroup(entry.group);
    parent.addCommand(command, { hidden: entry.hidden });
  }
  for (const [path, command] of walk(root)) inheritRootSettings(command, root, path);
  return root;
}

/**
 * What the root decides for every command, however it was built: where output goes, the help layout, that errors
 * are thrown to main() instead of exiting, no implicit `help` subcommands (`ctl help ...` serves them all), and a
 * usage error pointing at the command's own help.
 * Chosen one by one rather than with copyInheritedSettings, which would also reset a builder's own parsing choices.
 */
function inheritRootSettings(command: CommandUnknownOpts, root: CommandUnknownOpts, path: string): void {
  command.configureOutput(root.configureOutput());
  command.configureHelp(root.configureHelp());
  command.exitOverride();
  command.helpCommand(false);
  command.showHelpAfterError(usageHint(path));
}

/** The line under a usage error: where to read how the command is used. */
export function usageHint(path: string): string {
  return `(see 'ctl ${path === '' ? '' : `${path} `}--help')`;
}
