import { useEffect, useState } from 'preact/hooks';
import { type AuthorizationRequest, approveAuthorizationRequest, denyAuthorizationRequest, getAuthorizationRequest } from '../api';
import { errorText } from '../lib/errors';
import { routeParams } from '../state/route';
import { currentSession, handledAuthFailure } from '../state/session';
import { Alert, Button, Card } from '../ui';

/**
 * The consent page an MCP client's /authorize sends the person to (`#/authorize?request=<id>`):
 * which app, where the answer goes, what it may do; Allow or Deny sends the browser back to
 * the app. The app's name and home page are its own words: shown as text, never as markup
 * or a link, beside the redirect host, which it cannot fake.
 */
export function AuthorizePage() {
  const session = currentSession();
  const requestId = routeParams.value.get('request') ?? '';
  const [request, setRequest] = useState<AuthorizationRequest | null>(null);
  const [allowed, setAllowed] = useState<Set<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<'approve' | 'deny' | null>(null);
  const [leaving, setLeaving] = useState(false);

  useEffect(() => {
    setRequest(null);
    setError(null);
    if (!requestId) {
      setError('This link names no request. Start again from the app that asked.');
      return;
    }
    getAuthorizationRequest(session, requestId).then(
      (loaded) => {
        setRequest(loaded);
        setAllowed(new Set(loaded.scopes.map((item) => item.scope)));
      },
      (failure: unknown) => {
        if (!handledAuthFailure(failure)) setError(errorText(failure));
      },
    );
  }, [session.token, requestId]);

  async function answer(choice: 'approve' | 'deny') {
    if (!request) return;
    setBusy(choice);
    setError(null);
    try {
      const next =
        choice === 'approve'
          ? await approveAuthorizationRequest(session, request.id, [...allowed])
          : await denyAuthorizationRequest(session, request.id);
      setLeaving(true);
      location.assign(next);
    } catch (failure) {
      if (!handledAuthFailure(failure)) setError(errorText(failure));
      setBusy(null);
    }
  }

  function toggle(scope: string, on: boolean) {
    const next = new Set(allowed);
    if (on) next.add(scope);
    else next.delete(scope);
    setAllowed(next);
  }

  const name = request?.client.name ?? 'An unnamed app';
  // A client named by its metadata document's URL is that URL's host: the one part of it Bridle
  // checked (it served the document over TLS). Its name is only what it says of itself.
  const host = request?.client.host ?? null;
  return (
    <div class="page-body narrow stack">
      <h1>Allow access to your Bridle account?</h1>
      {!request && !error && <p class="muted">Loading the request…</p>}
      <Alert message={error} />
      {request && (
        <Card title={<span class="consent-client">{host ?? name}</span>}>
          <div class="stack">
            {host && (
              <p>
                An app published at <strong class="consent-host">{host}</strong>, which calls itself <q>{name}</q>,
              </p>
            )}
            <p>
              wants to use your Bridle account <strong>{session.email}</strong> through the Model Context Protocol.
            </p>
            <dl class="facts">
              <dt>Your answer goes to</dt>
              <dd class="consent-host">{request.redirectHost}</dd>
              {request.client.uri && (
                <>
                  <dt>The app says its home is</dt>
                  <dd class="consent-host">{request.client.uri}</dd>
                </>
              )}
            </dl>
            <p class="muted">
              {host
                ? `Bridle fetched this app’s description from ${host}; its name and home page are its own words. Allow it only if you trust ${host} and started the app yourself.`
                : 'The name and home page are the app’s own words: Bridle has not checked them. Allow only an app you started yourself.'}
            </p>
            <fieldset class="plain-fieldset stack">
              <legend>It may</legend>
              {request.scopes.map((item) => (
                <label key={item.scope} class="row consent-scope">
                  <input
                    type="checkbox"
                    checked={allowed.has(item.scope)}
                    disabled={busy !== null || leaving}
                    onChange={(event) => toggle(item.scope, event.currentTarget.checked)}
                  />
                  <span>{item.description}</span>
                </label>
              ))}
            </fieldset>
            <div class="row">
              <Button
                busy={busy === 'approve'}
                disabled={busy !== null || leaving || allowed.size === 0}
                onClick={() => void answer('approve')}
              >
                Allow
              </Button>
              <Button variant="secondary" busy={busy === 'deny'} disabled={busy !== null || leaving} onClick={() => void answer('deny')}>
                Deny
              </Button>
            </div>
            {leaving && (
              <p class="muted" role="status">
                Returning you to {request.redirectHost}…
              </p>
            )}
            <p class="muted">You can disconnect it at any time under Settings, Connected apps.</p>
          </div>
        </Card>
      )}
    </div>
  );
}
