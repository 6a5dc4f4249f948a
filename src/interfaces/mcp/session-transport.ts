import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';

/** The ids copies give their questions: `<replica>.<copy>:<n>` (McpSessions). */
const QUESTION_ID = /^[0-9a-f]{8}\.[0-9]{1,12}:[0-9]{1,12}$/;

/** A client's answer to a request of the server, as it travels between replicas. */
export type Answer = Extract<JSONRPCMessage, { result: unknown } | { error: unknown }>;

/**
 * One replica's copy of a session's Streamable HTTP transport. Another replica may hold a
 * copy of the same session, and the client's next POST may land on either; so the requests
 * this copy sends the client (a question before deleting) carry ids of its own, `<prefix><n>`,
 * and an answer that reaches a copy that did not ask is handed to `forward` (the fleet bus),
 * for the copy that did (`deliver`).
 */
export class SessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private readonly inner: WebStandardStreamableHTTPServerTransport;

  /**
   * @param sessionId the session's id: a new one is taken on the `initialize` request,
   *   a stored one is taken when the copy is restored by replaying that request (`restore`).
   * @param onInitialized runs before the client is answered, for a new session only.
   */
  constructor(
    sessionId: string,
    private readonly prefix: string,
    private readonly forward: (answer: Answer) => void,
    onInitialized?: (id: string) => Promise<void>,
  ) {
    this.inner = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      ...(onInitialized ? { onsessioninitialized: onInitialized } : {}),
    });
    this.inner.onmessage = (message, extra) => this.receive(message, extra);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isJSONRPCRequest(message)) return this.inner.send({ ...message, id: `${this.prefix}${message.id}` }, options);
    // The server cancels its own requests (a question that timed out) by the id the client knows.
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled' && typeof message.params?.requestId === 'number') {
      return this.inner.send(
        { ...message, params: { ...message.params, requestId: `${this.prefix}${message.params.requestId}` } },
        options,
      );
    }
    return this.inner.send(message, options);
  }

  /** Serves one HTTP request of the session (POST, GET or DELETE) on this copy. */
  async handle(req: IncomingMessage, res: ServerResponse, authInfo: AuthInfo, parsedBody?: unknown): Promise<void> {
    const listener = getRequestListener((request) => this.inner.handleRequest(request, { authInfo, parsedBody }), {
      overrideGlobalObjects: false,
    });
    await listener(req, res);
  }

  /** Closes this copy's event stream (the session's GET), if it has one open: another took it over. */
  closeStream(): void {
    this.inner.closeStandaloneSSEStream();
  }

  /**
   * Makes this copy answer for a stored session: the client's `initialize` request, replayed
   * in process, sets the session id, the negotiated version and the client's capabilities as
   * the first copy had them. Nothing reaches the client.
   */
  async restore(initialize: Record<string, unknown>, authInfo: AuthInfo): Promise<void> {
    const message = { jsonrpc: '2.0', id: 'restore', method: 'initialize', params: initialize };
    const response = await this.inner.handleRequest(
      new Request('http://bridle.invalid/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(message),
      }),
      { authInfo, parsedBody: message },
    );
    const body = await response.text();
    if (response.status !== 200 || !body.includes('"result"'))
      throw new Error(`the stored session could not be restored (${response.status})`);
  }

  /** An answer forwarded from another replica: taken if this copy asked the question. */
  deliver(answer: Answer): boolean {
    const id = this.ownId(answer.id);
    if (id === undefined) return false;
    this.onmessage?.({ ...answer, id });
    return true;
  }

  private receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      // Only an answer to some copy's question travels: any other id was asked by nobody.
      if (!this.deliver(message) && typeof message.id === 'string' && QUESTION_ID.test(message.id)) this.forward(message);
      return;
    }
    this.onmessage?.(message, extra);
  }

  private ownId(id: unknown): number | undefined {
    if (typeof id !== 'string' || !id.startsWith(this.prefix)) return undefined;
    const n = Number(id.slice(this.prefix.length));
    return Number.isSafeInteger(n) ? n : undefined;
  }
}
