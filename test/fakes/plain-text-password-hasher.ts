import { PasswordHasher } from '../../src/application/identity/ports/password-hasher.port';

/** Reversible on purpose, so unit tests can see what was hashed; counts verifications. */
export class PlainTextPasswordHasher extends PasswordHasher {
  verifications = 0;

  hash(password: string): Promise<string> {
    return Promise.resolve(`plain:${password}`);
  }

  verify(password: string, hash: string): Promise<boolean> {
    this.verifications++;
    return Promise.resolve(hash === `plain:${password}`);
  }
}
