import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ROLES, type Role } from '../../domain/identity/user';
import {
  AccessTokenService,
  type IssuedToken,
  type Principal,
  type RenewalTerms,
  type SessionClaims,
} from '../../application/identity/ports/access-token-service.port';

const ISSUER = 'bridle';

interface Claims {
  sub: string;
  email: string;
  role: Role;
  /** The account's credentials version at issue; absent from tokens issued before it existed (read as 0). */
  cv?: number;
  /** When the person signed in (seconds since the epoch; OpenID's name): a renewal copies it. Absent before renewal existed (read as `iat`). */
  auth_time?: number;
  iat?: number;
}

/** HS256 bearer tokens carrying the account id (`sub`), email, role, credentials version (`cv`) and sign-in time (`auth_time`). */
export class JwtAccessTokenService extends AccessTokenService {
  /**
   * A KeyObject, not the string: given a string, jsonwebtoken first tries to parse it as a
   * PEM public key on every call, and that failed parse cost a sixth of a chat turn's CPU.
   */
  private readonly key: KeyObject;

  constructor(
    secret: string,
    private readonly expiresInSeconds: number,
  ) {
    super();
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  issue(principal: Principal, renewal?: RenewalTerms): Promise<IssuedToken> {
    const signedInAt = renewal?.signedInAt ?? new Date();
    const expiresIn = renewal ? Math.min(renewal.expiresInSeconds, this.expiresInSeconds) : this.expiresInSeconds;
    const claims: Claims = {
      sub: principal.userId,
      email: principal.email,
      role: principal.role,
      cv: principal.credentialsVersion,
      auth_time: Math.floor(signedInAt.getTime() / 1000),
    };
    const accessToken = jwt.sign(claims, this.key, { algorithm: 'HS256', issuer: ISSUER, expiresIn });
    return Promise.resolve({ accessToken, expiresIn });
  }

  verify(token: string): Promise<SessionClaims | null> {
    try {
      const claims = jwt.verify(token, this.key, { algorithms: ['HS256'], issuer: ISSUER }) as Partial<Claims>;
      const credentialsVersion = claims.cv ?? 0;
      const authTime = claims.auth_time ?? claims.iat;
      if (
        typeof claims.sub !== 'string' ||
        typeof claims.email !== 'string' ||
        !ROLES.includes(claims.role as Role) ||
        !Number.isSafeInteger(credentialsVersion) ||
        credentialsVersion < 0 ||
        !Number.isSafeInteger(authTime)
      ) {
        return Promise.resolve(null);
      }
      return Promise.resolve({
        userId: claims.sub,
        email: claims.email,
        role: claims.role as Role,
        credentialsVersion,
        signedInAt: new Date(authTime! * 1000),
      });
    } catch {
      return Promise.resolve(null);
    }
  }
}
