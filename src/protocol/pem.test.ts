import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { certificatePems, pemBlocks } from './pem.js';

const block = (label: string, body: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;

describe('PEM blocks', () => {
  it('finds every block with its label, text and whitespace-free body, in order', () => {
    const text = `prose\n${block('CERTIFICATE', 'QUJD\r\nREVG')}\n\n${block('EC PRIVATE KEY', 'R0hJ')}\ntrailer`;
    assert.deepEqual(pemBlocks(text), [
      { label: 'CERTIFICATE', text: block('CERTIFICATE', 'QUJD\r\nREVG'), base64: 'QUJDREVG' },
      { label: 'EC PRIVATE KEY', text: block('EC PRIVATE KEY', 'R0hJ'), base64: 'R0hJ' },
    ]);
  });

  it('is no block when the END line names another label or is missing', () => {
    assert.deepEqual(pemBlocks('-----BEGIN CERTIFICATE-----\nQUJD\n-----END PKCS7-----'), []);
    assert.deepEqual(pemBlocks('-----BEGIN CERTIFICATE-----\nQUJD\n'), []);
  });

  it('takes the certificates of a bundle, each ending with a newline, and skips other blocks', () => {
    const bundle = `${block('CERTIFICATE', 'QQ==')}\n${block('PRIVATE KEY', 'Qg==')}\n${block('CERTIFICATE', 'Qw==')}`;
    const certificates = [`${block('CERTIFICATE', 'QQ==')}\n`, `${block('CERTIFICATE', 'Qw==')}\n`];
    assert.deepEqual(certificatePems(bundle), certificates);
  });
});
