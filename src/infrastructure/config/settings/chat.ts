import { MCP_DESTRUCTIVE_TOOL_MODES } from '../../../domain/agent/confirmation';
import { REPLY_TARGET_CHARS } from '../../../domain/agent/limits';
import { ed25519PrivateKey, flag, list, oneOf, pattern, wholeNumber } from './rules';
import { type Setting } from './setting';

/** The Chat, agent and MCP section of docs/configuration.md, in its order. */
export const CHAT_SETTINGS = {
  AGENT_MAX_ITERATIONS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 20),
    default: '5',
    doc: 'model calls per chat turn that may use tools. If the model still wants tools after the last one, one more call without tools words the answer (`status: max_iterations_reached`, a `warning`)',
  },
  AGENT_MAX_TOOL_CALLS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 50),
    default: '10',
    doc: 'tool calls per chat turn. Calls past it are refused (`LIMIT_REACHED`), and the answer is worded as at the iteration limit (`finishReason: max_tool_calls`)',
  },
  AGENT_TURN_TIMEOUT_MS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1_000, 300_000),
    default: '30000',
    doc: 'deadline of a whole chat turn, model and tools included (`finishReason: timeout`). The crash sweeper waits twice this long before it settles a turn',
  },
  AGENT_TOOL_TIMEOUT_MS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(100, 120_000),
    default: '10000',
    doc: 'deadline of one tool call (tool error `TIMEOUT`)',
  },
  AGENT_CONTEXT_TOKENS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1_000, 2_000_000),
    default: '8000',
    doc: 'estimated tokens (4 characters each) one chat model request should hold. The stored conversation gets what the instructions, the summary and the new message leave of two thirds of it. Older exchanges past that are summarised by the model',
  },
  AGENT_HISTORY_WINDOW: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(2, 1_000),
    default: '100',
    doc: 'stored messages read per turn at most. Reaching it also starts a summary',
  },
  AGENT_MAX_TOOL_ARGUMENT_BYTES: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(256, 64 * 1024),
    default: String(16 * 1024),
    doc: "one tool call's argument text in UTF-8 bytes. Past it the call is refused (`ARGUMENTS_TOO_LARGE`) and only its size and SHA-256 are recorded",
  },
  AGENT_MAX_REPLY_CHARS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(100, 8_000),
    default: String(REPLY_TARGET_CHARS),
    doc: "the model's words in one reply. Past it they are cut at a word with `…`, and the turn carries a `warning`",
  },
  SUPPORT_CONTACT: {
    section: 'Chat, agent and MCP',
    ...pattern(/^\P{Cc}{1,200}$/u, 'must be one line of at most 200 characters', 'one line, ≤ 200 characters'),
    defaultText: 'unset: "contact support"',
    doc: 'where people get help (an email address or a URL), named by the sentence the assistant says after an unexpected failure, and by the `message` of every HTTP 500: "An unexpected error occurred. Please try again, or contact support at `<SUPPORT_CONTACT>` if it keeps happening."',
  },
  CHAT_SWEEP_INTERVAL_MS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(100, 3_600_000),
    default: '60000',
    doc: 'how often each server process settles chat turns and tool calls cut off by a crash (also once at start)',
  },
  AUDIT_SEAL_INTERVAL_MS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(10, 60_000),
    default: '500',
    doc: "how often each process (server or worker) links appended audit rows onto the hash chain; one process seals at a time, the others find the sealer's lock taken and leave ([audit log](audit-log.md))",
  },
  AUDIT_SIGNING_KEY: {
    section: 'Chat, agent and MCP',
    ...ed25519PrivateKey(),
    also: '. Required with `DATABASE_URL` when `NODE_ENV=production`',
    defaultText: 'unset: generated once into `BRIDLE_DATA_DIR/audit-signing-key.pem` (mode 600), said once in the log',
    doc: "signs the audit chain's checkpoints ([0012](decisions/0012-signed-audit-checkpoints.md)). Every replica and worker must share it; verify trusts only this key. Keep a copy: without it, new checkpoints cannot be signed by the key your auditors know",
  },
  AUDIT_CHECKPOINT_ROWS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(100, 10_000_000),
    default: '10000',
    doc: 'a signed checkpoint after this many new links…',
  },
  AUDIT_CHECKPOINT_MINUTES: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 7 * 24 * 60),
    default: '60',
    doc: '…or this many minutes, whichever comes first. The default verify walks only the links since the newest checkpoint',
  },
  AUDIT_LOG_ORIGIN: {
    section: 'Chat, agent and MCP',
    ...pattern(
      /^[\x21-\x2a\x2c-\x7e]{1,255}$/,
      'must be printable ASCII without spaces or "+", at most 255 characters',
      'printable ASCII, no spaces or `+`',
    ),
    defaultText: '`PUBLIC_BASE_URL` without its scheme and trailing slash, then `/audit` (e.g. `bridle.example.com/audit`)',
    doc: "the audit log's name: the first line of each signed checkpoint note and the name of its key ([0016](decisions/0016-merkle-tree-over-the-audit-chain.md)). Auditors' verifiers check it, so keep it stable when the address changes",
  },
  MCP_ALLOWED_HOSTS: {
    section: 'Chat, agent and MCP',
    ...list('host names without port'),
    default: 'localhost,127.0.0.1,[::1]',
    doc: '`Host` values `POST /mcp` answers to (a DNS-rebinding guard). Add your public host name when deployed',
  },
  MCP_ALLOWED_ORIGINS: {
    section: 'Chat, agent and MCP',
    ...list('origins, e.g. `https://app.example.com`'),
    default: '',
    defaultText: 'empty',
    doc: 'browser `Origin`s allowed on `POST /mcp` besides those on an allowed host. A request without `Origin` is not checked',
  },
  MCP_SESSION_IDLE_MINUTES: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 24 * 60),
    default: '30',
    doc: 'a stateful `/mcp` session unused this long is closed; its client starts a new one ([MCP](mcp.md))',
  },
  MCP_SESSIONS_PER_USER: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 1_000),
    default: '10',
    doc: "open sessions per person; a new one closes that person's least recently used",
  },
  MCP_SESSIONS_MAX: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 100_000),
    default: '1000',
    doc: 'open sessions in this process; past it, a new session is 503 `MCP.SESSIONS_FULL`',
  },
  MCP_LISTEN_STREAMS_PER_USER: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 1_000),
    default: '10',
    doc: 'open `subscriptions/listen` streams (2026-07-28 clients) per person on each replica; past it a new one is refused with a JSON-RPC error until one ends ([MCP](mcp.md#subscriptionslisten-2026-07-28))',
  },
  MCP_DESTRUCTIVE_TOOLS: {
    section: 'Chat, agent and MCP',
    ...oneOf(MCP_DESTRUCTIVE_TOOL_MODES),
    default: 'confirm-in-chat',
    doc: 'what `delete_task` does over `POST /mcp`. `confirm-in-chat`: the person is asked in their client when it can be (a session with elicitation); otherwise refused with the tool error `CONFIRMATION_REQUIRED`, and the question waits for the person in the console, at a link the error gives. `allow`: it runs at once, without the person. It sets the built-in policy (version 0) only: once an admin stores a policy, its rules decide ([policies](policies.md))',
  },
  MCP_CONFIRMATION_TIMEOUT_SECONDS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 3600),
    default: '300',
    doc: "how long a person has to answer a deletion's question in their MCP client (a 2025 session's elicitation, a 2026 client's `input_required`). Unanswered by then, the question expires: nothing is deleted, and the client is told it expired unanswered ([MCP](mcp.md#deleting-asks-the-person))",
  },
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(60, 24 * 3600),
    default: '3600',
    doc: 'lifetime of an OAuth access token Bridle issues to an MCP client. When it runs out the client refreshes it by itself ([security](security.md#oauth-for-mcp-clients))',
  },
  OAUTH_REFRESH_TOKEN_TTL_DAYS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 365),
    default: '30',
    doc: 'lifetime of each refresh token. Every refresh returns a new one with a new lifetime, so a client in use stays connected; one left unused this long must ask the person again',
  },
  OAUTH_CLIENT_METADATA_FETCH: {
    section: 'Chat, agent and MCP',
    ...flag(),
    default: 'true',
    doc: 'whether an MCP client may name itself by the https URL of its metadata document (a Client ID Metadata Document), which Bridle then fetches, guarded against reaching internal addresses ([security](security.md#client-id-metadata-documents)). `false`: a URL `client_id` is refused and clients register at `POST /register`',
  },
  OAUTH_CLIENT_METADATA_HOSTS: {
    section: 'Chat, agent and MCP',
    ...list('host names without port', { regex: /^[a-z0-9.-]+$/, what: 'a host name' }),
    default: '',
    defaultText: 'empty: any host',
    doc: 'the only hosts whose metadata documents Bridle fetches, when set (a trust policy). A URL `client_id` on another host is refused without a fetch',
  },
  OAUTH_CLIENT_METADATA_TIMEOUT_MS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(100, 5_000),
    default: '5000',
    doc: 'deadline of one metadata document fetch, resolving the name included; the document itself is refused past 5 KB',
  },
  OUTBOUND_PRIVATE_HOSTS: {
    section: 'Chat, agent and MCP',
    ...list('host names without port', { regex: /^[a-z0-9.-]+$/, what: 'a host name' }),
    default: '',
    defaultText: 'empty',
    doc: 'host names Bridle may fetch from although they resolve to a loopback, private, link-local or other special-use address (a metadata document or a webhook receiver on your own network); a webhook URL to one of them may also use plain `http`. Every other such address is refused',
  },
} as const satisfies Record<string, Setting>;
