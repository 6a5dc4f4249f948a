import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  type ChannelCall,
  type ChannelLookup,
  type ChannelRecord,
  type ChannelRequest,
  OutreachChannel,
  type Profile,
} from '../../../application/outreach/ports/channels.port';
import type { ProfileField } from '../../../domain/outreach/actions';
import { ChannelError } from '../../../domain/outreach/channel-errors';
import { redactUrl } from '../../logging/url-redaction';
import { LINKEDIN_KINDS, type LinkedIn, performOnLinkedIn } from './linkedin-actions';

export const SCRAPE_PROFILE_TOOL = 'linkedin_scrape_profile';
export const SEND_MESSAGE_TOOL = 'linkedin_send_message';
/** The only tools this adapter ever calls, whatever else the server offers. */
export const LINKEDIN_MCP_TOOLS = [SCRAPE_PROFILE_TOOL, SEND_MESSAGE_TOOL] as const;
type LinkedInMcpTool = (typeof LINKEDIN_MCP_TOOLS)[number];

/** `_meta` keys every call carries, so that the server can deduplicate and act as the right account. */
export const IDEMPOTENCY_KEY_META = 'bridle/idempotencyKey';
export const SESSION_META = 'bridle/session';

/**
 * Where the user's LinkedIn MCP server is: a Streamable HTTP endpoint, or a command that
 * speaks MCP on stdio. The SDK gives a spawned command only HOME, LOGNAME, PATH, SHELL,
 * TERM and USER from our environment, plus `env`.
 */
export type McpLinkedInTarget =
  | { readonly url: string }
  | { readonly command: string; readonly args?: readonly string[]; readonly env?: Readonly<Record<string, string>> };

export interface McpLinkedInOptions {
  /** Per request (connect, list, each call); the SDK's default is 60 s. The call's signal still applies. */
  readonly timeoutMs?: number;
}

/** The server could not be reached, or does not offer the tools Bridle needs. */
export class McpLinkedInConnectError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpLinkedInConnectError';
  }
}

/**
 * LinkedIn through an MCP server the user provides. It calls `linkedin_scrape_profile` and
 * `linkedin_send_message` and nothing else. Failures come out as ChannelError; after a
 * transport failure, a timeout or an abort, a message "maybe" went out (the server may
 * have acted before the answer was lost), a profile read never counts as performed.
 */
export class McpLinkedInChannel extends OutreachChannel implements LinkedIn {
  readonly name = 'mcp';
  readonly kinds = LINKEDIN_KINDS;
  private session: string | undefined;

  private constructor(
    private readonly client: Client,
    private readonly timeoutMs: number | undefined,
  ) {
    super();
  }

