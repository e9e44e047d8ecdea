/**
 * The entry of dist/prebuilt.cjs, which bin/ctl.js runs before anything else: the process side of serve.ts, as
 * main.ts is the full CLI's.
 */
import { endQuietlyOnClosedOutput } from '../../console/process-exit.js';
import { serve } from './serve.js';

export { commandLineWords } from './serve.js';

/** Prints what `argv` asks for from the prebuilt files in `dir`, if it can be; says whether it was. */
export function serveProcess(dir: string, argv: readonly string[]): boolean {
  // commander reads the terminal's width off process.stdout, as here.
  const width = process.stdout.isTTY ? process.stdout.columns : undefined;
  let text = '';
  if (!serve(dir, argv, (s) => void (text += s), width)) return false;
  // A reader that went away (`ctl --help | head -1`) ends the process quietly, as it does the full CLI.
  endQuietlyOnClosedOutput();
  process.stdout.write(text);
  return true;
}
