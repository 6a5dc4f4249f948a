import type { ClientRegistration } from '../../../../domain/identity/oauth';
import type { Scope } from '../../../../domain/identity/scopes';

export interface OAuthClient {
  /** The client_id: a UUID Bridle gave it at registration, or the https URL of its metadata document. */
  readonly id: string;
  readonly registration: ClientRegistration;
  readonly createdAt: Date;
}

export interface NewAuthorizationRequest {
  readonly clientId: string;
  readonly redirectUri: string;
  /** PKCE S256 challenge: the code goes only to whoever holds its verifier. */
  readonly codeChallenge: string;
  readonly scopes: readonly Scope[];
  readonly state: string | null;
  readonly resource: string;
  readonly expiresAt: Date;
}

export interface AuthorizationRequest extends NewAuthorizationRequest {
  readonly id: string;
  readonly client: OAuthClient;
  readonly answeredAt: Date | null;
}

/** What a person allowed a client: the scopes, for one resource, until revoked. */
export interface OAuthGrant {
  readonly id: string;
  readonly userId: string;
  readonly client: OAuthClient;
  readonly scopes: readonly Scope[];
  readonly resource: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** An authorization code as stored (its hash is the key), with the request it answers. */
export interface StoredCode {
  readonly grantId: string;
  readonly userId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scopes: readonly Scope[];
  readonly resource: string;
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
}

/** A new access token and refresh token, as hashes, issued together for a grant. */
export interface TokenPair {
  readonly accessHash: string;
  readonly accessExpiresAt: Date;
  readonly refreshHash: string;
  readonly refreshExpiresAt: Date;
  readonly scopes: readonly Scope[];
}

export interface StoredToken {
  readonly id: string;
  readonly kind: 'access' | 'refresh';
  readonly grantId: string;
  readonly userId: string;
  readonly clientId: string;
  readonly scopes: readonly Scope[];
  readonly resource: string;
  readonly expiresAt: Date;
  /** A refresh token's rotation: when it was exchanged for its successor. */
  readonly usedAt: Date | null;
  readonly revokedAt: Date | null;
  readonly grantRevokedAt: Date | null;
  readonly grantLastUsedAt: Date | null;
}

/**
 * Where the authorization server keeps clients, requests, grants, codes and tokens. Codes
 * and tokens are stored as hashes only; each single-use step is one conditional UPDATE, so
 * of two racing uses exactly one wins.
 */
export abstract class OAuthStore {
  abstract registerClient(id: string, registration: ClientRegistration, now: Date): Promise<OAuthClient>;
  /** A client known by its metadata document's URL, created or updated to the document as last fetched. */
  abstract saveClient(id: string, registration: ClientRegistration, now: Date): Promise<OAuthClient>;
  abstract findClient(id: string): Promise<OAuthClient | null>;

  /** @returns the new request's id. */
  abstract createRequest(request: NewAuthorizationRequest, now: Date): Promise<string>;
  abstract findRequest(id: string): Promise<AuthorizationRequest | null>;
  /** Answers a request not yet answered and not expired. @returns false when it was answered meanwhile or has expired. */
  abstract answerRequest(id: string, answer: 'approved' | 'denied', userId: string, now: Date): Promise<boolean>;

  /**
   * The person's live grant to the client for the resource, created, or widened to hold
   * `scopes` too. @returns the grant and whether this call created it.
   */
  abstract upsertGrant(
    userId: string,
    clientId: string,
    resource: string,
    scopes: readonly Scope[],
    now: Date,
  ): Promise<{ grant: OAuthGrant; created: boolean }>;
  abstract listGrants(userId: string): Promise<OAuthGrant[]>;
  /**
   * Revokes the person's live grant and every token issued under it.
   * @returns the grant as it was, or null when the person has no such live grant.
   */
  abstract revokeGrant(grantId: string, now: Date, userId: string): Promise<OAuthGrant | null>;
  /** Records a use of the grant (a later one than recorded). */
  abstract touchGrant(grantId: string, now: Date): Promise<void>;

  /** @param scopes what the person allowed: the request's, or fewer. */
  abstract storeCode(hash: string, requestId: string, grantId: string, scopes: readonly Scope[], expiresAt: Date): Promise<void>;
  abstract findCode(hash: string): Promise<StoredCode | null>;
  /** Marks an unused code used. @returns false when it had been used already. */
  abstract useCode(hash: string, now: Date): Promise<boolean>;

  /** @param parentId the refresh token they were issued for, when there is one (the lineage). */
  abstract issueTokens(grantId: string, tokens: TokenPair, now: Date, parentId?: string): Promise<void>;
  /**
   * Marks a refresh token used and stores its successors, in one transaction.
   * @returns false (and stores nothing) when it was used meanwhile.
   */
  abstract rotateRefreshToken(refreshId: string, grantId: string, successors: TokenPair, now: Date): Promise<boolean>;
  abstract findToken(hash: string): Promise<StoredToken | null>;
  abstract revokeToken(id: string, now: Date): Promise<void>;

  /**
   * Deletes at most `limit` rows of one kind that stopped working before `before`, oldest
   * first, with what hangs on them (a grant's tokens and codes, a request's code).
   * @returns how many rows of that kind it deleted.
   */
  abstract sweep(kind: OAuthSweepKind, before: Date, limit: number): Promise<number>;
}

/**
 * What the sweep deletes: tokens that expired; grants that were revoked; authorization
 * requests that expired; clients registered that hold no grant and no request.
 */
export type OAuthSweepKind = 'tokens' | 'grants' | 'requests' | 'clients';
