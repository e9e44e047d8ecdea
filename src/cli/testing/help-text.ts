import type { CommandUnknownOpts } from '@commander-js/extra-typings';

/** The help commander prints for `command` in a terminal `width` columns wide, captured instead of written. */
export function capturedHelp(command: CommandUnknownOpts, width: number): string {
  let text = '';
  const saved = command.configureOutput();
  command.configureOutput({ ...saved, writeOut: (s) => void (text += s), getOutHelpWidth: () => width });
  command.outputHelp();
  command.configureOutput(saved);
  return text;
}
