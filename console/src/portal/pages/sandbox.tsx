import { useState } from 'preact/hooks';
import { api } from '../../api';
import { handler } from '../../components/events';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../../components/feedback';
import { Pager, usePager } from '../../components/pager';
import { useResource } from '../../components/use-resource';
import { useRefreshHoldCount } from '../hold-count';
import { ReadOnlyNote } from '../read-only';
import { moveNotice } from '../sandbox-events';
import { useCanChange, usePortalSession } from '../session';
import type { SandboxOrder } from '../types';
import { SandboxHoldActions } from './sandbox-hold';
import { SandboxTrackingAction } from './sandbox-tracking';

/**
 * The sandbox (development only): the clinic's orders, each with one button per state it can move to
 * next, by exactly the sandbox API's rules (the tracking number filled in on `shipped`), so that a
 * developer sees their webhooks fire without waiting for the pharmacy.
 */
export function SandboxPage() {
  const { environment } = usePortalSession();
  return (
    <>
      <h1>Sandbox</h1>
      {environment === 'development' ? (
        <SandboxOrders />
      ) : (
        <p>The sandbox exists on development servers only: production orders move as the pharmacy fills them.</p>
      )}
    </>
  );
}

function SandboxOrders() {
  const canChange = useCanChange();
  const pager = usePager('sandbox');
  const [generation, setGeneration] = useState(0);
  const list = useResource(`sandbox ${pager.cursor ?? ''} ${generation}`, () =>
    api('GET', '/api/portal/sandbox/orders', { query: { cursor: pager.cursor } }),
  );
  const reasons = useResource('hold reasons', () => api('GET', '/api/portal/hold-reasons'));
  const refreshHoldCount = useRefreshHoldCount();
  const [moving, setMoving] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<{ notice?: string; error?: unknown } | null>(null);

  const held = (notice: string) => {
    setOutcome({ notice });
    setGeneration((n) => n + 1);
    refreshHoldCount();
  };

  const advance = async (order: SandboxOrder, status: SandboxOrder['status']) => {
    setMoving(order.order_id);
    setOutcome(null);
    try {
      await api('POST', '/api/portal/sandbox/orders/{orderId}/advance', {
        path: { orderId: order.order_id },
        body: { status },
      });
      setOutcome({ notice: moveNotice(order.order_id, status) });
      setGeneration((n) => n + 1);
    } catch (failure) {
      setOutcome({ error: failure });
    } finally {
      setMoving(null);
    }
  };

  return (
    <>
      <p>
        Your clinic’s orders on this development server. Moving one sends the same webhook events as a real fulfillment would
        (shipped, delivered and cancelled each send one; processing none; see <a href="/portal/deliveries">Deliveries</a>).
        Putting one on hold, as the pharmacy would, sends <code>order.on_hold</code>; resuming it <code>order.resumed</code>. An
        order on hold that waits on your clinic is under <a href="/portal/holds">Needs your answer</a>. A shipped order takes
        tracking events for its packages, as the carrier would send them (<code>shipment.updated</code>; every package delivered
        delivers the order, an exception puts it on hold). Open an order’s id to see its journey.
      </p>
      <ReadOnlyNote />
      {outcome?.notice && <Notice>{outcome.notice}</Notice>}
      <ErrorMessage error={outcome?.error} />
      <ErrorMessage error={list.error} />
      <ErrorMessage error={reasons.error} />
      {list.loading && !list.data && <Loading what="orders" />}
      {list.data?.items.length === 0 && (
        <Empty>No order yet: create one with the API (POST /api/external/medication-order).</Empty>
      )}
      {list.data && list.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Orders, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Order id</th>
                <th scope="col">Patient id</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col">Tracking number</th>
                <th scope="col">Move to</th>
                {canChange && <th scope="col">Hold</th>}
                {canChange && <th scope="col">Tracking</th>}
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((order) => (
                <tr key={order.order_id}>
                  <td>
                    <a href={`/portal/orders/${order.order_id}`}>
                      <code class="breakable">{order.order_id}</code>
                    </a>
                  </td>
                  <td>
                    <code class="breakable">{order.patient_id}</code>
                  </td>
                  <td>
                    <Time iso={order.created_at} />
                  </td>
                  <td>
                    <span class={`status status-${order.status}`}>{order.status}</span>
                    {order.hold && (
                      <span class="hint">
                        {' '}
                        {order.hold.reason_code}, waiting on{' '}
                        {order.hold.waiting_on === 'partner' ? 'your clinic' : 'the pharmacy'}
                      </span>
                    )}
                  </td>
                  <td>{order.tracking_number ? <code>{order.tracking_number}</code> : <span class="muted">—</span>}</td>
                  <td>
                    {order.next_statuses.length === 0 ? (
                      <span class="muted">Final</span>
                    ) : canChange ? (
                      <div class="row-actions">
                        {order.next_statuses.map((status) => (
                          <button
                            key={status}
                            type="button"
                            class={status === 'cancelled' ? 'danger' : undefined}
                            disabled={moving === order.order_id}
                            onClick={handler(() => advance(order, status))}
                          >
                            Move to {status}
                          </button>
                        ))}
                      </div>
                    ) : (
                      <span class="muted">{order.next_statuses.join(', ')}</span>
                    )}
                  </td>
                  {canChange && (
                    <td>
                      <SandboxHoldActions order={order} reasons={reasons.data ?? []} onChanged={held} />
                    </td>
                  )}
                  {canChange && (
                    <td>
                      <SandboxTrackingAction order={order} onSent={held} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={list.data?.next_cursor} label="Pages of orders" />
    </>
  );
}
