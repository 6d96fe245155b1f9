import { describe, expect, it } from 'vitest';
import { allowedNext, movesOf, ORDER_STATUSES } from '../../src/orders/order-status.js';

/* The moves an order may make now, which the console offers as buttons (issue 39, item 11). */
describe('movesOf (pure)', () => {
  it.each(ORDER_STATUSES)('when an order is %s and never shipped, then its moves are its status’s', (status) => {
    expect(movesOf({ status, shipped_at: null })).toEqual(allowedNext(status));
  });

  it('when an order is held after it shipped (a delivery exception), then it has no move: Cancel is not offered', () => {
    expect(allowedNext('on_hold')).toContain('cancelled');
    expect(movesOf({ status: 'on_hold', shipped_at: '2030-01-02T15:00:00.000Z' })).toEqual([]);
  });

  it('when a shipped order is read, then it may only be delivered', () => {
    expect(movesOf({ status: 'shipped', shipped_at: '2030-01-02T15:00:00.000Z' })).toEqual(['delivered']);
  });
});
