/**
 * The build's entry for the prebuilt files (scripts/prebuilt.mjs bundles and runs it): the whole tree, built as
 * the CLI builds it, written out as records.ts describes.
 */
import { connectionPools } from '../../client/pools.js';
import { createProcessIO } from '../../console/io.js';
import { createDeps } from '../deps-factory.js';
import { HELP_TOPICS, topicText } from '../help-topics.js';
import { buildProgram } from '../main.js';
import { prebuiltFiles } from './records.js';

/** The files by name. No environment reaches the tree: what it prints depends on the build alone. */
export async function makePrebuiltFiles(): Promise<Record<string, string>> {
  const env = {};
  const io = createProcessIO({ env, machineOutput: false, noColor: true, noInput: true });
  const root = await buildProgram(createDeps({ io, env, globals: () => ({}), pools: connectionPools() }));
  const topics = Object.fromEntries(HELP_TOPICS.map((t) => [t.name, topicText(t.name) ?? '']));
  return prebuiltFiles(root, topics);
}
