import { JwtService } from '@nestjs/jwt';
import type { Role } from '../../domain/identity/user';
import {
  AccessTokenService,
  type IssuedToken,
  type Principal,
} from '../../application/identity/ports/access-token-service.port';

const ISSUER = 'bridle';
const ROLES: readonly Role[] = ['user', 'admin'];

interface Claims {
  sub: string;
  email: string;
  role: Role;
}

/** HS256 bearer tokens carrying the account id (`sub`), email and role. */
export class JwtAccessTokenService extends AccessTokenService {
  private readonly jwt: JwtService;

  constructor(
    secret: string,
    private readonly expiresInSeconds: number,
  ) {
    super();
    this.jwt = new JwtService({
      secret,
      signOptions: { algorithm: 'HS256', issuer: ISSUER, expiresIn: expiresInSeconds },
      verifyOptions: { algorithms: ['HS256'], issuer: ISSUER },
    });
  }

  async issue(principal: Principal): Promise<IssuedToken> {
    const claims: Claims = { sub: principal.userId, email: principal.email, role: principal.role };
    return { accessToken: await this.jwt.signAsync(claims), expiresIn: this.expiresInSeconds };
  }

  async verify(token: string): Promise<Principal | null> {
    try {
      const claims = await this.jwt.verifyAsync<Claims>(token);
      if (typeof claims.sub !== 'string' || typeof claims.email !== 'string' || !ROLES.includes(claims.role)) {
        return null;
      }
      return { userId: claims.sub, email: claims.email, role: claims.role };
    } catch {
      return null;
    }
  }
}
