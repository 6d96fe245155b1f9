import { api } from '../../api';
import { TotpSettings } from '../../components/totp-settings';
import { usePortalSession, useSetPortalSession } from '../session';

/** The portal user's own account: who they are, and their second factor. */
export function AccountPage() {
  const session = usePortalSession();
  const setSession = useSetPortalSession();
  return (
    <>
      <h1>Account</h1>
      <dl class="facts">
        <dt>Name</dt>
        <dd>{session.name ?? '—'}</dd>
        <dt>Email</dt>
        <dd>{session.email}</dd>
        <dt>Role</dt>
        <dd>{session.role}</dd>
        <dt>Clinic</dt>
        <dd>{session.clinic_name}</dd>
      </dl>
      <TotpSettings
        enabled={session.totp_enabled}
        start={() => api('POST', '/api/portal/account/totp')}
        change={async (action, code) =>
          setSession(
            action === 'confirm'
              ? await api('POST', '/api/portal/account/totp/confirm', { body: { code } })
              : await api('DELETE', '/api/portal/account/totp', { body: { code } }),
          )
        }
      />
    </>
  );
}
