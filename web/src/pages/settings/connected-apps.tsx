import { useState } from 'preact/hooks';
import { listOAuthGrants, type OAuthGrant, revokeOAuthGrant } from '../../api';
import { fullTime, timeAgo } from '../../lib/time';
import { useAction, useResource } from '../../lib/use-resource';
import { currentSession } from '../../state/session';
import { Alert, Button, Card, Dialog, EmptyState, toast } from '../../ui';

/**
 * The MCP clients the person allowed over OAuth, with what each may do and when it was last
 * used; Disconnect (after a dialog) stops its tokens at their next use.
 */
export function ConnectedApps() {
  const session = currentSession();
  const { data: grants, error, reload } = useResource(() => listOAuthGrants(session), [session.token]);
  const [confirming, setConfirming] = useState<OAuthGrant | null>(null);
  const action = useAction<'disconnect'>();

  const disconnect = (grant: OAuthGrant) =>
    action.run('disconnect', async () => {
      await revokeOAuthGrant(session, grant.id);
      toast(`Disconnected ${grant.client.name ?? 'the app'}.`);
      setConfirming(null);
      void reload();
    });

  return (
    <Card title="Connected apps">
      <div class="stack">
        <Alert message={error ?? action.error} />
        {grants === undefined && !error && <p class="muted">Loading…</p>}
        {grants?.length === 0 && (
          <EmptyState title="No app is connected.">
            <p>An MCP client you point at this server asks you here first; it shows up once you allow it.</p>
          </EmptyState>
        )}
        {grants && grants.length > 0 && (
          <ul class="plain stack">
            {grants.map((grant) => (
              <li key={grant.id} class="spread connected-app">
                <div>
                  <strong class="consent-client">{grant.client.name ?? 'An unnamed app'}</strong>
                  <p class="muted">{grant.scopes.map((item) => item.description).join(' · ')}</p>
                  <p class="muted">
                    Allowed <time title={fullTime(grant.createdAt)}>{timeAgo(grant.createdAt)}</time>
                    {' · '}
                    {grant.lastUsedAt ? (
                      <>
                        last used <time title={fullTime(grant.lastUsedAt)}>{timeAgo(grant.lastUsedAt)}</time>
                      </>
                    ) : (
                      'never used'
                    )}
                  </p>
                </div>
                <Button variant="secondary" size="sm" onClick={() => setConfirming(grant)}>
                  Disconnect
                </Button>
              </li>
            ))}
          </ul>
        )}
      </div>
      <Dialog
        open={confirming !== null}
        role="alertdialog"
        title={`Disconnect ${confirming?.client.name ?? 'this app'}?`}
        onClose={() => setConfirming(null)}
        actions={
          <>
            <Button variant="secondary" onClick={() => setConfirming(null)}>
              Cancel
            </Button>
            <Button variant="danger" busy={action.busy === 'disconnect'} onClick={() => confirming && void disconnect(confirming)}>
              Disconnect
            </Button>
          </>
        }
      >
        <p>Its next request is refused. To use it again you will have to allow it again.</p>
      </Dialog>
    </Card>
  );
}
