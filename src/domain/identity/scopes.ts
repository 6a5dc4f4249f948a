/**
 * What a credential other than a signed-in session may do. A session (the console's token)
 * holds every scope; a personal access token or an OAuth grant holds the ones the person
 * chose. A route or tool names the one scope it needs; a route that names none is for a
 * session only (the account itself, tokens, admin).
 */
export const SCOPES = ['tasks:read', 'tasks:write', 'chat', 'campaigns:read', 'campaigns:write', 'audit:read'] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, string>> = {
  'tasks:read': 'See your tasks',
  'tasks:write': 'Add, change, complete and delete your tasks',
  chat: 'Talk to the assistant and read your conversations',
  'campaigns:read': 'See your outreach campaigns, drafts and do-not-contact list',
  'campaigns:write': 'Create, change and run your outreach campaigns',
  'audit:read': 'Read the audit log (admins only)',
};

/** Requested by an MCP client that names no scope: what the task tools need. */
export const DEFAULT_MCP_SCOPES: readonly Scope[] = ['tasks:read', 'tasks:write'];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Scopes as a person or client writes them: `campaigns:*` stands for every `campaigns:`
 * scope. Returns the unknown ones separately so the caller can name them in its error.
 */
export function parseScopes(requested: readonly string[]): { scopes: Scope[]; unknown: string[] } {
  const scopes = new Set<Scope>();
  const unknown: string[] = [];
  for (const item of requested) {
    if (item.endsWith(':*')) {
      const family = SCOPES.filter((scope) => scope.startsWith(item.slice(0, -1)));
      if (family.length === 0) unknown.push(item);
      family.forEach((scope) => scopes.add(scope));
    } else if (isScope(item)) scopes.add(item);
    else unknown.push(item);
  }
  return { scopes: SCOPES.filter((scope) => scopes.has(scope)), unknown };
}

/** `tasks:write` implies `tasks:read`: whoever may change a task may see it. */
export function holdsScope(held: readonly Scope[], required: Scope): boolean {
  if (held.includes(required)) return true;
  const [family, action] = required.split(':');
  return action === 'read' && held.includes(`${family}:write` as Scope);
}
