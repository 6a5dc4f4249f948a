export abstract class IdentitySettings {
  /** Normalised emails whose accounts hold the admin role. */
  abstract readonly adminEmails: ReadonlySet<string>;
}
