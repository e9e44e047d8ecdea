// PEM blocks in text (RFC 7468): how a CA bundle, a certificate, a key or a PKCS#7 envelope is found inside what a
// user or a controller handed us. One reading for the CLI, its client and the controller; no dependency.

/** One `-----BEGIN LABEL----- ... -----END LABEL-----` block. */
export interface PemBlock {
  label: string;
  /** The block as it appears in the text, from its BEGIN line to its END line. */
  text: string;
  /** The body with its line breaks and other whitespace removed. */
  base64: string;
}

/** Every PEM block of `text`, in order; a BEGIN without its matching END is not a block. */
export function pemBlocks(text: string): PemBlock[] {
  return [...text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g)].map((m) => ({
    label: m[1],
    text: m[0],
    base64: m[2].replace(/\s+/g, ''),
  }));
}

/** The CERTIFICATE blocks of `text` (a bundle may hold several), each ending with a newline; other blocks ignored. */
export function certificatePems(text: string): string[] {
  return pemBlocks(text)
    .filter((block) => block.label === 'CERTIFICATE')
    .map((block) => `${block.text}\n`);
}