  /** Connects, then checks that the server offers both tools; closes the connection if it does not. */
  static async connect(target: McpLinkedInTarget, options: McpLinkedInOptions = {}): Promise<McpLinkedInChannel> {
    const where = describeTarget(target);
    const requestOptions = { timeout: options.timeoutMs };
    const client = new Client({ name: 'bridle-outreach', version: '0.1.0' });
    try {
      await client.connect(createTransport(target), requestOptions);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new McpLinkedInConnectError(`Could not connect to the LinkedIn MCP server ${where}: ${messageOf(error)}`, { cause: error });
    }
    try {
      const tools = await listAllTools(client, requestOptions);
      const problem = toolProblem(tools);
      if (problem) throw new McpLinkedInConnectError(`The LinkedIn MCP server ${where} ${problem}`);
    } catch (error) {
      await client.close().catch(() => undefined);
      if (error instanceof McpLinkedInConnectError) throw error;
      throw new McpLinkedInConnectError(`Could not list the tools of the LinkedIn MCP server ${where}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    return new McpLinkedInChannel(client, options.timeoutMs);
  }

  perform(request: ChannelRequest): Promise<ChannelRecord> {
    return performOnLinkedIn(this, request);
  }

  async scrapeProfile(input: ChannelCall & { profileUrl: string; fields: readonly ProfileField[] }): Promise<Profile> {
    const payload = await this.call(SCRAPE_PROFILE_TOOL, { profileUrl: input.profileUrl, fields: [...input.fields] }, input);
    if (!payload) {
      throw new ChannelError('UNAVAILABLE', `${SCRAPE_PROFILE_TOOL} answered without a JSON object`, 'no');
    }
    const profile: Partial<Record<ProfileField, string | null>> = {};
    // Only what was asked for: a server that returns more does not widen what Bridle keeps.
    for (const field of input.fields) {
      const value = payload[field];
      if (typeof value === 'string' || value === null) profile[field] = value;
    }
    return profile;
  }

  async sendMessage(input: ChannelCall & { profileUrl: string; message: string }): Promise<{ messageId: string }> {
    const payload = await this.call(SEND_MESSAGE_TOOL, { profileUrl: input.profileUrl, message: input.message }, input);
    const id = payload?.messageId ?? payload?.id;
    return { messageId: typeof id === 'string' || typeof id === 'number' ? String(id) : input.idempotencyKey };
  }

  /**
   * Always 'unknowable': MCP has no standard way to ask a server what it did under a key,
   * and a generic LinkedIn MCP server offers no such tool. The key still travels in
   * `_meta` so that a server which deduplicates can do so.
   */
  find(_idempotencyKey: string): Promise<ChannelLookup> {
    return Promise.resolve('unknowable');
  }

  /** Sent in `_meta` of every later call; the server decides how to use it. */
  override useSession(session: string): Promise<void> {
    this.session = session;
    return Promise.resolve();
  }

  /** Closes the connection; for a command, ends the process. */
  override async close(): Promise<void> {
    await this.client.close();
  }

  private async call(
    tool: LinkedInMcpTool,
    args: Record<string, unknown>,
    call: ChannelCall,
  ): Promise<Record<string, unknown> | undefined> {
    const performed = tool === SEND_MESSAGE_TOOL ? 'maybe' : 'no';
    if (call.signal.aborted) {
      throw new ChannelError('TIMEOUT', `${tool} not called: the deadline had already passed`, 'no', { cause: call.signal.reason });
    }
    const meta: Record<string, unknown> = { [IDEMPOTENCY_KEY_META]: call.idempotencyKey };
    if (this.session !== undefined) meta[SESSION_META] = this.session;
    let result;
    try {
      result = await this.client.callTool({ name: tool, arguments: args, _meta: meta }, undefined, {
        signal: call.signal,
        timeout: this.timeoutMs,
      });
    } catch (error) {
      throw callFailure(tool, error, call.signal, performed);
    }
    if (result.isError) throw toolFailure(tool, result.content, result.structuredContent);
    return payloadOf(result.content, result.structuredContent);
  }
}

function createTransport(target: McpLinkedInTarget): Transport {
  if ('url' in target) return new StreamableHTTPClientTransport(new URL(target.url));
  return new StdioClientTransport({
    command: target.command,
    args: target.args ? [...target.args] : [],
    ...(target.env ? { env: { ...target.env } } : {}),
  });
}

/** Arguments may hold secrets, so a command is named by its executable only, and a URL without its query's secrets. */
function describeTarget(target: McpLinkedInTarget): string {
  return 'url' in target ? `at ${redactUrl(target.url)}` : `run as ${target.command}`;
}

async function listAllTools(client: Client, options: { timeout: number | undefined }): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

function toolProblem(tools: readonly Tool[]): string | undefined {
  const offered = new Map(tools.map((tool) => [tool.name, tool]));
  const missing = LINKEDIN_MCP_TOOLS.filter((name) => !offered.has(name));
  if (missing.length > 0) {
    const names = [...offered.keys()].sort().join(', ') || 'none';
    return `does not offer ${missing.join(' and ')}, which Bridle needs (it offers: ${names})`;
  }
  // The SDK refuses callTool for such tools; say so now rather than on the first call.
  const taskOnly = LINKEDIN_MCP_TOOLS.filter((name) => offered.get(name)?.execution?.taskSupport === 'required');
  if (taskOnly.length > 0) return `runs ${taskOnly.join(' and ')} only as tasks, which Bridle does not support`;
  return undefined;
}

/**
 * The SDK reports an abort and its own timeout alike, as McpError RequestTimeout (or the
 * abort reason itself if the signal fired before sending). Its InvalidParams and
 * InvalidRequest come either from the server refusing the call or from the SDK checking
 * the result against the tool's output schema after the tool ran, so they keep the
 * "maybe" of a message.
 */
function callFailure(tool: LinkedInMcpTool, error: unknown, signal: AbortSignal, performed: 'no' | 'maybe'): ChannelError {
  const detail = messageOf(error);
  if (signal.aborted || (error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout))) {
    return new ChannelError('TIMEOUT', `${tool} did not answer in time: ${detail}`, performed, { cause: error });
  }
  if (error instanceof StreamableHTTPError && error.code === 429) {
    return new ChannelError('RATE_LIMITED', `${tool} was refused by the MCP server: ${detail}`, 'no', { cause: error });
  }
  const refusals: number[] = [ErrorCode.InvalidParams, ErrorCode.InvalidRequest, ErrorCode.MethodNotFound];
  if (error instanceof McpError && refusals.includes(error.code)) {
    return new ChannelError('REJECTED', `${tool} was refused: ${detail}`, performed, { cause: error });
  }
  return new ChannelError('UNAVAILABLE', `${tool} failed in transport: ${detail}`, performed, { cause: error });
}

/** A tool result with isError: the server ran the tool and says it did not act. */
function toolFailure(tool: LinkedInMcpTool, content: unknown, structuredContent: unknown): ChannelError {
  const text = [...textsOf(content), structuredContent === undefined ? '' : JSON.stringify(structuredContent)].join(' ').trim();
  const message = `${tool} failed: ${text.slice(0, 300) || 'no details'}`;
  if (/SESSION_EXPIRED|session\s+(has\s+)?expired/i.test(text)) return new ChannelError('SESSION_EXPIRED', message, 'no');
  if (/RATE_LIMIT|rate[\s-]?limit|too many requests|\b429\b/i.test(text)) return new ChannelError('RATE_LIMITED', message, 'no');
  if (/NOT_FOUND|not\s+found|\b404\b/i.test(text)) return new ChannelError('TARGET_NOT_FOUND', message, 'no');
  return new ChannelError('REJECTED', message, 'no');
}

/** structuredContent if the server sent it, else the first text content parsed as JSON. */
function payloadOf(content: unknown, structuredContent: unknown): Record<string, unknown> | undefined {
  if (isRecord(structuredContent)) return structuredContent;
  const [first] = textsOf(content);
  if (first === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(first);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function textsOf(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((item: unknown) => (isRecord(item) && item.type === 'text' && typeof item.text === 'string' ? [item.text] : []));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
