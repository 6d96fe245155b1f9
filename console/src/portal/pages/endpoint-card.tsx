import { useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { ConfirmButton } from '../../components/confirm';
import { Disclosure } from '../../components/disclosure';
import { FormActions } from '../../components/form-actions';
import { handler } from '../../components/events';
import { ErrorMessage, Notice, Time } from '../../components/feedback';
import { useCanChange } from '../session';
import type { Endpoint, EndpointWithSecret, TestCallOutcome } from '../types';
import { EventTypeFields, describeEventTypes, type EventTypeChoice } from './event-type-fields';
import { LimitFields, limitsBody } from './limit-fields';

/** How long the previous secret keeps signing after a rotation (the API takes 0 to 24 hours). */
const PREVIOUS_VALID = [
  { hours: 0, label: 'Stops now' },
  { hours: 1, label: '1 hour' },
  { hours: 24, label: '24 hours' },
] as const;

/** One endpoint: its state and limits, and (for developers) what can be done to it. */
export function EndpointCard({
  endpoint,
  onChange,
  onRotated,
}: {
  endpoint: Endpoint;
  onChange: (endpoint: Endpoint) => void;
  onRotated: (rotated: EndpointWithSecret) => void;
}) {
  const canChange = useCanChange();
  const action = useAction();
  const [notice, setNotice] = useState('');
  const headingId = `endpoint-${endpoint.webhook_id}`;
  const webhook = { webhookId: endpoint.webhook_id };

  const act = async (run: () => Promise<string>) => {
    await action.run(async () => {
      setNotice('');
      setNotice(await run());
    });
  };

  const setEnabled = (enabled: boolean) =>
    act(async () => {
      const changed = enabled
        ? await api('POST', '/api/portal/webhooks/{webhookId}/enable', { path: webhook })
        : await api('POST', '/api/portal/webhooks/{webhookId}/disable', { path: webhook });
      onChange(changed);
      return enabled ? 'The endpoint is enabled: deliveries resume.' : 'The endpoint is disabled: no delivery is attempted.';
    });

  return (
    <section class="endpoint" aria-labelledby={headingId}>
      <h2 id={headingId} class="breakable">
        {endpoint.url}
      </h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`status status-${endpoint.status}`}>{endpoint.status}</span>
          {endpoint.disabled_reason && <> ({endpoint.disabled_reason})</>}
        </dd>
        <dt>Limits</dt>
        <dd>
          {endpoint.max_in_flight} at once;{' '}
          {endpoint.max_per_second === null ? 'no per-second limit' : `${endpoint.max_per_second} per second`}
        </dd>
        <dt>Event types</dt>
        <dd>{describeEventTypes(endpoint.event_types)}</dd>
        {endpoint.failing_since && (
          <>
            <dt>Failing since</dt>
            <dd>
              <Time iso={endpoint.failing_since} />
            </dd>
          </>
        )}
        {endpoint.paused_until && (
          <>
            <dt>Paused until</dt>
            <dd>
              <Time iso={endpoint.paused_until} /> <span class="muted">(it asked us to slow down)</span>
            </dd>
          </>
        )}
        {endpoint.previous_secret_expires_at && (
          <>
            <dt>Previous secret signs until</dt>
            <dd>
              <Time iso={endpoint.previous_secret_expires_at} />
            </dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <Time iso={endpoint.created_at} />
        </dd>
        <dt>Deliveries</dt>
        <dd>
          <a href={`/portal/deliveries?webhook_id=${endpoint.webhook_id}`}>Deliveries to this endpoint</a>
        </dd>
      </dl>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={action.error} />
      {canChange && (
        <div class="endpoint-actions">
          <div class="actions">
            <button
              type="button"
              disabled={action.busy}
              onClick={handler(() =>
                act(async () => {
                  const outcome = await api('POST', '/api/portal/webhooks/{webhookId}/test', {
                    path: webhook,
                  });
                  return describeTest(outcome);
                }),
              )}
            >
              Send test event
            </button>
            {endpoint.status === 'active' ? (
              <ConfirmButton
                label="Disable"
                question="Disable this endpoint? No delivery is attempted until it is enabled."
                confirm="Yes, disable"
                busy={action.busy}
                onConfirm={() => setEnabled(false)}
              />
            ) : (
              <button type="button" disabled={action.busy} onClick={handler(() => setEnabled(true))}>
                Enable
              </button>
            )}
          </div>
          <Disclosure label="Edit limits">
            {(close) => (
              <EditLimitsForm
                endpoint={endpoint}
                onCancel={close}
                onSaved={(updated) => {
                  onChange(updated);
                  close();
                }}
              />
            )}
          </Disclosure>
          <Disclosure label="Edit event types">
            {(close) => (
              <EditEventTypesForm
                endpoint={endpoint}
                onCancel={close}
                onSaved={(updated) => {
                  onChange(updated);
                  close();
                }}
              />
            )}
          </Disclosure>
          <Disclosure label="Rotate secret">
            {(close) => (
              <RotateForm
                webhookId={endpoint.webhook_id}
                onCancel={close}
                onRotated={(rotated) => {
                  onRotated(rotated);
                  close();
                }}
              />
            )}
          </Disclosure>
          {/* A disabled endpoint is sent nothing (the API answers 409): enable it first. */}
          {endpoint.status === 'active' && (
            <Disclosure label="Recover deliveries">
              {(close) => <RecoverForm webhookId={endpoint.webhook_id} onCancel={close} onDone={setNotice} />}
            </Disclosure>
          )}
        </div>
      )}
    </section>
  );
}

/** What the test call got: the endpoint's answer and how long it took, or why there was none. */
function describeTest(outcome: TestCallOutcome): string {
  const answer = outcome.status_code === null ? (outcome.error ?? 'no answer') : `HTTP ${outcome.status_code}`;
  return outcome.delivered
    ? `Test event delivered: ${answer} in ${outcome.duration_ms} ms.`
    : `Test event not delivered: ${answer} after ${outcome.duration_ms} ms (see Deliveries).`;
}

function EditLimitsForm({
  endpoint,
  onCancel,
  onSaved,
}: {
  endpoint: Endpoint;
  onCancel: () => void;
  onSaved: (endpoint: Endpoint) => void;
}) {
  const [maxInFlight, setMaxInFlight] = useState(String(endpoint.max_in_flight));
  const [maxPerSecond, setMaxPerSecond] = useState(endpoint.max_per_second === null ? '' : String(endpoint.max_per_second));
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      onSaved(
        await api('PATCH', '/api/portal/webhooks/{webhookId}', {
          path: { webhookId: endpoint.webhook_id },
          body: limitsBody(maxInFlight, maxPerSecond),
        }),
      );
    });
  };
  return (
    <form onSubmit={handler(submit)} aria-label="Edit limits">
      <LimitFields
        maxInFlight={maxInFlight}
        maxPerSecond={maxPerSecond}
        onMaxInFlight={setMaxInFlight}
        onMaxPerSecond={setMaxPerSecond}
      />
      <FormActions action={action} submit="Save limits" onCancel={onCancel} />
    </form>
  );
}

