import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** What a bare server answers to every request: its bytes and their content type. */
export interface BareAnswer {
  body: Buffer;
  contentType: string;
}

/** The bare server's own answer, the smallest JSON envelope (37 bytes). */
export const SMALLEST_ANSWER: BareAnswer = {
  body: Buffer.from('{"data":{"hello":"world"},"meta":{}}'),
  contentType: 'application/json',
};

/**
 * A `node:https` server with the controller's certificate that answers every request with the same bytes and does
 * nothing else: what TLS, HTTP and the send of an answer of that size cost on this machine, without our work.
 */
export async function startBareServer(pkiDir: string, answer: BareAnswer): Promise<{ url: string; close: () => void }> {
  const server = createServer(
    {
      key: readFileSync(join(pkiDir, 'server.key.pem')),
      cert:
        readFileSync(join(pkiDir, 'server.cert.pem'), 'utf8') +
        readFileSync(join(pkiDir, 'intermediate.cert.pem'), 'utf8'),
    },
    (_req, res) => {
      res.setHeader('content-type', answer.contentType);
      res.end(answer.body);
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}
