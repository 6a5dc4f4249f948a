/** An MCP session as every replica can read it: enough to serve its next request anywhere. */
export interface StoredMcpSession {
  readonly id: string;
  readonly userId: string;
  /** The client's `initialize` params (protocol version, capabilities, client info), as it sent them. */
  readonly initialize: Record<string, unknown>;
  /** The resource URIs the client subscribed to. */
  readonly subscriptions: readonly string[];
  readonly lastSeenAt: Date;
}

/**
 * Where MCP sessions live, so that any replica serves any session and a restart loses none
 * (docs/decisions/0011-mcp-sessions-in-the-database.md). A session id only routes: every
 * request still proves who it is with its bearer token, and a session answers only its person.
 */
export abstract class McpSessionStore {
  /**
   * Stores a new session, and ends the person's least recently used ones beyond `perUser`.
   * @returns the ids of the sessions it ended.
   */
  abstract open(session: Omit<StoredMcpSession, 'subscriptions' | 'lastSeenAt'>, now: Date, perUser: number): Promise<string[]>;

  /** The person's session with this id, if it was seen since `activeSince`; another person's is not found. */
  abstract find(id: string, userId: string, activeSince: Date): Promise<StoredMcpSession | null>;

  /** Records that the session was used at `now` (callers do so at most once a minute per session). */
  abstract touch(id: string, now: Date): Promise<void>;

  /** @returns the session's subscriptions after the change, or null if it no longer exists. */
  abstract changeSubscription(id: string, uri: string, subscribed: boolean): Promise<readonly string[] | null>;

  /** Ends the person's session. @returns whether there was one. */
  abstract close(id: string, userId: string): Promise<boolean>;

  /** Ends sessions unused since `before`, at most `limit` of them, oldest first. @returns their ids. */
  abstract closeIdle(before: Date, limit: number): Promise<string[]>;

  /**
   * Makes `holder` the session's one event stream, whoever held it before: a newer stream
   * takes over, and the one it replaces is to be closed by its replica.
   * @returns the claim's number, higher than every earlier claim's on the session; null if the session is gone.
   */
  abstract claimStream(id: string, holder: string): Promise<number | null>;

  /** Who holds the event stream of each of these sessions now; a session that is gone is missing. */
  abstract streamHolders(ids: readonly string[]): Promise<ReadonlyMap<string, string | null>>;
}
