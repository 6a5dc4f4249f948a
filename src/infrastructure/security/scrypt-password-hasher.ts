import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';
import { PasswordHasher } from '../../application/identity/ports/password-hasher.port';

/**
 * One of OWASP's equivalent minimum scrypt settings (N=2^15, r=8, p=3): 32 MiB per hash,
 * a quarter of N=2^17's memory for the same work. `npm run bench` prints its cost.
 */
export const SCRYPT_PARAMS: ScryptParams = { N: 32768, r: 8, p: 3 };

export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/**
 * Hashes are `scrypt$N$r$p$salt$key` (base64url), so parameters can be raised later: a hash
 * is verified with the parameters it was made with. Cheaper parameters are for tests only.
 */
export class ScryptPasswordHasher extends PasswordHasher {
  constructor(private readonly params: ScryptParams = SCRYPT_PARAMS) {
    super();
  }

  async hash(password: string): Promise<string> {
    const { N, r, p } = this.params;
    const salt = randomBytes(16);
    const key = await derive(password, salt, this.params);
    return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async verify(password: string, hash: string): Promise<boolean> {
    const [scheme, n, r, p, salt, key] = hash.split('$');
    if (scheme !== 'scrypt' || !salt || !key) return false;
    const expected = Buffer.from(key, 'base64url');
    const actual = await derive(password, Buffer.from(salt, 'base64url'), {
      N: Number(n),
      r: Number(r),
      p: Number(p),
    });
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}
