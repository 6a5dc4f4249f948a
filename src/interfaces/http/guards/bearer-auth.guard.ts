import { type CanActivate, createParamDecorator, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import {
  type AccountCheck,
  AccessTokenService,
  type AuthenticatedPrincipal,
  type Credential,
  type Principal,
} from '../../../application/identity/ports/access-token-service.port';
import { OAuthAccessTokenVerifier, TOKEN_PREFIXES } from '../../../application/identity/ports/bearer-token-verifier.port';
import { UserRepository } from '../../../application/identity/ports/user-repository.port';
import { PersonalAccessTokens } from '../../../application/identity/personal-access-tokens';
import { holdsScope, type Scope, SCOPES } from '../../../domain/identity/scopes';
import { AccountGoneError, CredentialsChangedError, hasCurrentCredentials, type User } from '../../../domain/identity/user';
import { isUuid } from '../../../domain/shared/uuid';
import { ApiError } from '../shared/api-error';
import { insufficientScope, ProtectedResource, unauthenticated } from './bearer-challenge';
import { ACCEPTS_OAUTH_TOKENS, ACCOUNT_CHECKED_BY_HANDLER, REQUIRED_SCOPE, type ScopeRequirement } from './required-scope';

type AuthenticatedRequest = Request & { principal?: AuthenticatedPrincipal };

interface Authenticated {
  readonly account: Principal;
  readonly credential: Credential;
  readonly scopes: readonly Scope[];
  readonly accountCheck?: AccountCheck;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Accepts only a valid `Authorization: Bearer <token>` of an account that exists now, and
 * puts that account on the request as the principal, with what authenticated it and the
 * scopes it holds. Three kinds of token, told apart by their prefix:
 * - a personal access token (`bridle_pat_…`), checked against the store on every request, so
 *   a revocation holds from the next one;
 * - an OAuth access token (`bridle_oat_…`), likewise, and only on the resource it was issued
 *   for (`/mcp`, its audience);
 * - otherwise the console's session JWT, issued under the account's current credentials
 *   version: the account, its role and its version are read now, not taken from the token;
 *   on a route marked AccountCheckedByHandler that read is left to the handler's opening
 *   statement (the principal then carries `accountCheck`).
 * A token other than a session needs the scope the route names (RequiredScope); a route that
 * names none is for a session only. A 401 carries `WWW-Authenticate` with the protected
 * resource's metadata, where an MCP client starts the OAuth flow.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly tokens: AccessTokenService,
    private readonly users: UserRepository,
    private readonly personalTokens: PersonalAccessTokens,
    private readonly oauthTokens: OAuthAccessTokenVerifier,
    private readonly resource: ProtectedResource,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const [scheme, token, ...rest] = (req.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || !token || rest.length > 0) {
      throw unauthenticated(res, this.resource, 'A bearer token is required: Authorization: Bearer <token>', false);
    }
    const route = [context.getHandler(), context.getClass()];
    const authenticated = await this.authenticate(token, req, res, {
      acceptsOAuth: this.reflector.getAllAndOverride<boolean>(ACCEPTS_OAUTH_TOKENS, route) ?? false,
      accountCheckedByHandler: this.reflector.getAllAndOverride<boolean>(ACCOUNT_CHECKED_BY_HANDLER, route) ?? false,
    });

    if (authenticated.credential.kind !== 'session') {
      const requirement = this.reflector.getAllAndOverride<ScopeRequirement>(REQUIRED_SCOPE, route);
      if (!requirement) {
        throw new ApiError(403, 'AUTH.SESSION_REQUIRED', 'This route takes a signed-in session, not an access token');
      }
      const scope = requirement === 'any' ? null : SAFE_METHODS.has(req.method) ? requirement.read : requirement.write;
      if (scope && !holdsScope(authenticated.scopes, scope)) {
        throw insufficientScope(res, this.resource, scope, `This token lacks the scope ${scope}`);
      }
    }
    const { account, credential, scopes, accountCheck } = authenticated;
    req.principal = { ...account, credential, scopes, ...(accountCheck && { accountCheck }) };
    return true;
  }

  private async authenticate(
    token: string,
    req: Request,
    res: Response,
    route: { acceptsOAuth: boolean; accountCheckedByHandler: boolean },
  ): Promise<Authenticated> {
    const refuse = (message: string) => unauthenticated(res, this.resource, message, true);
    if (token.startsWith(TOKEN_PREFIXES.personalAccess)) {
      const found = await this.personalTokens.authenticate(token, clientAddress(req));
      if (!found) throw refuse('The access token is invalid, expired or revoked');
      return { account: principalOf(found.user), credential: found.verified.credential, scopes: found.verified.scopes };
    }
    if (token.startsWith(TOKEN_PREFIXES.oauthAccess)) {
      const verified = await this.oauthTokens.verify(token);
      if (!verified) throw refuse('The access token is invalid, expired or revoked');
      if (!route.acceptsOAuth || verified.resource !== this.resource.resourceUrl) {
        throw refuse(`This token was issued for another resource; it is good only for ${this.resource.resourceUrl}`);
      }
      const user = await this.users.findById(verified.userId);
      if (!user) throw refuse(new AccountGoneError().message);
      return { account: principalOf(user), credential: verified.credential, scopes: verified.scopes };
    }
    const claimed = await this.tokens.verify(token);
    if (!claimed) throw refuse('The bearer token is invalid or has expired');
    if (!isUuid(claimed.userId)) throw refuse(new AccountGoneError().message);
    const { signedInAt, ...account } = claimed;
    const session = { credential: { kind: 'session', signedInAt }, scopes: SCOPES } as const;
    if (route.accountCheckedByHandler) {
      return { account, ...session, accountCheck: { credentialsVersion: claimed.credentialsVersion } };
    }
    const user = await this.users.findById(claimed.userId);
    if (!user) throw refuse(new AccountGoneError().message);
    if (!hasCurrentCredentials(user, claimed.credentialsVersion)) throw refuse(new CredentialsChangedError().message);
    return { account: principalOf(user), ...session };
  }
}

function principalOf(user: User): Principal {
  return { userId: user.id, email: user.email, role: user.role, credentialsVersion: user.credentialsVersion };
}

/** The client's address as Express determines it (TRUST_PROXY names the proxies it believes). */
function clientAddress(req: Request): string {
  return (req.ip ?? req.socket.remoteAddress ?? 'unknown').slice(0, 64);
}

/**
 * For routes under `/api/:userId`: the path must name the authenticated user. Runs after
 * BearerAuthGuard, so an anonymous caller learns nothing about the path.
 */
@Injectable()
export class OwnUserGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const userId = req.params.userId;
    if (!isUuid(userId)) {
      throw new ApiError(400, 'VALIDATION.FAILED', 'userId must be a UUID');
    }
    if (userId.toLowerCase() !== req.principal?.userId.toLowerCase()) {
      throw new ApiError(403, 'AUTH.FORBIDDEN', 'This token may only access its own user');
    }
    return true;
  }
}

export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): AuthenticatedPrincipal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without BearerAuthGuard');
  return principal;
});
