import { useEffect, useState } from 'preact/hooks';
import { listOAuthGrants, type OAuthGrant, revokeOAuthGrant } from '../../api';
import { errorText } from '../../lib/errors';
import { fullTime, timeAgo } from '../../lib/time';
import { currentSession, handledAuthFailure } from '../../state/session';
import { Alert, Button, Card, Dialog, EmptyState, toast } from '../../ui';

/**
 * The MCP clients the person allowed over OAuth, with what each may do and when it was last
 * used; Disconnect (after a dialog) stops its tokens at their next use.
 */
export function ConnectedApps() {
  const session = currentSession();
  const [grants, setGrants] = useState<OAuthGrant[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<OAuthGrant | null>(null);
  const [busy, setBusy] = useState(false);

  function load() {
    listOAuthGrants(session).then(setGrants, (failure: unknown) => {
      if (!handledAuthFailure(failure)) setError(errorText(failure));
    });
  }
  useEffect(load, [session.token]);

  async function disconnect(grant: OAuthGrant) {
    setBusy(true);
    try {
      await revokeOAuthGrant(session, grant.id);
      toast(`Disconnected ${grant.client.name ?? 'the app'}.`);
      setConfirming(null);
      load();
    } catch (failure) {
      if (!handledAuthFailure(failure)) setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title="Connected apps">
      <div class="stack">
        <Alert message={error} />
        {grants === null && !error && <p class="muted">Loading…</p>}
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
            <Button variant="danger" busy={busy} onClick={() => confirming && void disconnect(confirming)}>
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
