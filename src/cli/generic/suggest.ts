import { suggestCommand } from '../../console/command-hint.js';
import type { Deps } from '../deps.js';

/**
 * Spells the commands a message suggests so that they act on the profile this command runs with: `--profile NAME`
 * is appended when a bare command would pick another profile (console/command-hint.ts).
 */
export async function suggester(deps: Deps): Promise<(command: string) => string> {
  const { selection } = await (await deps.sessions()).current();
  return (command) => suggestCommand(command, selection);
}
