import { api } from '../../api';
import { TotpSettings } from '../../components/totp-settings';
import { usePortalSession, useSetPortalSession } from '../session';
import type { PortalSession } from '../types';

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
        path="/api/portal/account/totp"
        enabled={session.totp_enabled}
        change={async (method, path, body) => setSession(await api<PortalSession>(method, path, body))}
      />
    </>
  );
}
