import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, IsUUID, MaxLength } from 'class-validator';
import type { AuthorizationRequest, OAuthClient, OAuthGrant } from '../../../application/identity/oauth/ports/oauth-store.port';
import { isUrlClientId } from '../../../domain/identity/client-metadata-document';
import { type Scope, SCOPE_DESCRIPTIONS, SCOPES } from '../../../domain/identity/scopes';
import { Optional } from '../shared/fields';
import { UserPathDto } from '../todo/task.dto';

export class AuthorizationRequestPathDto {
  @ApiProperty({ format: 'uuid', description: 'The request id the consent page was opened with (`#/authorize?request=<id>`)' })
  @IsUUID(undefined, { message: 'requestId must be a UUID' })
  requestId!: string;
}

export class OAuthGrantPathDto extends UserPathDto {
  @ApiProperty({ format: 'uuid', description: 'One of the user’s connected apps (a grant id from the list)' })
  @IsUUID(undefined, { message: 'grantId must be a UUID' })
  grantId!: string;
}

export class ScopeDescriptionDto {
  @ApiProperty({ enum: SCOPES })
  scope!: Scope;

  @ApiProperty({ example: 'See your tasks', description: 'The scope in plain words' })
  description!: string;

  static list(scopes: readonly Scope[]): ScopeDescriptionDto[] {
    return scopes.map((scope) => ({ scope, description: SCOPE_DESCRIPTIONS[scope] }));
  }
}

export class OAuthClientDto {
  @ApiProperty({
    example: 'https://app.example/oauth/client.json',
    description: 'The client_id: a UUID given at registration, or the https URL of the client’s metadata document',
  })
  id!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'app.example',
    description:
      'For a client named by the URL of its metadata document: that URL’s host, which served the document over TLS. The identity ' +
      'the person trusts, shown before the name; null for a client registered at /register',
  })
  host!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Claude Desktop',
    description: 'The name the client registered itself with: chosen by whoever registered it, so shown as text and never trusted',
  })
  name!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'https://claude.ai',
    description: 'The home page the client registered, unverified',
  })
  uri!: string | null;

  static of(client: OAuthClient): OAuthClientDto {
    return {
      id: client.id,
      host: isUrlClientId(client.id) ? new URL(client.id).hostname : null,
      name: client.registration.clientName,
      uri: client.registration.clientUri,
    };
  }
}

export class AuthorizationRequestResponseDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ type: OAuthClientDto })
  client!: OAuthClientDto;

  @ApiProperty({
    example: '127.0.0.1:33418',
    description: 'Where the answer goes (the redirect URI’s host and port): the one thing the client cannot fake about itself',
  })
  redirectHost!: string;

  @ApiProperty({ type: [ScopeDescriptionDto], description: 'What the client asks for' })
  scopes!: ScopeDescriptionDto[];

  @ApiProperty({ format: 'date-time', description: 'After this the request must be started again from the client' })
  expiresAt!: string;

  static of(request: AuthorizationRequest): AuthorizationRequestResponseDto {
    return {
      id: request.id,
      client: OAuthClientDto.of(request.client),
      redirectHost: new URL(request.redirectUri).host,
      scopes: ScopeDescriptionDto.list(request.scopes),
      expiresAt: request.expiresAt.toISOString(),
    };
  }
}

export class ApproveAuthorizationRequestDto {
  @ApiPropertyOptional({
    type: [String],
    example: ['tasks:read'],
    description: 'The scopes the person allows: the requested ones (the default) or fewer, never others',
  })
  @Optional()
  @ArrayMaxSize(SCOPES.length, { message: `scopes must hold at most ${SCOPES.length} items` })
  @MaxLength(40, { each: true, message: 'each scope must be at most 40 characters' })
  @IsString({ each: true, message: 'each scope must be a string' })
  @IsArray({ message: 'scopes must be an array of strings' })
  scopes?: string[];
}

export class AuthorizationAnswerDto {
  @ApiProperty({
    example: 'http://127.0.0.1:33418/callback?code=…&state=…',
    description: 'Where the console sends the browser: the client’s redirect URI with the code, or with error=access_denied',
  })
  redirectTo!: string;
}

export class OAuthGrantResponseDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ type: OAuthClientDto })
  client!: OAuthClientDto;

  @ApiProperty({ type: [ScopeDescriptionDto] })
  scopes!: ScopeDescriptionDto[];

  @ApiProperty({ example: 'http://localhost:3000/mcp', description: 'The resource its tokens are for' })
  resource!: string;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'To the minute; null: never used' })
  lastUsedAt!: string | null;

  static of(grant: OAuthGrant): OAuthGrantResponseDto {
    return {
      id: grant.id,
      client: OAuthClientDto.of(grant.client),
      scopes: ScopeDescriptionDto.list(grant.scopes),
      resource: grant.resource,
      createdAt: grant.createdAt.toISOString(),
      lastUsedAt: grant.lastUsedAt?.toISOString() ?? null,
    };
  }
}