function EditEventTypesForm({
  endpoint,
  onCancel,
  onSaved,
}: {
  endpoint: Endpoint;
  onCancel: () => void;
  onSaved: (endpoint: Endpoint) => void;
}) {
  const [eventTypes, setEventTypes] = useState<EventTypeChoice>(endpoint.event_types);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      onSaved(
        await api('PATCH', '/api/portal/webhooks/{webhookId}', {
          path: { webhookId: endpoint.webhook_id },
          body: { event_types: eventTypes },
        }),
      );
    });
  };
  return (
    <form onSubmit={handler(submit)} aria-label="Edit event types">
      <EventTypeFields value={eventTypes} onChange={setEventTypes} />
      <FormActions action={action} submit="Save event types" onCancel={onCancel} />
    </form>
  );
}

function RotateForm({
  webhookId,
  onCancel,
  onRotated,
}: {
  webhookId: string;
  onCancel: () => void;
  onRotated: (rotated: EndpointWithSecret) => void;
}) {
  const [hours, setHours] = useState<number>(24);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      onRotated(
        await api('POST', '/api/portal/webhooks/{webhookId}/rotate-secret', {
          path: { webhookId },
          body: { previous_valid_hours: hours },
        }),
      );
    });
  };
  return (
    <form onSubmit={handler(submit)} aria-label="Rotate secret">
      <label>
        Previous secret keeps signing
        <select value={hours} onChange={(event) => setHours(Number(event.currentTarget.value))}>
          {PREVIOUS_VALID.map((option) => (
            <option key={option.hours} value={option.hours}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      <FormActions action={action} submit="Rotate signing secret" onCancel={onCancel} />
    </form>
  );
}

/** After an outage: every failed delivery to the endpoint since a time is sent again now. */
function RecoverForm({
  webhookId,
  onCancel,
  onDone,
}: {
  webhookId: string;
  onCancel: () => void;
  onDone: (notice: string) => void;
}) {
  const [since, setSince] = useState('');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const { requeued } = await api('POST', '/api/portal/webhooks/{webhookId}/recover', {
        path: { webhookId },
        body: { since: new Date(since).toISOString() },
      });
      onDone(`${requeued === 1 ? '1 failed delivery' : `${requeued} failed deliveries`} queued for an attempt now.`);
      onCancel();
    });
  };
  return (
    <form onSubmit={handler(submit)} aria-label="Recover deliveries">
      <label>
        Send failed deliveries again since
        <input type="datetime-local" required value={since} onInput={(event) => setSince(event.currentTarget.value)} />
      </label>
      <FormActions action={action} submit="Recover" onCancel={onCancel} />
    </form>
  );
}
