import { randomUUID } from 'node:crypto';
import { SecretNotFoundError, SecretStore } from '../../application/outreach/ports/channels.port';

/** Secrets from the environment: `linkedin-session` is read from OUTREACH_SECRET_LINKEDIN_SESSION, at each fetch. */
export class EnvironmentSecretStore extends SecretStore {
  constructor(private readonly env: Readonly<Record<string, string | undefined>> = process.env) {
    super();
  }

  fetch(secretName: string): Promise<string> {
    const value = this.env[`OUTREACH_SECRET_${secretName.toUpperCase().replace(/-/g, '_')}`]?.trim();
    return value ? Promise.resolve(value) : Promise.reject(new SecretNotFoundError(secretName));
  }
}

/** The sandbox's sessions: a fresh one each time, for any allowed name. */
export class SandboxSecretStore extends SecretStore {
  constructor(private readonly names: readonly string[]) {
    super();
  }

  fetch(secretName: string): Promise<string> {
    if (!this.names.includes(secretName)) return Promise.reject(new SecretNotFoundError(secretName));
    return Promise.resolve(`sandbox-session-${randomUUID()}`);
  }
}
