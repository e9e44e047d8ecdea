// Test-only: parses argv through a command the way the root program would (global --profile included), with
// commander's exits turned into thrown CommanderErrors and its output silenced.
import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';

function quiet(command: CommandUnknownOpts): void {
  command.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  for (const sub of command.commands) quiet(sub);
}

export async function parseArgv(command: CommandUnknownOpts, argv: string[]): Promise<void> {
  const root = new Command('ctl').option('--profile <name>', 'profile to use');
  root.addCommand(command);
  quiet(root);
  await root.parseAsync(argv, { from: 'user' });
}
