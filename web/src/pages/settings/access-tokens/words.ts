import type { Scope } from '../../../api';

/** Each scope in plain words; keyed by the API's own scope type, so a new scope fails the type check here. */
export const SCOPE_WORDS: Record<Scope, string> = {
  'tasks:read': 'See your tasks',
  'tasks:write': 'Add, change, complete and delete your tasks (and see them)',
  chat: 'Talk to the assistant, which acts on your tasks for you',
  'campaigns:read': 'See your outreach campaigns, drafts and do-not-contact list',
  'campaigns:write': 'Create, change and run your outreach campaigns',
  'audit:read': 'Read the audit log (admins only)',
};
export const SCOPES = Object.keys(SCOPE_WORDS) as Scope[];
export const EXPIRIES = [7, 30, 90, 366] as const;
export const STATUS_TONE = { active: 'success', expired: 'neutral', revoked: 'danger' } as const;
