import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api } from '../api';
import { useAction } from '../components/action';
import { useClientPages } from '../components/client-pages';
import { Disclosure } from '../components/disclosure';
import { handler } from '../components/events';
import { Empty, ErrorMessage, Loading, Time } from '../components/feedback';
import { Pager } from '../components/pager';
import { useResource } from '../components/use-resource';
import { useSession } from '../session';
import { ApiKeys } from './clinic/api-keys';
import { Formulary } from './clinic/formulary';
import { FreeShipping } from './clinic/free-shipping';
import { OAuthClients } from './clinic/oauth-clients';
import { PartnerUsers } from './clinic/portal-users';

/**
 * The clinics. GET /api/admin/clinics answers them all (a pharmacy has tens to a few thousand), so
 * the page filters and pages them in the browser rather than asking the API for pages.
 */
export function ClinicsPage() {
  const { role } = useSession();
  const [search, setSearch] = useState('');
  const clinics = useResource('clinics', () => api('GET', '/api/admin/clinics'));
  const needle = search.trim().toLowerCase();
  const shown = clinics.data?.clinics.filter((clinic) => !needle || clinic.name.toLowerCase().includes(needle)).reverse() ?? null;
  const { pager, rows, nextCursor } = useClientPages(shown, needle);

  return (
    <>
      <h1>Clinics</h1>
      {role === 'admin' && <Disclosure label="New clinic">{(close) => <NewClinicForm onCancel={close} />}</Disclosure>}
      <div class="filters">
        <label>
          Search clinics
          <input type="search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
        </label>
      </div>
      <ErrorMessage error={clinics.error} />
      {clinics.loading && <Loading what="clinics" />}
      {shown?.length === 0 && <Empty>{needle ? 'No clinic has that name.' : 'No clinics yet.'}</Empty>}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Clinics, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Free shipping</th>
                <th scope="col">Created</th>
                <th scope="col">Clinic id</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((clinic) => (
                <tr key={clinic.clinic_id}>
                  <td>
                    <a href={`/console/clinics/${clinic.clinic_id}`}>{clinic.name}</a>
                  </td>
                  <td>{clinic.free_shipping ? 'Yes' : 'No'}</td>
                  <td>
                    <Time iso={clinic.created_at} />
                  </td>
                  <td>
                    <code>{clinic.clinic_id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {shown !== null && shown.length > 0 && <Pager pager={pager} nextCursor={nextCursor} />}
    </>
  );
}

/** Creates a clinic and opens its page, where its API key and formulary come next. */
function NewClinicForm({ onCancel }: { onCancel: () => void }) {
  const { route } = useLocation();
  const [name, setName] = useState('');
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const clinic = await api('POST', '/api/admin/clinics', { body: { name } });
      route(`/console/clinics/${clinic.clinic_id}`);
    });
  };

  return (
    <form onSubmit={handler(submit)} aria-label="New clinic">
      <div class="inline-fields">
        <label>
          Name
          <input required maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={action.busy}>
          Create clinic
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorMessage error={action.error} />
    </form>
  );
}

/** A clinic: its details, free shipping, API keys, OAuth clients and portal users (admins) and formulary. */
export function ClinicPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const clinic = useResource(`clinic ${id}`, () => api('GET', '/api/admin/clinics/{clinicId}', { path: { clinicId: id } }));

  return (
    <>
      <p>
        <a href="/console/clinics">All clinics</a>
      </p>
      <h1>{clinic.data?.name ?? 'Clinic'}</h1>
      {clinic.loading && !clinic.data && <Loading what="the clinic" />}
      <ErrorMessage error={clinic.error} />
      {clinic.data && (
        <>
          <dl class="facts">
            <dt>Clinic id</dt>
            <dd>
              <code>{clinic.data.clinic_id}</code>
            </dd>
            <dt>Created</dt>
            <dd>
              <Time iso={clinic.data.created_at} />
            </dd>
          </dl>
          <FreeShipping clinic={clinic.data} onChange={clinic.setData} />
          <ApiKeys clinicId={clinic.data.clinic_id} />
          <OAuthClients clinicId={clinic.data.clinic_id} />
          <PartnerUsers clinicId={clinic.data.clinic_id} />
          <Formulary clinicId={clinic.data.clinic_id} />
        </>
      )}
    </>
  );
}
