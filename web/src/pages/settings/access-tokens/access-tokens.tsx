import { useState } from 'preact/hooks';
import { type AccessToken, listAccessTokens, revokeAccessToken } from '../../../api';
import { fullTime, timeAgo } from '../../../lib/time';
import { useAction, useResource } from '../../../lib/use-resource';
import { currentSession } from '../../../state/session';
import { Alert, Badge, Button, Card, Dialog, EmptyState, Table, toast } from '../../../ui';
import type { Column } from '../../../ui/table';
import { NewTokenDialog } from './new-token-dialog';
import { SCOPE_WORDS, STATUS_TONE } from './words';

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
