import { Body, Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedPrincipal, Principal } from '../../../application/identity/ports/access-token-service.port';
import { ChangePasswordUseCase } from '../../../application/identity/change-password.use-case';
import { GetAccountUseCase } from '../../../application/identity/get-account.use-case';
import { LogInUseCase } from '../../../application/identity/log-in.use-case';
import { RegisterUserUseCase } from '../../../application/identity/register-user.use-case';
import { RenewSessionUseCase } from '../../../application/identity/renew-session.use-case';
import { BearerAuthGuard, CurrentPrincipal } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { RateLimit } from '../shared/rate-limit';
import {
  AccountResponseDto,
  ChangePasswordRequestDto,
  LoginRequestDto,
  MeResponseDto,
  RegisterRequestDto,
  TokenResponseDto,
} from './auth.dto';
import { AnyCredential } from '../guards/required-scope';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly registerUser: RegisterUserUseCase,
    private readonly logIn: LogInUseCase,
    private readonly getAccount: GetAccountUseCase,
    private readonly changeAccountPassword: ChangePasswordUseCase,
    private readonly renewSession: RenewSessionUseCase,
  ) {}

  @Post('register')
  @RateLimit('default')
  @ApiOperation({
    operationId: 'register',
    summary: 'Create an account (role user)',
    description:
      'The email is compared and stored in lower case. Sign in afterwards (login) for a token. ' +
      'When the server runs with SIGN_UP=closed, an operator creates accounts instead (403).',
  })
  @ApiCreatedResponse({ type: AccountResponseDto, description: 'The account, made' })
  @ApiErrors(
    400,
    { status: 403, description: 'AUTH.SIGN_UP_CLOSED: sign-up is closed (SIGN_UP=closed); an operator creates accounts' },
    { status: 409, description: 'AUTH.EMAIL_TAKEN: an account with this email exists' },
    413,
  )
  register(@Body() body: RegisterRequestDto): Promise<AccountResponseDto> {
    return this.registerUser.execute(body);
  }

  @Post('login')
  @HttpCode(200)
  // Per address, and per account from every address, so that spreading guesses over many
  // addresses gets no further than one account's limit.
  @RateLimit('default', 'sign-in')
  @ApiOperation({
    operationId: 'login',
    summary: 'Exchange email and password for a bearer token',
    description:
      'The token is a JWT for `Authorization: Bearer <accessToken>`, valid for expiresIn seconds. Attempts are ' +
      'limited per address and per account, from every address together.',
  })
  @ApiOkResponse({ type: TokenResponseDto, description: 'Signed in: a session token' })
  @ApiErrors(400, { status: 401, description: 'AUTH.INVALID_CREDENTIALS: wrong email or password (which one is not said)' }, 413)
  async login(@Body() body: LoginRequestDto): Promise<TokenResponseDto> {
    const result = await this.logIn.execute(body);
    return { accessToken: result.accessToken, tokenType: 'Bearer', expiresIn: result.expiresIn, userId: result.userId };
  }

  @Post('password')
  @HttpCode(200)
  // Above UseGuards, so that it counts the signed-in account: its attempts add to the ones at
  // signing in to it (the per-account sign-in limit), to this address's, and to the person's.
  @RateLimit('default', 'sign-in', 'api')
  @UseGuards(BearerAuthGuard)
  @ApiOperation({
    operationId: 'changePassword',
    summary: "Change the bearer token's account password",
    description:
      'Needs the current password. Every token issued before the change is refused from its next request ' +
      '(401 AUTH.UNAUTHENTICATED, "The password was changed: sign in again"); the answer is a fresh token, ' +
      'as login gives, so the caller stays signed in. Attempts count against the per-account sign-in limit.',
  })
  @ApiOkResponse({ type: TokenResponseDto, description: 'Changed: a fresh session token of the new credentials' })
  @ApiErrors(400, { status: 401, description: 'AUTH.INVALID_CREDENTIALS: the current password is wrong, and nothing changed' }, 413)
  async changePassword(@Body() body: ChangePasswordRequestDto, @CurrentPrincipal() principal: Principal): Promise<TokenResponseDto> {
    const result = await this.changeAccountPassword.execute({
      userId: principal.userId,
      credentialsVersion: principal.credentialsVersion,
      currentPassword: body.currentPassword,
      newPassword: body.newPassword,
    });
    return { accessToken: result.accessToken, tokenType: 'Bearer', expiresIn: result.expiresIn, userId: result.userId };
  }

  @Post('refresh')
  @HttpCode(200)
  @RateLimit('default', 'api')
  @UseGuards(BearerAuthGuard)
  @ApiOperation({
    operationId: 'refreshSession',
    summary: 'Exchange a still-valid session token for a fresh one',
    description:
      'For the console, while its person is active. Takes only a session token from login (a personal access ' +
      'token gets 403 AUTH.SESSION_REQUIRED, an OAuth token 401). The fresh token carries on the same sign-in: ' +
      'none lives past SESSION_MAX_AGE after it (12 hours by default), so expiresIn may be shorter than usual, ' +
      'and past that time the answer is 401. A changed password or a deleted account ends renewal too (401). ' +
      'The token presented stays valid until its own expiry.',
  })
  @ApiOkResponse({ type: TokenResponseDto, description: 'Renewed: a fresh session token of the same sign-in' })
  @ApiErrors({ status: 401, description: 'AUTH.UNAUTHENTICATED: a sign-in older than SESSION_MAX_AGE, which is not renewed' })
  async refresh(@CurrentPrincipal() principal: AuthenticatedPrincipal): Promise<TokenResponseDto> {
    // The guard lets only a session through a route that names no scope; this is its type's proof.
    if (principal.credential.kind !== 'session') throw new Error('POST /auth/refresh reached without a session token');
    const result = await this.renewSession.execute({
      userId: principal.userId,
      credentialsVersion: principal.credentialsVersion,
      signedInAt: principal.credential.signedInAt,
    });
    return { accessToken: result.accessToken, tokenType: 'Bearer', expiresIn: result.expiresIn, userId: result.userId };
  }

  @Get('me')
  @AnyCredential()
  @RateLimit('api')
  @UseGuards(BearerAuthGuard)
  @ApiOperation({
    operationId: 'getCurrentAccount',
    summary: 'The account behind the bearer token',
    description: "Its id, email and role (read now, not from the token), today's use of its chat budgets, and this month's spend.",
  })
  @ApiOkResponse({ type: MeResponseDto, description: 'The account, read now' })
  me(@CurrentPrincipal() principal: Principal): Promise<MeResponseDto> {
    return this.getAccount.execute({ userId: principal.userId });
  }
}
