// The bare server's own process (bench/bare-server.ts starts it): a node:https server with the controller's
// certificate that answers every request with the same bytes, and does nothing else. Its own process, as the
// controller has, so that the load generator's work is not counted as the server's, nor the server's as its.
// Arguments: PKI_DIR ANSWER_FILE CONTENT_TYPE; prints the port it listens on.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';

const [pkiDir, answerFile, contentType] = process.argv.slice(2);
const body = readFileSync(answerFile);
const server = createServer(
  {
    key: readFileSync(join(pkiDir, 'server.key.pem')),
    cert:
      readFileSync(join(pkiDir, 'server.cert.pem'), 'utf8') +
      readFileSync(join(pkiDir, 'intermediate.cert.pem'), 'utf8'),
  },
  (_req, res) => {
    res.setHeader('content-type', contentType);
    res.end(body);
  },
);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
