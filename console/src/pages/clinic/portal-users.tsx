import { useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { ConfirmButton } from '../../components/confirm';
import { Disclosure } from '../../components/disclosure';
import { handler } from '../../components/events';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../../components/feedback';
import { ShownOnce } from '../../components/shown-once';
import { useResource } from '../../components/use-resource';
import type { IssuedInvitation, PartnerUser, PortalRole } from '../../portal/types';
import { useSession } from '../../session';

/**
 * The clinic's partner portal accounts (docs/portal.md): admins invite a person (the single-use link,
 * valid 72 hours, shown once to pass on), send a new link (the old one void) and disable an account
 * (its sessions end at once). Pharmacists are told they cannot.
 */
export function PartnerUsers({ clinicId }: { clinicId: string }) {
  const { role } = useSession();
  return (
    <section aria-labelledby="portal-users-heading">
      <h2 id="portal-users-heading">Portal users</h2>
      {role === 'admin' ? (
        <AdminPartnerUsers clinicId={clinicId} />
      ) : (
        <p class="muted">Only admins see and invite portal users.</p>
      )}
    </section>
  );
}

/** The link as the invitee opens it: on this server when the API answers a path. */
const absolute = (url: string) => (url.startsWith('/') ? `${window.location.origin}${url}` : url);

function AdminPartnerUsers({ clinicId }: { clinicId: string }) {
  const users = useResource(`partner-users ${clinicId}`, () =>
    api('GET', '/api/admin/clinics/{clinicId}/partner-users', { path: { clinicId } }),
  );
  const [issued, setIssued] = useState<IssuedInvitation | null>(null);
  const [notice, setNotice] = useState('');
  const action = useAction();

  const replace = (user: PartnerUser) => {
    const list = users.data?.partner_users ?? [];
    users.setData({ partner_users: list.map((u) => (u.partner_user_id === user.partner_user_id ? user : u)) });
  };
  const newLink = (user: PartnerUser) =>
    action.run(async () => {
      setNotice('');
      setIssued(
        await api('POST', '/api/admin/partner-users/{partnerUserId}/invitation', {
          path: { partnerUserId: user.partner_user_id },
        }),
      );
      users.reload();
    });
  const disable = (user: PartnerUser) =>
    action.run(async () => {
      setNotice('');
      replace(
        await api('POST', '/api/admin/partner-users/{partnerUserId}/disable', {
          path: { partnerUserId: user.partner_user_id },
        }),
      );
      setNotice(`${user.email} is disabled and signed out of the portal.`);
    });

  return (
    <>
      <Disclosure label="Invite a portal user">
        {(close) => (
          <InviteForm
            clinicId={clinicId}
            onCancel={close}
            onInvited={(invitation) => {
              setNotice('');
              setIssued(invitation);
              users.reload();
              close();
            }}
          />
        )}
      </Disclosure>
      {issued && (
        <div class="secret issued-key">
          <h3>Invitation link for {issued.partner_user.email}</h3>
          <p>
            <strong>Copy this link now: it is shown only once.</strong> Send it to {issued.partner_user.email}; it works once,
            until <Time iso={issued.expires_at} />, and a new link replaces it.
          </p>
          <ShownOnce label="Invitation link" noun="link" value={absolute(issued.invitation_url)} onDone={() => setIssued(null)} />
        </div>
      )}
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={action.error} />
      <ErrorMessage error={users.error} />
      {users.loading && !users.data && <Loading what="portal users" />}
      {users.data?.partner_users.length === 0 && <Empty>No portal user yet: invite the clinic’s developers.</Empty>}
      {users.data && users.data.partner_users.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Portal users</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Two-step sign-in</th>
                <th scope="col">Invited</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.data.partner_users.map((user) => (
                <tr key={user.partner_user_id}>
                  <td class="breakable">{user.email}</td>
                  <td>{user.name ?? <span class="muted">—</span>}</td>
                  <td>{user.role}</td>
                  <td>
                    {user.status}
                    {user.status === 'disabled' && user.disabled_at && (
                      <>
                        {' '}
                        <Time iso={user.disabled_at} />
                      </>
                    )}
                  </td>
                  <td>{user.totp_enabled ? 'On' : 'Off'}</td>
                  <td>
                    <Time iso={user.created_at} />
                  </td>
                  <td>
                    {user.status !== 'disabled' && (
                      <div class="actions">
                        {user.status === 'invited' && (
                          <button
                            type="button"
                            class="secondary"
                            disabled={action.busy}
                            onClick={handler(() => newLink(user).then(() => undefined))}
                          >
                            New link
                          </button>
                        )}
                        <ConfirmButton
                          label="Disable"
                          question={`Disable ${user.email}? Their portal sessions end at once.`}
                          confirm="Yes, disable"
                          busy={action.busy}
                          onConfirm={() => disable(user)}
                        />
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function InviteForm({
  clinicId,
  onCancel,
  onInvited,
}: {
  clinicId: string;
  onCancel: () => void;
  onInvited: (invitation: IssuedInvitation) => void;
}) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<PortalRole>('developer');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      onInvited(
        await api('POST', '/api/admin/clinics/{clinicId}/partner-users', {
          path: { clinicId },
          body: { email, role },
        }),
      );
    });
  };
  return (
    <form onSubmit={handler(submit)} aria-label="Invite a portal user">
      <div class="inline-fields">
        <label>
          Email
          <input type="email" required value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </label>
        <label>
          Role
          <select value={role} onChange={(event) => setRole(event.currentTarget.value as PortalRole)}>
            <option value="developer">Developer (reads and changes)</option>
            <option value="viewer">Viewer (reads only)</option>
          </select>
        </label>
        <button type="submit" disabled={action.busy}>
          Send invitation
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorMessage error={action.error} />
    </form>
  );
}
