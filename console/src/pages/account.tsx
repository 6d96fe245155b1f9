import { api } from '../api';
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
        enabled={session.totp_enabled}
        start={() => api('POST', '/api/admin/account/totp')}
        change={async (action, code) =>
          setSession(
            action === 'confirm'
              ? await api('POST', '/api/admin/account/totp/confirm', { body: { code } })
              : await api('DELETE', '/api/admin/account/totp', { body: { code } }),
          )
        }
      />
    </>
  );
}
