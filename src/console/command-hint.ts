// Commands that messages suggest ("log in again with `ctl login ...`") are run as printed: they must act on the same
// profile and data directory as the command that printed them, or they quietly act on another one.

/** A word as a POSIX shell reads it back: bare when it holds only plain characters, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** What selects the profile and data directory of the running command, as far as a suggested command must repeat it. */
export interface Selection {
  /** `--profile NAME`, when a bare command would pick another profile. */
  profile?: string;
  /** `--data-dir DIR`, for controller commands run with one. */
  dataDir?: string;
}

/**
 * The profile a suggested command must name: none when a bare command (no --profile, no CTL_PROFILE) picks it anyway,
 * that is when it is the current profile (`ctl profile use`), or `default` with none current.
 */
export function profileSelection(profileName: string, currentProfile: string | undefined): Selection {
  return profileName === (currentProfile ?? 'default') ? {} : { profile: profileName };
}

/**
 * `command` followed by the options that select the same profile and data directory, shell-quoted. `command` is
 * written as it should read (placeholders such as CODE stay bare); values taken from input go through shellQuote.
 */
export function suggestCommand(command: string, selection: Selection = {}): string {
  const extra: string[] = [];
  if (selection.profile !== undefined) extra.push('--profile', shellQuote(selection.profile));
  if (selection.dataDir !== undefined) extra.push('--data-dir', shellQuote(selection.dataDir));
  return [command, ...extra].join(' ');
}
