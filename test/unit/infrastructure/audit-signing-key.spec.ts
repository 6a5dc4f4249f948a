import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../src/infrastructure/config/app-config';
import {
  Ed25519CheckpointSigner,
  Ed25519SignatureVerifier,
  resolveAuditSigningKey,
} from '../../../src/infrastructure/security/ed25519-checkpoint-keys';

const ed25519 = () => generateKeyPairSync('ed25519').privateKey;

describe('AUDIT_SIGNING_KEY', () => {
  it('takes an Ed25519 private key as PEM or as base64 of PKCS8 DER, and nothing else', () => {
    const key = ed25519();
    const pem = key.export({ format: 'pem', type: 'pkcs8' }) as string;
    const der = key.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    expect(loadConfig({ AUDIT_SIGNING_KEY: pem }).auditSigningKey).toBe(pem);
    expect(loadConfig({ AUDIT_SIGNING_KEY: der }).auditSigningKey).toBe(pem);

    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    for (const value of [rsa, 'not a key', der.slice(0, 20)]) {
      expect(() => loadConfig({ AUDIT_SIGNING_KEY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ AUDIT_SIGNING_KEY: value })).toThrow(/AUDIT_SIGNING_KEY must be an Ed25519 private key/);
    }
  });

  it('is required with a PostgreSQL server in production, and optional otherwise', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), PUBLIC_BASE_URL: 'https://b.example' };
    expect(() => loadConfig({ ...production, DATABASE_URL: 'postgres://db/bridle' })).toThrow(/AUDIT_SIGNING_KEY is required/);
    expect(loadConfig(production).auditSigningKey).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: 'postgres://db/bridle' }).auditSigningKey).toBeUndefined();
    const pem = ed25519().export({ format: 'pem', type: 'pkcs8' }) as string;
    expect(loadConfig({ ...production, DATABASE_URL: 'postgres://db/bridle', AUDIT_SIGNING_KEY: pem }).auditSigningKey).toBe(pem);
  });

  it('when unset, is generated once into the data folder, readable by its owner only, and kept', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bridle-key-'));
    try {
      const config = loadConfig({ BRIDLE_DATA_DIR: dataDir });
      const warnings: string[] = [];
      const first = await resolveAuditSigningKey(config, (message) => warnings.push(message));
      const again = await resolveAuditSigningKey(config, (message) => warnings.push(message));
      expect(again).toBe(first);
      const signer = new Ed25519CheckpointSigner(first);
      expect(warnings).toEqual([expect.stringContaining(`id ${signer.keyId}`)]);
      expect((await stat(join(dataDir, 'audit-signing-key.pem'))).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('signs what the verifier accepts with its public key, and only that', () => {
    const signer = new Ed25519CheckpointSigner(ed25519().export({ format: 'pem', type: 'pkcs8' }) as string);
    const verifier = new Ed25519SignatureVerifier();
    const signature = signer.sign('bridle-audit-checkpoint:v1\n1');
    expect(verifier.keyIdOf(signer.publicKey)).toBe(signer.keyId);
    expect(verifier.verify('bridle-audit-checkpoint:v1\n1', signature, signer.publicKey)).toBe(true);
    expect(verifier.verify('bridle-audit-checkpoint:v1\n2', signature, signer.publicKey)).toBe(false);
    expect(verifier.verify('bridle-audit-checkpoint:v1\n1', signature, 'bm90IGEga2V5')).toBe(false);
    expect(verifier.keyIdOf('bm90IGEga2V5')).toBeNull();
  });
});
