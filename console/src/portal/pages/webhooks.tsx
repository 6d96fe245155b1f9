import { useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { Disclosure } from '../../components/disclosure';
import { FormActions } from '../../components/form-actions';
import { handler } from '../../components/events';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../../components/feedback';
import { ShownOnce } from '../../components/shown-once';
import { useResource } from '../../components/use-resource';
import { ReadOnlyNote } from '../read-only';
import { useCanChange } from '../session';
import type { Endpoint, EndpointWithSecret } from '../types';
import { EndpointCard } from './endpoint-card';
import { EventTypeFields, type EventTypeChoice } from './event-type-fields';
import { LimitFields, limitsBody } from './limit-fields';

/** A signing secret just issued (a new endpoint, or a rotation), with the endpoint it signs for. */
export interface IssuedSecret extends EndpointWithSecret {
  rotated: boolean;
}

/** The clinic's webhook endpoints; developers add, tune, disable, rotate, test and recover them. */
export function WebhooksPage() {
  const canChange = useCanChange();
  const list = useResource('portal webhooks', () => api('GET', '/api/portal/webhooks'));
  const [issued, setIssued] = useState<IssuedSecret | null>(null);

  const replace = (endpoint: Endpoint) => {
    const webhooks = list.data?.webhooks ?? [];
    list.setData({ webhooks: webhooks.map((w) => (w.webhook_id === endpoint.webhook_id ? endpoint : w)) });
  };

  return (
    <>
      <h1>Webhooks</h1>
      <p>
        Every delivery and its attempts are on the <a href="/portal/deliveries">Deliveries</a> page.
      </p>
      <ReadOnlyNote />
      {canChange && (
        <Disclosure label="New endpoint">
          {(close) => (
            <NewEndpointForm
              onCancel={close}
              onCreated={(created) => {
                setIssued({ ...created, rotated: false });
                list.reload();
                close();
              }}
            />
          )}
        </Disclosure>
      )}
      {issued && <SecretShownOnce issued={issued} onDone={() => setIssued(null)} />}
      <ErrorMessage error={list.error} />
      {list.loading && !list.data && <Loading what="webhook endpoints" />}
      {list.data?.webhooks.length === 0 && <Empty>No webhook endpoint yet.</Empty>}
      {list.data?.webhooks.map((endpoint) => (
        <EndpointCard
          key={endpoint.webhook_id}
          endpoint={endpoint}
          onChange={replace}
          onRotated={(rotated) => {
            replace(rotated.webhook);
            setIssued({ ...rotated, rotated: true });
          }}
        />
      ))}
    </>
  );
}

function NewEndpointForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (created: EndpointWithSecret) => void }) {
  const [url, setUrl] = useState('');
  const [maxInFlight, setMaxInFlight] = useState('');
  const [maxPerSecond, setMaxPerSecond] = useState('');
  const [eventTypes, setEventTypes] = useState<EventTypeChoice>(null);
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      onCreated(
        await api('POST', '/api/portal/webhooks', {
          body: { url, ...limitsBody(maxInFlight, maxPerSecond), event_types: eventTypes },
        }),
      );
    });
  };

  return (
    <form onSubmit={handler(submit)} aria-label="New endpoint">
      <label>
        URL
        <input type="url" required placeholder="https://" value={url} onInput={(event) => setUrl(event.currentTarget.value)} />
      </label>
      <LimitFields
        maxInFlight={maxInFlight}
        maxPerSecond={maxPerSecond}
        onMaxInFlight={setMaxInFlight}
        onMaxPerSecond={setMaxPerSecond}
      />
      <EventTypeFields value={eventTypes} onChange={setEventTypes} />
      <FormActions action={action} submit="Add endpoint" onCancel={onCancel} />
    </form>
  );
}

/** A signing secret, this once; after a rotation, until when the previous one still signs. */
function SecretShownOnce({ issued, onDone }: { issued: IssuedSecret; onDone: () => void }) {
  return (
    <div class="secret issued-key">
      <h2>{issued.rotated ? 'New signing secret' : 'Endpoint added'}</h2>
      <p>
        <strong>Copy the signing secret now: it is shown only once.</strong> Your receiver checks each delivery’s signature with
        it (<code>verifyWebhook</code> of the typed client, or any Standard Webhooks library).
      </p>
      <p>
        Endpoint: <code class="breakable">{issued.webhook.url}</code>
      </p>
      {issued.rotated &&
        (issued.webhook.previous_secret_expires_at ? (
          <Notice>
            Both secrets sign every attempt until <Time iso={issued.webhook.previous_secret_expires_at} />: move your receiver to
            the new one before then.
          </Notice>
        ) : (
          <Notice>The previous secret no longer signs.</Notice>
        ))}
      <ShownOnce label="Signing secret" noun="secret" value={issued.secret} onDone={onDone} />
    </div>
  );
}
