import { useState } from 'preact/hooks';
import { api, type Session } from '../api';
import { handler } from '../components/events';
import { ErrorMessage } from '../components/feedback';

/** Fields labelled Email and Password, a Sign in button, and the API's reason on failure. */
export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await api('POST', '/api/admin/session', { body: { email, password } }));
    } catch (failure) {
      setError(failure);
      setPassword('');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Pharmacy console</h1>
      <form onSubmit={handler(submit)}>
        <h2>Sign in</h2>
        <ErrorMessage error={error} />
        <label>
          Email
          <input
            type="email"
            name="email"
            autocomplete="username"
            required
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
