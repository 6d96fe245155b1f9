import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { useAction } from '../components/action';
import { Disclosure } from '../components/disclosure';
import { handler } from '../components/events';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../components/feedback';
import { useResource } from '../components/use-resource';
import { useSession } from '../session';
import { ServiceForm, type ServiceInput } from './carrier/service-form';
import { formatDollars, type CatalogueCarrier, type CatalogueService } from './carrier/types';

/**
 * The carrier catalogue: carriers, their services, base and per-state prices, and which services are
 * cold-chain eligible (docs/shipping.md#cold-chain). Admins add carriers and services and change
 * prices and eligibility; pharmacists read. The API answers the whole catalogue (a handful
 * of carriers), so it is not paged.
 */
export function CarriersPage() {
  const { role } = useSession();
  const admin = role === 'admin';
  const catalogue = useResource('carriers', () => api('GET', '/api/admin/carriers'));
  const [notice, setNotice] = useState('');
  const saved = (message: string) => {
    setNotice(message);
    catalogue.reload();
  };

  return (
    <>
      <h1>Carriers</h1>
      {admin ? (
        <Disclosure label="New carrier">
          {(close) => (
            <NewCarrierForm
              onCancel={close}
              onCreated={(carrier) => {
                saved(`${carrier.name} is added: add its services and prices.`);
                close();
              }}
            />
          )}
        </Disclosure>
      ) : (
        <p class="muted">Only admins change carriers and prices.</p>
      )}
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={catalogue.error} />
      {catalogue.loading && !catalogue.data && <Loading what="carriers" />}
      {catalogue.data?.carriers.length === 0 && <Empty>No carriers yet.</Empty>}
      {catalogue.data?.carriers.map((carrier) => (
        <CarrierSection key={carrier.id} carrier={carrier} admin={admin} onSaved={saved} />
      ))}
    </>
  );
}

function CarrierSection({
  carrier,
  admin,
  onSaved,
}: {
  carrier: CatalogueCarrier;
  admin: boolean;
  onSaved: (message: string) => void;
}) {
  const [editing, setEditing] = useState<CatalogueService | null>(null);
  const section = useRef<HTMLElement>(null);
  const editedId = useRef<string | null>(null);
  // Focus goes into the edit form when it opens, and back to its service's Edit button when it closes.
  useEffect(() => {
    if (editing) {
      editedId.current = editing.id;
      section.current?.querySelector<HTMLInputElement>('.panel input')?.focus();
    } else if (editedId.current !== null) {
      section.current?.querySelector<HTMLElement>(`button[data-service="${CSS.escape(editedId.current)}"]`)?.focus();
      editedId.current = null;
    }
  }, [editing?.id]);
  const headingId = `carrier-${carrier.id}`;
  const addService = async (input: ServiceInput) => {
    const service = await api('POST', '/api/admin/carriers/{carrierId}/services', {
      path: { carrierId: carrier.id },
      body: input,
    });
    onSaved(`${service.name} is added to ${carrier.name}.`);
  };
  const updateService = (service: CatalogueService) => async (input: ServiceInput) => {
    const { id: _unchangeable, ...changes } = input;
    await api('PUT', '/api/admin/carriers/{carrierId}/services/{serviceId}', {
      path: { carrierId: carrier.id, serviceId: service.id },
      body: changes,
    });
    setEditing(null);
    onSaved(`${input.name} (${carrier.name}) is saved.`);
  };

  return (
    <section class="carrier" aria-labelledby={headingId} ref={section}>
      <h2 id={headingId}>
        {carrier.name} <code class="muted">{carrier.id}</code>
      </h2>
      <p class="muted">
        Added <Time iso={carrier.created_at} />
      </p>
      {carrier.services.length === 0 ? (
        <Empty>No services yet.</Empty>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Service</th>
                <th scope="col">Service id</th>
                <th scope="col">Base price</th>
                <th scope="col">Prices by state</th>
                <th scope="col">Cold chain</th>
                <th scope="col">Created</th>
                {admin && (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {carrier.services.map((service) => (
                <tr key={service.id}>
                  <td>{service.name}</td>
                  <td>
                    <code>{service.id}</code>
                  </td>
                  <td>{formatDollars(service.price)}</td>
                  <td>
                    <StatePrices prices={service.state_prices} />
                  </td>
                  <td>
                    {service.cold_chain_eligible ? (
                      <span class="tag mark-cold">Cold-chain eligible</span>
                    ) : (
                      <span class="muted">Not eligible</span>
                    )}
                  </td>
                  <td>
                    <Time iso={service.created_at} />
                  </td>
                  {admin && (
                    <td>
                      <button type="button" class="secondary" data-service={service.id} onClick={() => setEditing(service)}>
                        Edit<span class="visually-hidden"> {service.name}</span>
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {admin && editing && (
        <div class="panel">
          <h3>Edit {editing.name}</h3>
          <ServiceForm key={editing.id} service={editing} save={updateService(editing)} onCancel={() => setEditing(null)} />
        </div>
      )}
      {admin && (
        <Disclosure label={`Add service to ${carrier.name}`}>
          {(close) => (
            <ServiceForm
              save={async (input) => {
                await addService(input);
                close();
              }}
              onCancel={close}
            />
          )}
        </Disclosure>
      )}
    </section>
  );
}

function StatePrices({ prices }: { prices: Record<string, number> }) {
  const entries = Object.entries(prices).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <span class="muted">None</span>;
  return (
    <ul class="plain">
      {entries.map(([state, price]) => (
        <li key={state}>
          {state} {formatDollars(price)}
        </li>
      ))}
    </ul>
  );
}

/** Name and an optional id (partners send it as `carrier_id`; derived from the name when empty). */
function NewCarrierForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (carrier: CatalogueCarrier) => void }) {
  const [name, setName] = useState('');
  const [id, setId] = useState('');
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const body = { name, ...(id.trim() ? { id: id.trim() } : {}) };
      onCreated(await api('POST', '/api/admin/carriers', { body }));
    });
  };

  return (
    <form onSubmit={handler(submit)} aria-label="New carrier">
      <div class="inline-fields">
        <label>
          Carrier name
          <input required maxLength={100} value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <label>
          Carrier id (optional)
          <input maxLength={100} placeholder="from the name" value={id} onInput={(event) => setId(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={action.busy}>
          Add carrier
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <p class="hint">Partners send the id as carrier_id; left empty, it is made from the name (Stamps.com → stamps_com).</p>
      <ErrorMessage error={action.error} />
    </form>
  );
}
