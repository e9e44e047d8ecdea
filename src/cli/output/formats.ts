/** The output formats of `-o, --output`: one list feeding the flag's choices, its help and shell completion. */
export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml'] as const;

export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const DEFAULT_FORMAT: OutputFormat = 'table';

/** Human formats print tables and notes; machine formats print the data and nothing else on stdout. */
export function isHuman(format: OutputFormat): format is 'table' | 'wide' {
  return format === 'table' || format === 'wide';
}

export function asFormat(value: string | undefined): OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value ?? '') ? (value as OutputFormat) : DEFAULT_FORMAT;
}
