/** Asking the person at the terminal; only used when IO.canPrompt() says we may. */
export interface Prompter {
  input(message: string, opts?: { default?: string }): Promise<string>;
  password(message: string): Promise<string>;
  confirm(message: string, opts?: { default?: boolean }): Promise<boolean>;
}
