import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointSigner, SignatureVerifier } from '../../application/audit/ports/checkpoint-signer.port';
import type { AppConfig } from '../config/app-config';

const KEY_FILE = 'audit-signing-key.pem';

/** The first 16 hex digits of the SHA-256 of the key's SPKI DER. */
function keyIdOfDer(spki: Buffer): string {
  return createHash('sha256').update(spki).digest('hex').slice(0, 16);
}

/** Signs with a private Ed25519 key (Node's crypto: no digest argument, the message as is). */
export class Ed25519CheckpointSigner extends CheckpointSigner {
  readonly keyId: string;
  readonly publicKey: string;
  private readonly key: KeyObject;

  constructor(privateKeyPem: string) {
    super();
    this.key = createPrivateKey(privateKeyPem);
    if (this.key.asymmetricKeyType !== 'ed25519') throw new Error('The audit signing key is not an Ed25519 key');
    const spki = createPublicKey(this.key).export({ format: 'der', type: 'spki' });
    this.keyId = keyIdOfDer(spki);
    this.publicKey = spki.toString('base64');
  }

  sign(message: string): string {
    return sign(null, Buffer.from(message, 'utf8'), this.key).toString('base64');
  }
}

export class Ed25519SignatureVerifier extends SignatureVerifier {
  keyIdOf(publicKey: string): string | null {
    const key = publicKeyOf(publicKey);
    return key === null ? null : keyIdOfDer(key.export({ format: 'der', type: 'spki' }));
  }

  verify(message: string, signature: string, publicKey: string): boolean {
    const key = publicKeyOf(publicKey);
    if (key === null) return false;
    return verify(null, Buffer.from(message, 'utf8'), key, Buffer.from(signature, 'base64'));
  }
}

function publicKeyOf(spkiBase64: string): KeyObject | null {
  try {
    const key = createPublicKey({ key: Buffer.from(spkiBase64, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ed25519' ? key : null;
  } catch {
    return null;
  }
}

/**
 * AUDIT_SIGNING_KEY, or a key generated on first start and kept in the data folder (mode
 * 0600), so that one process on its own data folder needs no configuration. loadConfig refuses
 * a missing key with a PostgreSQL server in production, where replicas must share one.
 * @returns the private key, PKCS8 PEM.
 */
export async function resolveAuditSigningKey(config: AppConfig, warn: (message: string) => void): Promise<string> {
  if (config.auditSigningKey !== undefined) return config.auditSigningKey;
  const file = join(config.dataDir, KEY_FILE);
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(config.dataDir, { recursive: true });
  const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  try {
    await writeFile(file, pem, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it between our read and write: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFile(file, 'utf8');
    throw error;
  }
  const signer = new Ed25519CheckpointSigner(pem);
  warn(
    `AUDIT_SIGNING_KEY is not set: generated an Ed25519 key (id ${signer.keyId}) for audit checkpoints and stored it in ${file}. ` +
      'Keep a copy elsewhere, and set AUDIT_SIGNING_KEY (the same on every replica) for anything but local use.',
  );
  return pem;
}
