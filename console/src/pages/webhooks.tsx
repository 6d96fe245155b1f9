import { useState } from 'preact/hooks';
import { useClinics } from '../components/clinics';
import { ErrorMessage } from '../components/feedback';
import { Deliveries } from './webhooks/deliveries';
import { DisabledEndpoints } from './webhooks/disabled-endpoints';
import { ActiveEndpoints } from './webhooks/endpoints';

/**
 * Webhooks: the live endpoints with Recover, the delivery log (each delivery's endpoint host and
 * order, its attempts, Retry), and the disabled endpoints with Re-enable.
 */
export function WebhooksPage() {
  const clinics = useClinics();
  // Recovering an endpoint, or re-enabling one with its failed deliveries queued again, changes the log: it loads again.
  const [generation, setGeneration] = useState(0);
  const reload = () => setGeneration((n) => n + 1);
  return (
    <>
      <h1>Webhooks</h1>
      <ErrorMessage error={clinics.error} />
      <ActiveEndpoints clinics={clinics} generation={generation} onRecovered={reload} />
      <Deliveries clinics={clinics} generation={generation} />
      <DisabledEndpoints clinics={clinics} onRedelivered={reload} />
    </>
  );
}
