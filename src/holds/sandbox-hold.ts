import { holdReasonOf, type WaitingOn } from './hold-reasons.js';
import type { HoldInput } from './place-hold.service.js';

/**
 * The sandbox's hold (the partner API's and the portal's): any catalog code, with defaults a
 * partner testing its handling needs no thought for: the message is the reason's text, and `other`
 * waits on the partner unless `waiting_on` says otherwise.
 */
export function sandboxHoldInput(body: {
  reason_code: string;
  message?: string | undefined;
  waiting_on?: WaitingOn | undefined;
}): HoldInput {
  const reason = holdReasonOf(body.reason_code);
  return {
    reason_code: body.reason_code,
    message: body.message ?? reason?.reason ?? body.reason_code,
    waiting_on: body.waiting_on ?? (reason?.waiting_on === null ? 'partner' : undefined),
  };
}
