import { useState } from 'preact/hooks';
import { changePassword } from '../../api';
import { fullTime } from '../../lib/time';
import { useAction } from '../../lib/use-resource';
import { currentSession, signIn } from '../../state/session';
import { Alert, Badge, Button, Card, TextField, toast } from '../../ui';
import { AccessTokens } from './access-tokens/access-tokens';
import { ConnectedApps } from './connected-apps';
import { EmailNotifications } from './email-notifications';
import { MonthSpendCard } from './month-spend';
import { Webhooks } from './webhooks/webhooks';
import './settings.css';

/** The account: who is signed in until when, where to see its activity, this month's spend, a password change, email notifications, access tokens, connected apps and webhooks. */
export function SettingsPage() {
  const session = currentSession();
  return (
    <div class="page-body narrow stack">
      <h1>Settings</h1>
      <Card title="Account">
        <dl class="facts">
          <dt>Email</dt>
          <dd>{session.email}</dd>
          <dt>Role</dt>
          <dd>
            <Badge tone={session.role === 'admin' ? 'accent' : 'neutral'}>{session.role === 'admin' ? 'Admin' : 'Member'}</Badge>
          </dd>
          <dt>Signed in until</dt>
          <dd>{fullTime(session.expiresAt)}</dd>
        </dl>
      </Card>
      <Card title="Your activity">
        <div class="stack">
          <p class="muted">
            Everything done in your name (chat, MCP clients, scripts, campaigns, account changes), each with a receipt that anyone holding
            the audit log’s public key can check.
          </p>
          <p>
            <a href="#activity">See your activity and receipts</a>
          </p>
        </div>
      </Card>
      <MonthSpendCard />
      <PasswordCard />
      <EmailNotifications />
      <AccessTokens />
      <ConnectedApps />
      <Webhooks scope="person" />
      {session.role === 'admin' && <Webhooks scope="deployment" />}
    </div>
  );
}

function PasswordCard() {
  const session = currentSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const { busy, error, run } = useAction<'change'>();
  const mismatch = again !== '' && again !== next ? 'The two new passwords differ.' : null;

  function submit(event: SubmitEvent) {
    event.preventDefault();
    if (mismatch) return;
    void run('change', async () => {
      signIn(await changePassword(session, current, next));
      setCurrent('');
      setNext('');
      setAgain('');
      toast('Password changed. Your other sessions are signed out.');
    });
  }

  return (
    <Card title="Change password">
      <form class="stack" onSubmit={submit}>
        <input type="text" name="username" autocomplete="username" value={session.email} hidden readOnly />
        <TextField
          label="Current password"
          id="current-password"
          type="password"
          autocomplete="current-password"
          required
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
        <TextField
          label="New password"
          hint="At least 8 characters. Every other signed-in browser is signed out; access tokens and connected apps keep working until revoked."
          id="new-password"
          type="password"
          autocomplete="new-password"
          minLength={8}
          required
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
        <TextField
          label="New password, again"
          id="new-password-again"
          type="password"
          autocomplete="new-password"
          minLength={8}
          required
          value={again}
          error={mismatch}
          onInput={(e) => setAgain(e.currentTarget.value)}
        />
        <Alert message={error} />
        <div class="row">
          <Button type="submit" busy={busy === 'change'} disabled={!!mismatch}>
            Change password
          </Button>
        </div>
      </form>
    </Card>
  );
}
