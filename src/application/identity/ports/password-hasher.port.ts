export abstract class PasswordHasher {
  /** A salted, deliberately slow, self-describing hash. */
  abstract hash(password: string): Promise<string>;
  /** Constant-time comparison; false for a hash it cannot parse. */
  abstract verify(password: string, hash: string): Promise<boolean>;
}
