import { oneOf, secret, wholeNumber } from './rules';
import { type Setting } from './setting';

/** The Authentication section of docs/configuration.md, in its order. */
export const AUTHENTICATION_SETTINGS = {
  JWT_SECRET: {
    section: 'Authentication',
    ...secret(32),
    also: '. Required when `NODE_ENV=production`',
    defaultText: 'unset: generated once into `BRIDLE_DATA_DIR/jwt-secret` (mode 600) with a warning',
    doc: 'HS256 signing key of access tokens. The key of unsubscribe links is derived from it ([security](security.md#unsubscribe-links)). Every replica and worker must share it; changing it ends every session and voids the links in emails already sent',
  },
  JWT_EXPIRES_IN: {
    section: 'Authentication',
    ...wholeNumber(60, 30 * 24 * 3600),
    default: '3600',
    doc: 'access-token lifetime in seconds',
  },
  SESSION_MAX_AGE: {
    section: 'Authentication',
    ...wholeNumber(60, 30 * 24 * 3600),
    also: ', at least `JWT_EXPIRES_IN`',
    defaultText: '`43200`, or `JWT_EXPIRES_IN` when longer',
    doc: 'seconds after signing in that a console session may still be renewed (`POST /auth/refresh`); then its person signs in again ([security](security.md#identity-and-access))',
  },
  SIGN_UP: {
    section: 'Authentication',
    ...oneOf(['open', 'closed']),
    default: 'open',
    doc: '`closed`: `POST /auth/register` answers 403 `AUTH.SIGN_UP_CLOSED`. `npm run admin -- add-user` still creates accounts',
  },
} as const satisfies Record<string, Setting>;
