import { useId, useState } from 'preact/hooks';
import { api, type Role } from '../api';
import type { OperatorData } from '../api-types';
import { useAction } from '../components/action';
import { useClientPages } from '../components/client-pages';
import { ConfirmButton } from '../components/confirm';
import { Disclosure } from '../components/disclosure';
import { handler } from '../components/events';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../components/feedback';
import { Pager } from '../components/pager';
import { useResource } from '../components/use-resource';
import { useSession } from '../session';

type StaffMember = OperatorData<'listOperatorStaffMembers'>['staff'][number];

/** The API refuses shorter passwords (src/staff/staff.schemas.ts). */
const PASSWORD_MIN_LENGTH = 12;

/**
 * Staff accounts (admins only: the navigation hides the page from pharmacists and the API answers
 * them 403). The API answers the whole list; the page pages it.
 */
export function StaffPage() {
  const { role } = useSession();
  return (
    <>
      <h1>Staff</h1>
      {role === 'admin' ? <StaffAccounts /> : <p>Only admins manage staff accounts.</p>}
    </>
  );
}

function StaffAccounts() {
  const session = useSession();
  const staff = useResource('staff', () => api('GET', '/api/admin/staff'));
  const [notice, setNotice] = useState('');
  const disable = useAction();
  const { pager, rows, nextCursor } = useClientPages(staff.data?.staff ?? null, '');

  const disableMember = (member: StaffMember) =>
    disable.run(async () => {
      setNotice('');
      const updated = await api('POST', '/api/admin/staff/{staffId}/disable', { path: { staffId: member.staff_id } });
      const list = staff.data?.staff ?? [];
      staff.setData({ staff: list.map((m) => (m.staff_id === updated.staff_id ? updated : m)) });
      setNotice(`${member.email} is disabled and signed out.`);
    });

  return (
    <>
      <Disclosure label="New staff member">
        {(close) => (
          <NewStaffForm
            onCancel={close}
            onCreated={(member) => {
              setNotice(`${member.email} can now sign in as ${member.role}.`);
              staff.reload();
              close();
            }}
          />
        )}
      </Disclosure>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={staff.error} />
      <ErrorMessage error={disable.error} />
      {staff.loading && !staff.data && <Loading what="staff" />}
      {staff.data?.staff.length === 0 && <Empty>No staff accounts.</Empty>}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((member) => (
                <tr key={member.staff_id}>
                  <td class="breakable">{member.email}</td>
                  <td>{member.name}</td>
                  <td>{member.role}</td>
                  <td>
                    <Time iso={member.created_at} />
                  </td>
                  <td>
                    {member.disabled_at ? (
                      <>
                        Disabled <Time iso={member.disabled_at} />
                      </>
                    ) : (
                      'Active'
                    )}
                  </td>
                  <td>
                    {member.staff_id === session.staff_id ? (
                      <span class="muted">You</span>
                    ) : (
                      !member.disabled_at && (
                        <ConfirmButton
                          label="Disable"
                          question={`Disable ${member.email}? Their sessions end at once.`}
                          confirm="Yes, disable"
                          busy={disable.busy}
                          onConfirm={() => disableMember(member)}
                        />
                      )
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {staff.data && staff.data.staff.length > 0 && <Pager pager={pager} nextCursor={nextCursor} />}
    </>
  );
}

/** Email, name, role and a first password (12 characters at least), which the new member signs in with. */
function NewStaffForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (member: StaffMember) => void }) {
  const [fields, setFields] = useState({ email: '', name: '', role: 'pharmacist' as Role, password: '' });
  const action = useAction();
  const passwordHint = useId();

  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const { staff } = await api('POST', '/api/admin/staff', { body: fields });
      onCreated(staff);
    });
  };

  return (
    <form onSubmit={handler(submit)} aria-label="New staff member">
      <div class="inline-fields">
        <label>
          Email
          <input
            type="email"
            required
            maxLength={254}
            autocomplete="off"
            value={fields.email}
            onInput={(event) => setFields({ ...fields, email: event.currentTarget.value })}
          />
        </label>
        <label>
          Name
          <input
            required
            maxLength={200}
            autocomplete="off"
            value={fields.name}
            onInput={(event) => setFields({ ...fields, name: event.currentTarget.value })}
          />
        </label>
        <label>
          Role
          <select value={fields.role} onChange={(event) => setFields({ ...fields, role: event.currentTarget.value as Role })}>
            <option value="pharmacist">Pharmacist</option>
            <option value="technician">Technician</option>
            <option value="admin">Admin</option>
          </select>
        </label>
        <label>
          Password (at least {PASSWORD_MIN_LENGTH} characters)
          <input
            type="password"
            required
            minLength={PASSWORD_MIN_LENGTH}
            maxLength={256}
            autocomplete="new-password"
            aria-describedby={passwordHint}
            value={fields.password}
            onInput={(event) => setFields({ ...fields, password: event.currentTarget.value })}
          />
        </label>
        <button type="submit" disabled={action.busy}>
          Create staff member
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <p id={passwordHint} class="hint">
        The new member signs in with this password: give it to them in person or over a secure channel.
      </p>
      <p class="hint">
        Pharmacists work the order queue, formularies and webhook deliveries, and read clinics, carriers and the audit trail.
        Admins do everything, staff accounts, API keys and carriers included.
      </p>
      <ErrorMessage error={action.error} />
    </form>
  );
}
