import { Body, Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { GetAccountUseCase } from '../../../application/identity/get-account.use-case';
import { LogInUseCase } from '../../../application/identity/log-in.use-case';
import { RegisterUserUseCase } from '../../../application/identity/register-user.use-case';
import { BearerAuthGuard, CurrentPrincipal } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { ErrorResponseDto } from '../shared/error-response.dto';
import { RateLimit } from '../shared/rate-limit';
import { AccountResponseDto, LoginRequestDto, MeResponseDto, RegisterRequestDto, TokenResponseDto } from './auth.dto';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly registerUser: RegisterUserUseCase,
    private readonly logIn: LogInUseCase,
    private readonly getAccount: GetAccountUseCase,
  ) {}

  @Post('register')
  @RateLimit('default')
  @ApiOperation({ summary: 'Create an account (role user)' })
  @ApiCreatedResponse({ type: AccountResponseDto })
  @ApiErrors(400, 409, 413, 429)
  @ApiResponse({ status: 403, description: 'Sign-up is closed (SIGN_UP=closed): AUTH.SIGN_UP_CLOSED', type: ErrorResponseDto })
  register(@Body() body: RegisterRequestDto): Promise<AccountResponseDto> {
    return this.registerUser.execute(body);
  }

  @Post('login')
  @HttpCode(200)
  // Per address, and per account from every address, so that spreading guesses over many
  // addresses gets no further than one account's limit.
  @RateLimit('default', 'sign-in')
  @ApiOperation({ summary: 'Exchange email and password for a bearer token' })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiErrors(400, 401, 413, 429)
  async login(@Body() body: LoginRequestDto): Promise<TokenResponseDto> {
    const result = await this.logIn.execute(body);
    return { accessToken: result.accessToken, tokenType: 'Bearer', expiresIn: result.expiresIn, userId: result.userId };
  }

  @Get('me')
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'The account behind the bearer token' })
  @ApiOkResponse({ type: MeResponseDto })
  @ApiErrors(401)
  me(@CurrentPrincipal() principal: Principal): Promise<MeResponseDto> {
    return this.getAccount.execute({ userId: principal.userId });
  }
}
