/** The authorization server's configuration, as the rules need it. */
export abstract class OAuthSettings {
  /** The one resource tokens are issued for: Bridle's MCP endpoint (`<PUBLIC_BASE_URL>/mcp`). */
  abstract readonly resourceUrl: string;
  /** Where people reach the console (PUBLIC_BASE_URL): the consent page is `<it>/#/authorize?request=<id>`. */
  abstract readonly consoleUrl: string;
  /** The issuer, exactly as the authorization server's metadata gives it: `iss` on every authorization response (RFC 9207). */
  abstract readonly issuer: string;
  abstract readonly accessTokenTtlSeconds: number;
  abstract readonly refreshTokenTtlDays: number;
}
