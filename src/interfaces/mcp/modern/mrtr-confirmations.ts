import { createHash } from 'node:crypto';
import {
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type RequestStateCodec,
} from '@modelcontextprotocol/server';
import type { ExecuteToolCallUseCase } from '../../../application/agent/execute-tool-call.use-case';
import type { ToolCallContext, ToolResult } from '../../../application/agent/ports/tool-gateway.port';
import type { DryRunResult } from '../../../application/agent/ports/toolbox.port';
import type { McpInputRequests } from '../../../application/mcp/ports/mcp-input-requests.port';
import type { Clock } from '../../../application/shared/ports/clock.port';
import type { IdGenerator } from '../../../application/shared/ports/id-generator.port';
import { confirmationForm, notConfirmed } from '../tool-calls';

/** How long a 2026 client's person has to answer, as an elicitation on a 2025 session, unless told otherwise (MCP_CONFIRMATION_TIMEOUT_SECONDS). */
export const INPUT_REQUEST_TTL_SECONDS = 5 * 60;

/** The key of the question in `inputRequests`, and of its answer in the retry's `inputResponses`. */
const CONFIRM = 'confirm';

/** A refused `requestState`, as the audit row and the client's error name it. */
export type StateRefusal =
  'tampered' | 'expired' | 'another-person' | 'another-credential' | 'another-call' | 'policy-changed' | 'already-answered' | 'unknown';

/** What a retry of a call with a `requestState` comes to. */
export type MrtrAnswer =
  | { readonly kind: 'result'; readonly result: ToolResult }
  | { readonly kind: 'ask-again'; readonly question: InputRequiredResult }
  | { readonly kind: 'refused'; readonly reason: StateRefusal };

/**
 * What the signed `requestState` holds: the question's row, and everything the retry must
 * match: the person, their credential, the tool, a digest of the arguments the client sent,
 * and the policy version that asked. The SDK's codec adds the expiry and an HMAC-SHA256 over
 * all of it, with a key every replica derives from the same secret.
 */
interface ConfirmationState {
  readonly id: string;
  readonly user: string;
  readonly credential: string;
  readonly tool: string;
  readonly digest: string;
  readonly policyVersion: number;
  /** On the service's clock (the codec's own expiry, on the machine's, stands behind it). */
  readonly expiresAt: number;
}

/** Who asks, through which credential: the retry must come from the same. */
export interface McpCaller {
  readonly context: ToolCallContext;
  readonly credential: string;
}

/**
 * Confirmations for 2026 MCP clients as multi-round-trip requests: the destructive call's
 * dry run (audited `confirmation_required`, as on every other door) becomes an
 * `input_required` result with the same form a 2025 session's elicitation shows; the retry
 * carries the person's answer and the signed state, and "yes" runs the dry run's call, once on
 * the whole fleet (one conditional update of `mcp_input_requests`). Any replica can take the
 * retry: nothing waits in memory.
 */
export class MrtrConfirmations {
  private readonly codec: RequestStateCodec<ConfirmationState>;

  constructor(
    private readonly executor: ExecuteToolCallUseCase,
    private readonly questions: McpInputRequests,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    key: Uint8Array,
    /** How long the person has to answer; the question expires after it. */
    readonly ttlSeconds: number = INPUT_REQUEST_TTL_SECONDS,
  ) {
    this.codec = createRequestStateCodec<ConfirmationState>({ key, ttlSeconds });
  }

  /** The dry run, and the question for the person, or the dry run's refusal (a task that is not there is not found). */
  async ask(tool: string, args: unknown, caller: McpCaller, policyVersion: number): Promise<InputRequiredResult | ToolResult> {
    const dryRun = await this.executor.execute({ tool, arguments: args, context: { ...caller.context, mode: { kind: 'dry-run' } } });
    if (!dryRun.ok) return dryRun;
    const question = dryRun.data as DryRunResult;
    const form = confirmationForm(tool, question, this.executor.words);
    const now = this.clock.now();
    const id = this.ids.next();
    const expiresAt = new Date(now.getTime() + this.ttlSeconds * 1000);
    await this.questions.open(
      {
        id,
        userId: caller.context.userId,
        expiresAt,
        call: { arguments: question.arguments, asked: form.asked },
      },
      now,
    );
    const state = {
      id,
      user: caller.context.userId,
      credential: caller.credential,
      tool,
      digest: digestOf(args),
      policyVersion,
      expiresAt: expiresAt.getTime(),
    };
    return inputRequired({
      inputRequests: { [CONFIRM]: inputRequired.elicit({ message: form.message, requestedSchema: form.requestedSchema }) },
      requestState: await this.codec.mint(state),
    });
  }

  /**
   * The retry: the state checked against this call and caller, then the person's answer. A
   * retry without an answer is asked again, with a new question; the old one stays unanswered
   * until it expires.
   */
  async answer(tool: string, args: unknown, caller: McpCaller, wireState: string, responses: unknown): Promise<MrtrAnswer> {
    let state: ConfirmationState;
    try {
      state = await this.codec.verify(wireState, undefined as never);
    } catch (error) {
      return { kind: 'refused', reason: error instanceof Error && error.message === 'expired' ? 'expired' : 'tampered' };
    }
    if (state.expiresAt <= this.clock.now().getTime()) return { kind: 'refused', reason: 'expired' };
    if (state.user !== caller.context.userId) return { kind: 'refused', reason: 'another-person' };
    if (state.credential !== caller.credential) return { kind: 'refused', reason: 'another-credential' };
    if (state.tool !== tool || state.digest !== digestOf(args)) return { kind: 'refused', reason: 'another-call' };
    const answer = inputResponse(responses as Record<string, unknown> | undefined, CONFIRM);
    if (answer.kind !== 'elicit') {
      const question = await this.ask(tool, args, caller, state.policyVersion);
      return 'resultType' in question ? { kind: 'ask-again', question } : { kind: 'result', result: question };
    }
    const taken = await this.questions.take(state.id, caller.context.userId, this.clock.now());
    if (taken.outcome !== 'taken') return { kind: 'refused', reason: taken.outcome };
    // A call another policy version puts to the person was not asked under it. One no policy asks
    // about any more (or that resolves to nothing now) runs as confirmed, and fails as it would.
    const asks = await this.executor.asksThePerson(tool, args, caller.context);
    if (asks && asks.policyVersion !== state.policyVersion) return { kind: 'refused', reason: 'policy-changed' };
    const { call } = taken;
    if (answer.action !== 'accept' || answer.content?.[CONFIRM] !== true) {
      // A `cancel` closed the question unanswered: no "no", but nothing is deleted all the same.
      const ending = answer.action === 'cancel' ? 'dismissed' : 'decided-no';
      return { kind: 'result', result: notConfirmed(call.asked, ending, this.ttlSeconds * 1000) };
    }
    const result = await this.executor.execute({
      tool,
      arguments: call.arguments,
      context: { ...caller.context, mode: { kind: 'confirmed' } },
    });
    return { kind: 'result', result };
  }
}

/** The arguments as the client sent them, canonically (keys sorted), hashed. */
function digestOf(args: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(args ?? {}))
    .digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
