import type { OperatorData } from '../api-types';
import { Empty, Time } from './feedback';

/** An attempt as the operator API shows it (numbered, with the response body). */
type OperatorAttempt = OperatorData<'getOperatorWebhookDelivery'>['attempts'][number];

/**
 * One attempt of a webhook delivery, as the operator API and the portal API both show it: the
 * portal's carry no number (they are in order) and never the endpoint's response body.
 */
export type AttemptRow = Pick<OperatorAttempt, 'attempted_at' | 'duration_ms' | 'response_status' | 'error' | 'throttled'> &
  Partial<Pick<OperatorAttempt, 'attempt_number' | 'response_body'>>;

/** A delivery's attempts: number, time, duration, the status answered (or none) and the error. */
export function AttemptsTable({ attempts }: { attempts: readonly AttemptRow[] }) {
  if (attempts.length === 0) return <Empty>No attempt yet.</Empty>;
  return (
    <div class="table-wrap">
      <table>
        <caption>Attempts</caption>
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Time</th>
            <th scope="col">Duration</th>
            <th scope="col">Status</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((attempt, index) => (
            <tr key={attempt.attempt_number ?? index}>
              <td>{attempt.attempt_number ?? index + 1}</td>
              <td>
                <Time iso={attempt.attempted_at} />
              </td>
              <td class="nowrap">{attempt.duration_ms} ms</td>
              <td>
                {attempt.response_status ?? <span class="muted">no answer</span>}
                {attempt.throttled && <span class="muted"> (throttled: not held against the endpoint)</span>}
              </td>
              <td>
                {attempt.error ?? <span class="muted">—</span>}
                {attempt.response_body && (
                  <details>
                    <summary>Response body</summary>
                    <pre>{attempt.response_body}</pre>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** An attempt's outcome: the HTTP status received, and the error recorded (why there was no status, or what it meant). */
export function AttemptResult({ status, error }: { status: number | null; error: string | null }) {
  if (status === null && error === null) return null;
  const statusText = status === null ? null : `HTTP ${status}`;
  return (
    <>
      {statusText}
      {/* The worker records "HTTP 500" as the error of a 500: said once. */}
      {error !== null && error !== statusText && (
        <>
          {statusText && <br />}
          <span class={statusText ? 'muted' : undefined}>{error}</span>
        </>
      )}
    </>
  );
}
