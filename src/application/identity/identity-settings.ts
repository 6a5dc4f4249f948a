/** `open`: anyone may create an account at POST /auth/register; `closed`: only the operator's command does. */
export type SignUpPolicy = 'open' | 'closed';

export abstract class IdentitySettings {
  abstract readonly signUp: SignUpPolicy;
}

/** How long a console session lasts: each token (JWT_EXPIRES_IN), and renewals after the sign-in (SESSION_MAX_AGE). */
export abstract class SessionSettings {
  abstract readonly tokenLifetimeSeconds: number;
  abstract readonly maxAgeSeconds: number;
}
