/** What acts for the person outside the console: the apps they connected over OAuth, and their personal access tokens. */
import type {
  AccessTokenDto,
  CreateAccessTokenData,
  CreateAccessTokenResponse,
  ListAccessTokensData,
  ListAccessTokensResponse,
  ListOAuthGrantsData,
  ListOAuthGrantsResponse,
  OAuthGrantResponseDto,
  RevokeAccessTokenData,
  RevokeOAuthGrantData,
} from '../generated/types.gen';
import { json, send, type Session, url } from './http';

export type OAuthGrant = OAuthGrantResponseDto;

/** The apps the person connected over OAuth. */
export async function listOAuthGrants(session: Session): Promise<OAuthGrant[]> {
  return json<ListOAuthGrantsResponse>(
    'GET',
    url<ListOAuthGrantsData>('/api/{userId}/oauth/grants', { path: { userId: session.userId } }),
    session,
  );
}

/** Disconnects an app: its tokens stop working at their next use. */
export async function revokeOAuthGrant(session: Session, grantId: string): Promise<void> {
  const path = url<RevokeOAuthGrantData>('/api/{userId}/oauth/grants/{grantId}', { path: { userId: session.userId, grantId } });
  await send('DELETE', path, session);
}

export type AccessToken = AccessTokenDto;
export type Scope = AccessToken['scopes'][number];
export interface NewAccessToken {
  readonly name: string;
  readonly scopes: Scope[];
  readonly expiresInDays: number;
}

/** The person's personal access tokens, newest first; never a secret. */
export async function listAccessTokens(session: Session): Promise<AccessToken[]> {
  const path = url<ListAccessTokensData>('/api/{userId}/tokens', { path: { userId: session.userId } });
  return json<ListAccessTokensResponse>('GET', path, session);
}

/** A new token; the answer's `token` is its secret, shown this once. */
export async function createAccessToken(session: Session, token: NewAccessToken): Promise<CreateAccessTokenResponse> {
  const body: CreateAccessTokenData['body'] = { ...token };
  const path = url<CreateAccessTokenData>('/api/{userId}/tokens', { path: { userId: session.userId } });
  return json<CreateAccessTokenResponse>('POST', path, session, body);
}

/** Revokes a token: its next request is refused. */
export async function revokeAccessToken(session: Session, tokenId: string): Promise<void> {
  const path = url<RevokeAccessTokenData>('/api/{userId}/tokens/{tokenId}', { path: { userId: session.userId, tokenId } });
  await send('DELETE', path, session);
}
