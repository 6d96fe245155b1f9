import { useState } from 'preact/hooks';
import { api, downloadCsv } from '../api';
import type { OperatorData } from '../api-types';
import { useAction } from '../components/action';
import { handler } from '../components/events';
import { Empty, ErrorMessage, Loading, Time } from '../components/feedback';
import { Pager, usePager } from '../components/pager';
import { useUrlFilters } from '../components/url-filters';
import { useResource } from '../components/use-resource';
import { quantityText, shortId, StatusBadge } from './order-shared';

/** A row of GET /api/admin/lots/{lot_number}/orders: an item of an order that received the lot. */
type RecalledItem = OperatorData<'listOperatorLotOrders'>['items'][number];

const FILTERS = ['lot'] as const;
/** The longest lot number a fill records (src/compounding/lot-number.ts). */
const LOT_MAX_LENGTH = 40;

/**
 * Recall (issue 30, item 4; docs/compounding.md#recall): a lot number in, every order of every clinic
 * that received it out (as the preparation's lot or an ingredient's), each row linking to its order;
 * the whole list exported as CSV. The lot is kept in the address, so that a recall can be linked to.
 */
export function RecallPage() {
  const { filters, key, setFilters } = useUrlFilters(FILTERS);
  const [text, setText] = useState(filters.lot);
  const lot = filters.lot.trim();
  return (
    <>
      <h1>Recall</h1>
      <p class="hint">
        Every order that received a lot: as the preparation’s own lot, or as the lot of an ingredient it was made from.
      </p>
      <form
        class="inline search"
        role="search"
        aria-label="Recall a lot"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters({ lot: text.trim() });
        }}
      >
        <label>
          Lot number
          <input
            type="search"
            name="lot"
            size={24}
            maxLength={LOT_MAX_LENGTH}
            spellcheck={false}
            autocomplete="off"
            required
            value={text}
            onInput={(event) => setText(event.currentTarget.value)}
          />
        </label>
        <button type="submit">Find orders</button>
      </form>
      {lot !== '' && <LotOrders key={key} lot={lot} filtersKey={key} />}
    </>
  );
}

function LotOrders({ lot, filtersKey }: { lot: string; filtersKey: string }) {
  const pager = usePager(filtersKey);
  const orders = useResource(`${filtersKey}|${pager.cursor ?? ''}`, () =>
    api('GET', '/api/admin/lots/{lot_number}/orders', { path: { lot_number: lot }, query: { cursor: pager.cursor } }),
  );
  const exporting = useAction();
  return (
    <section aria-labelledby="recall-results">
      <h2 id="recall-results">Orders that received lot {lot}</h2>
      <div class="actions">
        <button
          type="button"
          disabled={exporting.busy}
          onClick={handler(async () => {
            await exporting.run(() => downloadCsv('/api/admin/lots/{lot_number}/orders', { lot_number: lot }, 'recall.csv'));
          })}
        >
          {exporting.busy ? 'Exporting…' : 'Export CSV'}
        </button>
        <span class="muted"> every order of the lot, not only this page</span>
      </div>
      <ErrorMessage error={exporting.error} />
      <ErrorMessage error={orders.error} />
      {orders.loading ? (
        <Loading what="the orders of the lot" />
      ) : orders.data && orders.data.items.length === 0 ? (
        <Empty>No order received this lot.</Empty>
      ) : (
        orders.data && <RecallTable items={orders.data.items} />
      )}
      <Pager pager={pager} nextCursor={orders.data?.next_cursor} label="Pages of the recall" />
    </section>
  );
}

function RecallTable({ items }: { items: RecalledItem[] }) {
  return (
    <div class="table-wrap">
      <table class="queue">
        <caption class="visually-hidden">Orders that received the lot, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Patient</th>
            <th scope="col">Clinic</th>
            <th scope="col">Medication</th>
            <th scope="col">Lot as</th>
            <th scope="col">Status</th>
            <th scope="col">Shipped</th>
            <th scope="col">Order</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.medication_item_id}>
              <td>
                <a href={`/console/orders/${item.medication_request_id}`}>
                  {item.patient.first_name} {item.patient.last_name}
                </a>
              </td>
              <td>{item.clinic_name}</td>
              <td>
                {item.medication} × {quantityText(item)}
                <br />
                <span class="muted">lot {item.fill_lot_number}</span>
              </td>
              <td>{item.match === 'preparation' ? 'Preparation' : `Ingredient: ${item.ingredient ?? ''}`}</td>
              <td>
                <StatusBadge status={item.status} />
              </td>
              <td>
                <Time iso={item.shipped_at} />
              </td>
              <td class="order-ref">
                <code title={item.medication_request_id}>{shortId(item.medication_request_id)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
