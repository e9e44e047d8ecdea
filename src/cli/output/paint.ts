/**
 * Styling for human output. chalk is loaded only when colour is allowed, and its level is set from `io.color`
 * (chalk 5 would otherwise decide by itself and ignore NO_COLOR and --no-color).
 */
export interface Paint {
  bold(text: string): string;
}

const PLAIN: Paint = { bold: (text) => text };

export async function paint(color: boolean): Promise<Paint> {
  if (!color) return PLAIN;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return { bold: (text) => chalk.bold(text) };
}
