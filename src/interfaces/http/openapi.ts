import type { INestApplication } from '@nestjs/common';
import {
  DocumentBuilder,
  getSchemaPath,
  type OpenAPIObject,
  type OperationObject,
  type ResponseObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { documentAccess, SECURITY_SCHEMES } from './openapi-access';
import { ErrorResponseDto } from './shared/error-response.dto';

/**
 * The tags every operation is filed under, in the order the docs show them. An operation
 * whose tag is not here fails the contract test (Spectral's operation-tag-defined).
 */
const TAGS: readonly [name: string, description: string][] = [
  ['auth', 'Accounts: sign up, sign in for a bearer token, and the account behind a token.'],
  ['access-tokens', 'Personal access tokens for scripts and MCP clients: scoped, shown once, revocable. Managed from a signed-in session.'],
  [
    'oauth',
    'Bridle as the OAuth 2.1 authorization server of MCP clients: the consent a person gives or refuses, and the grants they hold.',
  ],
  ['tasks', "A user's to-do list. Tasks are addressed by a per-user number that is never reused."],
  ['chat', 'Talk to the task assistant: it reads and changes tasks through tools, and asks before deleting.'],
  [
    'tools',
    'The todo tools called directly, as the assistant and MCP clients call them: the arguments as the body, the result as the answer.',
  ],
  ['campaigns', 'Outreach campaigns: leads imported from JSON or CSV, worked one action at a time within daily quotas.'],
  ['do-not-contact', 'Email addresses and LinkedIn profiles that no campaign of the user may reach.'],
  ['drafts', 'Review before send: channel actions a campaign holds for its owner, to approve (as they are or edited) or reject.'],
  [
    'notifications',
    'What Bridle told you (a draft to review, a question waiting, a campaign finished…), and which of it reaches you by email.',
  ],
  ['unsubscribe', "The signed link in the footer of every outreach email: its recipient gets off the sender's list, with no login."],
  ['mcp', 'The task tools over the Model Context Protocol, for any MCP client.'],
  ['erasure', 'Erasure on request: an account deleted, or a lead erased, from everywhere Bridle keeps them; the audit chain stays whole.'],
  ['audit', 'Receipts: a person’s proof of their own audited calls, checked offline with the log’s public key.'],
  ['webhooks', 'A person’s webhook endpoints: their notifications POSTed in order, signed as Standard Webhooks, with a delivery log.'],
  ['admin', 'The audit trail and the decision log, for accounts with the admin role. Every read is itself audited.'],
  ['health', 'Liveness and database reachability, for load balancers and orchestrators.'],
  ['operations', 'Prometheus metrics.'],
];

/**
 * The OpenAPI document of the app's routes. The server serves it at /docs-json and
 * `npm run api:types` generates the console's API types from it (src/openapi.ts), so both
 * call this one function.
 *
 * Every operation names its own operationId, camelCase verb and noun (`createTask`,
 * `listCampaigns`), in its @ApiOperation; the contract test checks the form and that
 * each is unique.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Bridle')
    .setDescription(
      'Let a language model act for people through tools, on rails. Every error body is ' +
        '`{statusCode, code, message, correlationId}`; correlationId equals the X-Request-Id header. ' +
        'Each operation lists the errors it gives; any of them may also answer 400 (a body that is not valid ' +
        'JSON or UTF-8, a repeated query parameter), 413 (a JSON body over 64 KB) or 500 (an unexpected failure), ' +
        'which its `default` response stands for.',
    )
    .setVersion('0.1.0')
    // Relative: the document describes the server that serves it, wherever it is deployed.
    .addServer('/', 'The server that serves this document');
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) builder.addSecurity(name, scheme);
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build());
  // package.json's: no licence is granted.
  document.info.license = { name: 'UNLICENSED' };
  documentAccess(app, document);
  for (const path of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation: OperationObject | undefined = path[method];
      if (operation) operation.responses.default ??= ANY_OTHER_ERROR;
    }
  }
  return document;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** What every route may answer besides the errors it lists (see the document's description). */
const ANY_OTHER_ERROR: ResponseObject = {
  description: 'Any other failure: a malformed or oversized body, a repeated query parameter, an unexpected error (500)',
  content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponseDto) } } },
};
