import { useState } from 'preact/hooks';
import { type AccessToken, createAccessToken, listAccessTokens, revokeAccessToken, type Scope } from '../../api';
import { fullTime, timeAgo } from '../../lib/time';
import { useAction, useResource } from '../../lib/use-resource';
import { currentSession } from '../../state/session';
import { Alert, Badge, Button, Card, Dialog, EmptyState, Field, Table, TextField, toast } from '../../ui';
import type { Column } from '../../ui/table';
import { SecretOnce } from './secret-once';

/** Each scope in plain words; keyed by the API's own scope type, so a new scope fails the type check here. */
const SCOPE_WORDS: Record<Scope, string> = {
  'tasks:read': 'See your tasks',
  'tasks:write': 'Add, change, complete and delete your tasks (and see them)',
  chat: 'Talk to the assistant, which acts on your tasks for you',
  'campaigns:read': 'See your outreach campaigns, drafts and do-not-contact list',
  'campaigns:write': 'Create, change and run your outreach campaigns',
  'audit:read': 'Read the audit log (admins only)',
};
const SCOPES = Object.keys(SCOPE_WORDS) as Scope[];
const EXPIRIES = [7, 30, 90, 366] as const;
const STATUS_TONE = { active: 'success', expired: 'neutral', revoked: 'danger' } as const;

/**
 * Personal access tokens for scripts and MCP clients that take a header: make one (its
 * secret shown once, in the dialog, and forgotten when the dialog closes), see when each was
 * last used and from where, revoke.
 */
export function AccessTokens() {
  const session = currentSession();
  const { data: tokens, error, reload } = useResource(() => listAccessTokens(session), [session.token]);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<AccessToken | null>(null);
  const action = useAction<'revoke'>();

  const revoke = (token: AccessToken) =>
    action.run('revoke', async () => {
      await revokeAccessToken(session, token.id);
      toast(`Revoked “${token.name}”.`);
      setRevoking(null);
      void reload();
    });

  const columns: Column<AccessToken>[] = [
    { key: 'name', header: 'Name', cell: (token) => token.name },
    {
      key: 'scopes',
      header: 'May',
      cell: (token) => (
        <span class="row">
          {token.scopes.map((scope) => (
            <Badge key={scope} title={SCOPE_WORDS[scope]}>
              {scope}
            </Badge>
          ))}
        </span>
      ),
    },
    {
      key: 'status',
      header: 'Status',
      cell: (token) => <Badge tone={STATUS_TONE[token.status]}>{token.status}</Badge>,
    },
    {
      key: 'used',
      header: 'Last used',
      cell: (token) =>
        token.lastUsedAt ? (
          <span>
            <time title={fullTime(token.lastUsedAt)}>{timeAgo(token.lastUsedAt)}</time>
            {token.lastUsedAddress && <span class="muted"> from {token.lastUsedAddress}</span>}
          </span>
        ) : (
          <span class="muted">never</span>
        ),
    },
    {
      key: 'expires',
      header: 'Expires',
      nowrap: true,
      cell: (token) => <time title={fullTime(token.expiresAt)}>{new Date(token.expiresAt).toLocaleDateString()}</time>,
    },
    {
      key: 'actions',
      header: 'Actions',
      cell: (token) =>
        token.status === 'active' ? (
          <Button variant="secondary" size="sm" aria-label={`Revoke ${token.name}`} onClick={() => setRevoking(token)}>
            Revoke
          </Button>
        ) : null,
    },
  ];

  return (
    <Card title="Access tokens">
      <div class="stack">
        <p class="muted">
          For scripts, and for MCP clients that take a header (<code>Authorization: Bearer bridle_pat_…</code>). A token may do only what
          its scopes say, and never manage your account or its tokens.
        </p>
        <Alert message={error ?? action.error} />
        {tokens === undefined && !error && <p class="muted">Loading…</p>}
        {tokens?.length === 0 && (
          <EmptyState title="No access token yet.">
            <p>Make one for each script or client, so you can revoke one without the others.</p>
          </EmptyState>
        )}
        {tokens && tokens.length > 0 && <Table caption="Your access tokens" columns={columns} rows={tokens} rowKey={(token) => token.id} />}
        <div>
          <Button onClick={() => setCreating(true)}>New token</Button>
        </div>
      </div>
      {creating && (
        <NewTokenDialog
          onClose={() => {
            setCreating(false);
            void reload();
          }}
        />
      )}
      <Dialog
        open={revoking !== null}
        role="alertdialog"
        title={`Revoke “${revoking?.name ?? ''}”?`}
        onClose={() => setRevoking(null)}
        actions={
          <>
            <Button variant="secondary" onClick={() => setRevoking(null)}>
              Cancel
            </Button>
            <Button variant="danger" busy={action.busy === 'revoke'} onClick={() => revoking && void revoke(revoking)}>
              Revoke
            </Button>
          </>
        }
      >
        <p>Its next request is refused. Whatever uses it needs a new token.</p>
      </Dialog>
    </Card>
  );
}

/** The form, then the secret once. Unmounted on close, so the secret lives no longer than the dialog. */
function NewTokenDialog({ onClose }: { onClose: () => void }) {
  const session = currentSession();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(['tasks:read']));
  const [days, setDays] = useState<number>(90);
  const { busy, error, run } = useAction<'create'>();
  const [secret, setSecret] = useState<string | null>(null);
  const visibleScopes = SCOPES.filter((scope) => scope !== 'audit:read' || session.role === 'admin');

  function submit(event: SubmitEvent) {
    event.preventDefault();
    void run('create', async () => {
      const created = await createAccessToken(session, { name: name.trim(), scopes: [...scopes], expiresInDays: days });
      setSecret(created.token);
    });
  }

  function toggle(scope: Scope, on: boolean) {
    const next = new Set(scopes);
    if (on) next.add(scope);
    else next.delete(scope);
    setScopes(next);
  }

  return (
    <Dialog
      open
      title={secret ? 'Your new token' : 'New access token'}
      onClose={onClose}
      actions={
        secret ? (
          <Button onClick={onClose}>Done</Button>
        ) : (
          <>
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" form="new-token" busy={busy === 'create'} disabled={scopes.size === 0 || name.trim() === ''}>
              Make token
            </Button>
          </>
        )
      }
    >
      {secret ? (
        <SecretOnce secret={secret} label="Token">
          it is shown only this once, and Bridle keeps only a hash of it.
        </SecretOnce>
      ) : (
        <form id="new-token" class="stack" onSubmit={submit}>
          <Alert message={error} />
          <TextField
            label="Name"
            hint="What it is for, e.g. “Backup script”."
            maxLength={100}
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <fieldset class="plain-fieldset stack">
            <legend>It may</legend>
            {visibleScopes.map((scope) => (
              <label key={scope} class="row consent-scope">
                <input type="checkbox" checked={scopes.has(scope)} onChange={(e) => toggle(scope, e.currentTarget.checked)} />
                <span>
                  {SCOPE_WORDS[scope]} <code class="muted">{scope}</code>
                </span>
              </label>
            ))}
          </fieldset>
          <Field label="Expires after">
            {(ids) => (
              <select class="input" value={days} onChange={(e) => setDays(Number(e.currentTarget.value))} {...ids}>
                {EXPIRIES.map((value) => (
                  <option key={value} value={value}>
                    {value === 366 ? 'a year' : `${value} days`}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </form>
      )}
    </Dialog>
  );
}
