import { createHash, randomBytes } from 'node:crypto';
import { type MintedSecret, OpaqueTokens } from '../../application/identity/ports/opaque-tokens.port';

export class RandomOpaqueTokens extends OpaqueTokens {
  mint(prefix: string): MintedSecret {
    const secret = `${prefix}${randomBytes(32).toString('base64url')}`;
    return { secret, hash: this.hash(secret) };
  }

  hash(secret: string): string {
    return createHash('sha256').update(secret, 'utf8').digest('hex');
  }
}
