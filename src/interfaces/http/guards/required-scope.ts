import { applyDecorators, SetMetadata } from '@nestjs/common';
import type { Scope } from '../../../domain/identity/scopes';

export const REQUIRED_SCOPE = 'bridle:required-scope';
export const ACCEPTS_OAUTH_TOKENS = 'bridle:accepts-oauth-tokens';

export type ScopeRequirement =
  | {
      /** For GET and HEAD. */
      readonly read: Scope;
      /** For every other method. */
      readonly write: Scope;
    }
  | 'any';

/**
 * What a personal access token or an OAuth token must hold to use a route: one scope, or a
 * read scope for GET and HEAD and a write scope otherwise. A route without it is for a
 * signed-in session only (the account, its tokens, admin commands).
 */
export function RequiredScope(read: Scope, write: Scope = read): ClassDecorator & MethodDecorator {
  return SetMetadata(REQUIRED_SCOPE, { read, write } satisfies ScopeRequirement);
}

/** Any credential may use the route, whatever its scopes: `GET /auth/me`, where a script learns whose token it holds. */
export function AnyCredential(): ClassDecorator & MethodDecorator {
  return SetMetadata(REQUIRED_SCOPE, 'any' satisfies ScopeRequirement);
}

/**
 * The route is the OAuth protected resource (`/mcp`): it accepts OAuth access tokens issued
 * for it. Every other route refuses them, whatever their scopes: a token an MCP client got
 * for its tools is not a key to the rest of the API.
 */
export function OAuthProtectedResource(): ClassDecorator & MethodDecorator {
  return applyDecorators(SetMetadata(ACCEPTS_OAUTH_TOKENS, true));
}

export const ACCOUNT_CHECKED_BY_HANDLER = 'bridle:account-checked-by-handler';

/**
 * The route's handler reads the signed-in session's account itself, in the statement it
 * opens with anyway (a chat turn: ConversationStore.startTurn). On a session token the bearer
 * guard then checks the signature and expiry only and puts `accountCheck` on the principal,
 * which the handler must pass on; a changed password or a missing account is still refused
 * from the next request, by that statement, before it writes anything. Saves a round trip and
 * a commit a request. Personal access and OAuth tokens are read by the guard as everywhere.
 */
export function AccountCheckedByHandler(): MethodDecorator {
  return SetMetadata(ACCOUNT_CHECKED_BY_HANDLER, true);
}
