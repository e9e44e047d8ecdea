// The private key of an identity file, made here (enrollment and certificate renewal): its CSR is sent, the key never.
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

/** A new key of `type`: `rsa` (2048 bits), else EC P-256. */
export async function newKey(type: string): Promise<KeyObject> {
  const generate = promisify(generateKeyPair);
  if (type === 'rsa') return (await generate('rsa', { modulusLength: 2048 })).privateKey;
  return (await generate('ec', { namedCurve: 'prime256v1' })).privateKey;
}
