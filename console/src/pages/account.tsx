import { api, type Session } from '../api';
import { TotpSettings } from '../components/totp-settings';
import { useSession, useSetSession } from '../session';

/** The signed-in staff member's own account: who they are, and their second factor (every role). */
export function AccountPage() {
  const session = useSession();
  const setSession = useSetSession();
  return (
    <>
      <h1>Account</h1>
      {session.totp_required && (
        <p class="notice" role="status">
          This server requires two-step sign-in for admins: turn it on below to use the console.
        </p>
      )}
      <dl class="facts">
        <dt>Name</dt>
        <dd>{session.name}</dd>
        <dt>Email</dt>
        <dd>{session.email}</dd>
        <dt>Role</dt>
        <dd>{session.role}</dd>
      </dl>
      <TotpSettings
        path="/api/admin/account/totp"
        enabled={session.totp_enabled}
        change={async (method, path, body) => setSession(await api<Session>(method, path, body))}
      />
    </>
  );
}
