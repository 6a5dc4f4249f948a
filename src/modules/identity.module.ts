import { Logger, Module } from '@nestjs/common';
import { GetAccountUseCase } from '../application/identity/get-account.use-case';
import { IdentitySettings } from '../application/identity/identity-settings';
import { LogInUseCase } from '../application/identity/log-in.use-case';
import { AccessTokenService } from '../application/identity/ports/access-token-service.port';
import { PasswordHasher } from '../application/identity/ports/password-hasher.port';
import { UserRepository } from '../application/identity/ports/user-repository.port';
import { RegisterUserUseCase } from '../application/identity/register-user.use-case';
import { AppConfig } from '../infrastructure/config/app-config';
import { resolveJwtSecret } from '../infrastructure/config/jwt-secret';
import { TypeOrmUserRepository } from '../infrastructure/persistence/repositories/typeorm-user.repository';
import { JwtAccessTokenService } from '../infrastructure/security/jwt-access-token.service';
import { ScryptPasswordHasher } from '../infrastructure/security/scrypt-password-hasher';
import { BearerAuthGuard, OwnUserGuard } from '../interfaces/http/guards/bearer-auth.guard';
import { AuthController } from '../interfaces/http/identity/auth.controller';

@Module({
  controllers: [AuthController],
  providers: [
    { provide: UserRepository, useClass: TypeOrmUserRepository },
    { provide: PasswordHasher, useClass: ScryptPasswordHasher },
    {
      provide: AccessTokenService,
      useFactory: async (config: AppConfig) => {
        const logger = new Logger('Identity');
        const secret = await resolveJwtSecret(config, (message) => logger.warn(message));
        return new JwtAccessTokenService(secret, config.jwtExpiresInSeconds);
      },
      inject: [AppConfig],
    },
    {
      provide: IdentitySettings,
      useFactory: (config: AppConfig): IdentitySettings => ({ adminEmails: config.adminEmails }),
      inject: [AppConfig],
    },
    RegisterUserUseCase,
    LogInUseCase,
    GetAccountUseCase,
    BearerAuthGuard,
    OwnUserGuard,
  ],
  exports: [AccessTokenService, BearerAuthGuard, OwnUserGuard, IdentitySettings],
})
export class IdentityModule {}
