import { describe, expect, it } from 'vitest';
import { EVENT_OF_MOVE, moveNotice } from '../../console/src/portal/sandbox-events.js';
import { EVENT_OF } from '../../src/orders/order-transition.js';
import { ORDER_STATUSES } from '../../src/orders/order-status.js';

/** Issue 28: the portal's sandbox said "its webhook event is on its way" after a move that sends none. */
describe('the sandbox page\u2019s notice after a move', () => {
  it('when the page names the event of a move, then it is the one the server sends, for every status', () => {
    for (const status of ORDER_STATUSES) expect(EVENT_OF_MOVE[status], status).toBe(EVENT_OF[status]);
  });

  it('when an order moves to processing, then the notice says no event is sent', () => {
    expect(moveNotice('o-1', 'processing')).toBe(
      'Order o-1 is now processing. This move sends no webhook event (shipped, delivered and cancelled do).',
    );
    expect(moveNotice('o-1', 'shipped')).toBe('Order o-1 is now shipped: its webhook event order.fulfilled is on its way.');
  });
});
