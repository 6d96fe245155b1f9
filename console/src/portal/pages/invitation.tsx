import { useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { handler } from '../../components/events';
import { ErrorMessage, Loading, Time } from '../../components/feedback';
import { useResource } from '../../components/use-resource';
import type { Invitation } from '../types';

/** The API refuses shorter passwords (the staff's rules: docs/portal.md). */
const PASSWORD_MIN_LENGTH = 12;

/**
 * The page of an invitation link, `/portal/invitation#<token>`: the token stays in the fragment (never
 * sent in a URL, so never in a log). It shows whom the invitation is for, then takes a name and a
 * password; `onAccepted` gets the account's email for the sign-in.
 */
export function InvitationPage({ onAccepted }: { onAccepted: (email: string) => void }) {
  const token = decodeURIComponent(window.location.hash.replace(/^#/, ''));
  const invitation = useResource(`invitation ${token}`, () =>
    token ? api('GET', '/api/portal/invitations/{token}', { path: { token } }) : Promise.resolve(null),
  );

  return (
    <main id="main" class="sign-in">
      <h1>Partner portal</h1>
      <h2>Your invitation</h2>
      {!token && (
        <p class="error" role="alert">
          This link holds no invitation: open the whole link you were sent, or ask the pharmacy for a new one.
        </p>
      )}
      {invitation.loading && <Loading what="the invitation" />}
      <ErrorMessage error={invitation.error} />
      {invitation.error !== null && (
        <p>An invitation link works once, for 72 hours, and a newer invitation replaces it: ask the pharmacy for a new one.</p>
      )}
      {invitation.data && <AcceptForm token={token} invitation={invitation.data} onAccepted={onAccepted} />}
      <p>
        Already have an account? <a href="/portal">Sign in</a>
      </p>
    </main>
  );
}

function AcceptForm({
  token,
  invitation,
  onAccepted,
}: {
  token: string;
  invitation: Invitation;
  onAccepted: (email: string) => void;
}) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const { email } = await api('POST', '/api/portal/invitations/accept', {
        body: { token, name, password },
      });
      onAccepted(email);
    });
  };

  return (
    <form onSubmit={handler(submit)} aria-label="Create your account">
      <dl class="facts">
        <dt>Email</dt>
        <dd>{invitation.email}</dd>
        <dt>Clinic</dt>
        <dd>{invitation.clinic_name}</dd>
        <dt>Role</dt>
        <dd>{invitation.role === 'developer' ? 'developer (reads and changes)' : 'viewer (reads)'}</dd>
        <dt>Link valid until</dt>
        <dd>
          <Time iso={invitation.expires_at} />
        </dd>
      </dl>
      <ErrorMessage error={action.error} />
      <label>
        Name
        <input
          name="name"
          autocomplete="name"
          required
          maxLength={200}
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
      </label>
      <label>
        Password
        <input
          type="password"
          name="password"
          autocomplete="new-password"
          required
          minLength={PASSWORD_MIN_LENGTH}
          aria-describedby="password-rules"
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
      </label>
      <p class="hint" id="password-rules">
        {PASSWORD_MIN_LENGTH} characters or more, and hard to guess: a few unrelated words work well.
      </p>
      <button type="submit" disabled={action.busy}>
        Create account
      </button>
    </form>
  );
}
