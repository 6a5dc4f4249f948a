import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from './app-config';

const SECRET_FILE = 'jwt-secret';

/**
 * The configured secret, or one generated on first start and kept in the data folder so
 * that tokens survive restarts. Only for single-machine use: loadConfig refuses a missing
 * JWT_SECRET in production.
 */
export async function resolveJwtSecret(config: AppConfig, warn: (message: string) => void): Promise<string> {
  if (config.jwtSecret !== undefined) return config.jwtSecret;
  const file = join(config.dataDir, SECRET_FILE);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(config.dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    await writeFile(file, secret, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it between our read and write: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return (await readFile(file, 'utf8')).trim();
    throw error;
  }
  warn(`JWT_SECRET is not set: generated one and stored it in ${file}. Set JWT_SECRET for anything but local use.`);
  return secret;
}
