import { Logger, Module } from '@nestjs/common';
import { ChangePasswordUseCase } from '../application/identity/change-password.use-case';
import { GetAccountUseCase } from '../application/identity/get-account.use-case';
import { IdentitySettings, SessionSettings } from '../application/identity/identity-settings';
import { LogInUseCase } from '../application/identity/log-in.use-case';
import { AccessTokenService } from '../application/identity/ports/access-token-service.port';
import { RegisterUserUseCase } from '../application/identity/register-user.use-case';
import { RenewSessionUseCase } from '../application/identity/renew-session.use-case';
import { AppConfig } from '../infrastructure/config/app-config';
import { resolveJwtSecret } from '../infrastructure/config/jwt-secret';
import { JwtAccessTokenService } from '../infrastructure/security/jwt-access-token.service';
import { BearerAuthGuard, OwnUserGuard } from '../interfaces/http/guards/bearer-auth.guard';
import { ProtectedResource } from '../interfaces/http/guards/bearer-challenge';
import { AccessTokensController } from '../interfaces/http/identity/access-tokens.controller';
import { AuthController } from '../interfaces/http/identity/auth.controller';
import { AccountsModule } from './accounts.module';
import { BudgetsModule } from './budgets.module';
import { OAuthTokensModule } from './oauth-tokens.module';

@Module({
  imports: [AccountsModule, OAuthTokensModule, BudgetsModule],
  controllers: [AuthController, AccessTokensController],
  providers: [
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
      useFactory: (config: AppConfig): IdentitySettings => ({ signUp: config.signUp }),
      inject: [AppConfig],
    },
    {
      provide: SessionSettings,
      useFactory: (config: AppConfig): SessionSettings => ({
        tokenLifetimeSeconds: config.jwtExpiresInSeconds,
        maxAgeSeconds: config.sessionMaxAgeSeconds,
      }),
      inject: [AppConfig],
    },
    { provide: ProtectedResource, useFactory: (config: AppConfig) => new ProtectedResource(config.publicBaseUrl), inject: [AppConfig] },
    RegisterUserUseCase,
    LogInUseCase,
    GetAccountUseCase,
    ChangePasswordUseCase,
    RenewSessionUseCase,
    BearerAuthGuard,
    OwnUserGuard,
  ],
  // AccountsModule and OAuthTokensModule too: BearerAuthGuard, built in each module whose controllers it guards,
  // reads UserRepository, PersonalAccessTokens and OAuthAccessTokenVerifier.
  exports: [AccessTokenService, AccountsModule, OAuthTokensModule, BearerAuthGuard, OwnUserGuard, ProtectedResource],
})
export class IdentityModule {}
