import { Body, Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { ChangePasswordUseCase } from '../../../application/identity/change-password.use-case';
import { GetAccountUseCase } from '../../../application/identity/get-account.use-case';
import { LogInUseCase } from '../../../application/identity/log-in.use-case';
import { RegisterUserUseCase } from '../../../application/identity/register-user.use-case';
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
  @ApiCreatedResponse({ type: AccountResponseDto })
  @ApiErrors(
    400,
    { status: 403, description: 'AUTH.SIGN_UP_CLOSED: sign-up is closed (SIGN_UP=closed); an operator creates accounts' },
    { status: 409, description: 'AUTH.EMAIL_TAKEN: an account with this email exists' },
    413,
    { status: 429, description: 'HTTP.RATE_LIMITED: too many requests from this address; retry in a minute' },
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
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiErrors(400, { status: 401, description: 'AUTH.INVALID_CREDENTIALS: wrong email or password (which one is not said)' }, 413, {
    status: 429,
    description: 'HTTP.RATE_LIMITED: too many attempts from this address or for this account; retry later',
  })
  async login(@Body() body: LoginRequestDto): Promise<TokenResponseDto> {
    const result = await this.logIn.execute(body);
    return { accessToken: result.accessToken, tokenType: 'Bearer', expiresIn: result.expiresIn, userId: result.userId };
  }

  @Post('password')
  @HttpCode(200)
  // Above UseGuards, so that it counts the signed-in account: its attempts add to the ones at
  // signing in to it (the per-account sign-in limit), and to this address's.
  @RateLimit('default', 'sign-in')
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({
    operationId: 'changePassword',
    summary: "Change the bearer token's account password",
    description:
      'Needs the current password. Every token issued before the change is refused from its next request ' +
      '(401 AUTH.UNAUTHENTICATED, "The password was changed: sign in again"); the answer is a fresh token, ' +
      'as login gives, so the caller stays signed in. Attempts count against the per-account sign-in limit.',
  })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiErrors(
    400,
    {
      status: 401,
      description:
        'AUTH.INVALID_CREDENTIALS: the current password is wrong, and nothing changed; AUTH.UNAUTHENTICATED: no bearer ' +
        'token, an invalid or expired one, one whose account no longer exists, or one issued before the password was last changed',
    },
    413,
    { status: 429, description: 'HTTP.RATE_LIMITED: too many attempts from this address or for this account; retry later' },
  )
  async changePassword(@Body() body: ChangePasswordRequestDto, @CurrentPrincipal() principal: Principal): Promise<TokenResponseDto> {
    const result = await this.changeAccountPassword.execute({
      userId: principal.userId,
      credentialsVersion: principal.credentialsVersion,
      currentPassword: body.currentPassword,
      newPassword: body.newPassword,
    });
    return { accessToken: result.accessToken, tokenType: 'Bearer', expiresIn: result.expiresIn, userId: result.userId };
  }

  @Get('me')
  @AnyCredential()
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({
    operationId: 'getCurrentAccount',
    summary: 'The account behind the bearer token',
    description: "Its id, email and role (read now, not from the token), and today's use of its chat budgets.",
  })
  @ApiOkResponse({ type: MeResponseDto })
  @ApiErrors(401)
  me(@CurrentPrincipal() principal: Principal): Promise<MeResponseDto> {
    return this.getAccount.execute({ userId: principal.userId });
  }
}
