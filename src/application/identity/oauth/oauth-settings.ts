/** The authorization server's configuration, as the rules need it. */
export abstract class OAuthSettings {
  /** The one resource tokens are issued for: Bridle's MCP endpoint (`<PUBLIC_BASE_URL>/mcp`). */
  abstract readonly resourceUrl: string;
  /** Where people reach the console (PUBLIC_BASE_URL): the consent page is `<it>/#/authorize?request=<id>`. */
  abstract readonly consoleUrl: string;
  abstract readonly accessTokenTtlSeconds: number;
  abstract readonly refreshTokenTtlDays: number;
}
