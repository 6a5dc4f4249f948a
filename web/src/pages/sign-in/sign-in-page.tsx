import { useState } from 'preact/hooks';
import { login, signUp } from '../../api';
import { errorText } from '../../lib/errors';
import { route, routeNamesPage, routeParams } from '../../state/route';
import { signIn, signOutNotice } from '../../state/session';
import { Alert, Button, TextField } from '../../ui';
import './sign-in.css';

/** Sign in, or create an account and be signed in with it: one form, two buttons. */
export function SignInPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState<'login' | 'register' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const linkedTo = routeNamesPage.value && [...routeParams.value.keys()].length > 0;
  const notice =
    route.value === 'authorize'
      ? 'An app asks to use your Bridle account. Sign in to answer it.'
      : (signOutNotice.value ?? (linkedTo ? 'Sign in to see what the link you followed leads to.' : null));

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const action = (event.submitter as HTMLButtonElement | null)?.value === 'register' ? 'register' : 'login';
    setBusy(action);
    setError(null);
    try {
      signIn(action === 'register' ? await signUp(email, password) : await login(email, password));
      // Where the person was going (a link to a page, as a notification gives, with what it names; an
      // app's request for access) is where they land: the hash is kept. Only a bare address opens the chat.
      if (!routeNamesPage.value) location.hash = '#chat';
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(null);
    }
  }

  return (
    <main class="auth-page">
      <form class="auth card" aria-labelledby="auth-title" onSubmit={(event) => void submit(event)}>
        <div class="auth-brand">
          <img src="/favicon.svg" alt="" width="40" height="40" />
          <h1 id="auth-title">Bridle console</h1>
          <p class="muted">Your tasks and campaigns, run by an assistant that asks before it acts.</p>
        </div>
        {notice && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <TextField
          label="Email"
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <TextField
          label="Password"
          hint="At least 8 characters."
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          minLength={8}
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <Alert message={error} />
        <div class="row auth-actions">
          <Button type="submit" value="login" busy={busy === 'login'} disabled={busy !== null}>
            Sign in
          </Button>
          <Button type="submit" value="register" variant="secondary" busy={busy === 'register'} disabled={busy !== null}>
            Create account
          </Button>
        </div>
      </form>
    </main>
  );
}
