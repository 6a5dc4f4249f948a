import type { McpDestructiveToolMode } from '../agent/confirmation';
import type { ToolDefinition } from '../agent/tools';
import { ACTION_CONTRACTS, type ActionName } from '../outreach/actions';
import { CHAT_TURN, type CallFact, type PolicyDocument, type PolicyRule, type PolicySource, type PolicyTool } from './policy';

/** The version of the built-in policy, in force until an admin stores one. */
export const DEFAULT_POLICY_VERSION = 0;

/** The actions a review queue can hold: those that send a message a reviewer can read first. */
const REVIEWABLE_ACTIONS: readonly ActionName[] = ['linkedin_send_message', 'send_email'];

/** A tool of the todo assistant as the policy catalogue reads it: its definition and where it may be called from. */
export type CatalogueTool = Pick<ToolDefinition, 'name' | 'destructive' | 'inputSchema'> & {
  readonly sources: readonly PolicySource[];
};

/**
 * The tools a policy can name: the todo assistant's, each called from the sources it names
 * (the chat and MCP, and the REST API for those with a route of their own; the server can put
 * a destructive one to the person: it has a dry run), the outreach planner's actions (a
 * message can wait for a reviewer), and the chat turn itself (CHAT_TURN: the person can be
 * asked before it, by name only).
 */
export function policyCatalogue(todoTools: readonly CatalogueTool[]): PolicyTool[] {
  const facts = (schema: { readonly properties?: Readonly<Record<string, unknown>> }): CallFact[] =>
    schema.properties && 'to' in schema.properties ? ['items', 'recipientDomain'] : ['items'];
  return [
    ...todoTools.map((tool) => ({
      name: tool.name,
      sources: tool.sources,
      destructive: tool.destructive,
      askable: tool.destructive ? (['person'] as const) : [],
      facts: facts(tool.inputSchema),
    })),
    ...(Object.keys(ACTION_CONTRACTS) as ActionName[]).map((name) => ({
      name,
      sources: ['outreach'] as const,
      destructive: false,
      askable: REVIEWABLE_ACTIONS.includes(name) ? (['reviewer'] as const) : [],
      facts: facts(ACTION_CONTRACTS[name].args),
    })),
    { name: CHAT_TURN, sources: ['chat'], destructive: false, askable: ['person'], facts: [], byNameOnly: true },
  ];
}

/** The rule every policy holds for the chat's destructive calls (promisedRules): what audit rows and decisions name. */
export const CHAT_ASKS_BEFORE_DESTRUCTION = 'chat-asks-before-destruction';

/**
 * Rules every version of the policy holds, whatever an admin stores (docs/policies.md, "The
 * built-in policy"): in the chat, a destructive tool is always put to the person first (the
 * product's promise). Such a rule decides only a call the stored rules would allow: their
 * denials, questions and limits stand, so a policy can add limits and denials in the chat, not
 * take the question away. Over MCP and the REST API the stored rules alone decide.
 */
export function promisedRules(catalogue: readonly PolicyTool[]): PolicyRule[] {
  const destructive = catalogue.filter((tool) => tool.destructive).map((tool) => tool.name);
  if (destructive.length === 0) return [];
  return [{ name: CHAT_ASKS_BEFORE_DESTRUCTION, tools: destructive, sources: ['chat'], effect: 'ask-person' }];
}

/**
 * Today's built-in rules as a policy, so that a deployment that never stores one behaves as
 * before: a destructive tool needs the person's yes in the chat and over MCP, unless the
 * operator let MCP clients destroy unasked (MCP_DESTRUCTIVE_TOOLS=allow). What else stays
 * built in, outside the policy: a chat turn's bulk change (more than BULK_CHANGES_MAX changes
 * to existing tasks) asks the person; a campaign's own review mode holds its messages for review.
 */
export function defaultPolicy(catalogue: readonly PolicyTool[], mcpDestructiveTools: McpDestructiveToolMode): PolicyDocument {
  const destructive = catalogue.filter((tool) => tool.destructive).map((tool) => tool.name);
  if (destructive.length === 0) return { rules: [] };
  return {
    rules: [
      ...(mcpDestructiveTools === 'allow'
        ? [{ name: 'mcp-destroys-unasked', tools: destructive, sources: ['mcp' as const], effect: 'allow' as const }]
        : []),
      {
        name: 'destruction-needs-the-person',
        tools: destructive,
        sources: ['chat' as const, 'mcp' as const],
        effect: 'ask-person' as const,
      },
    ],
  };
}
