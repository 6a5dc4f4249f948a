/** `open`: anyone may create an account at POST /auth/register; `closed`: only the operator's command does. */
export type SignUpPolicy = 'open' | 'closed';

export abstract class IdentitySettings {
  abstract readonly signUp: SignUpPolicy;
}
