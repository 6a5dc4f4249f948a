import { useState } from 'preact/hooks';
import { type AuthorizationRequest, approveAuthorizationRequest, denyAuthorizationRequest, getAuthorizationRequest } from '../../api';
import { toggled } from '../../lib/sets';
import { useAction, useResource } from '../../lib/use-resource';
import { routeParams } from '../../state/route';
import { currentSession } from '../../state/session';
import { Alert, Button, Card } from '../../ui';

type Answer = 'approve' | 'deny';

/**
 * The consent page an MCP client's /authorize sends the person to (`#/authorize?request=<id>`):
 * which app, where the answer goes, what it may do; Allow or Deny sends the browser back to
 * the app. The app's name and home page are its own words: shown as text, never as markup
 * or a link, beside the redirect host, which it cannot fake.
 */
export function AuthorizePage() {
  const requestId = routeParams.value.get('request') ?? '';
  return (
    <div class="page-body narrow stack">
      <h1>Allow access to your Bridle account?</h1>
      {requestId ? (
        <Request key={requestId} id={requestId} />
      ) : (
        <Alert message="This link names no request. Start again from the app that asked." />
      )}
    </div>
  );
}

function Request({ id }: { id: string }) {
  const session = currentSession();
  const { data: request, error } = useResource(() => getAuthorizationRequest(session, id), [session.token]);
  return (
    <>
      {!request && !error && <p class="muted">Loading the request…</p>}
      <Alert message={error} />
      {request && <Consent key={request.id} request={request} />}
    </>
  );
}

/** The request and the person's answer: every scope it asks for ticked to start with. */
function Consent({ request }: { request: AuthorizationRequest }) {
  const session = currentSession();
  const [allowed, setAllowed] = useState<Set<string>>(() => new Set(request.scopes.map((item) => item.scope)));
  const action = useAction<Answer>();
  /** The answer given: the browser is on its way back to the app. */
  const [leaving, setLeaving] = useState<Answer | null>(null);
  const settled = action.busy !== null || leaving !== null;

  const answer = (choice: Answer) =>
    action.run(choice, async () => {
      const next =
        choice === 'approve'
          ? await approveAuthorizationRequest(session, request.id, [...allowed])
          : await denyAuthorizationRequest(session, request.id);
      setLeaving(choice);
      location.assign(next);
    });

  const name = request.client.name ?? 'An unnamed app';
  // A client named by its metadata document's URL is that URL's host: the one part of it Bridle
  // checked (it served the document over TLS). Its name is only what it says of itself.
  const host = request.client.host ?? null;
  return (
    <>
      <Alert message={action.error} />
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
                  disabled={settled}
                  onChange={(event) => setAllowed(toggled(allowed, item.scope, event.currentTarget.checked))}
                />
                <span>{item.description}</span>
              </label>
            ))}
          </fieldset>
          <div class="row">
            <Button
              busy={action.busy === 'approve' || leaving === 'approve'}
              disabled={settled || allowed.size === 0}
              onClick={() => void answer('approve')}
            >
              Allow
            </Button>
            <Button
              variant="secondary"
              busy={action.busy === 'deny' || leaving === 'deny'}
              disabled={settled}
              onClick={() => void answer('deny')}
            >
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
    </>
  );
}
