import { useState } from 'preact/hooks';
import { useClinics } from '../components/clinics';
import { ErrorMessage } from '../components/feedback';
import { Deliveries } from './webhooks/deliveries';
import { DisabledEndpoints } from './webhooks/disabled-endpoints';

/** Webhooks: the delivery log with each delivery's attempts and Retry, and the disabled endpoints with Re-enable. */
export function WebhooksPage() {
  const clinics = useClinics();
  // Re-enabling an endpoint with its failed deliveries queued again changes the log: it loads again.
  const [generation, setGeneration] = useState(0);
  return (
    <>
      <h1>Webhooks</h1>
      <ErrorMessage error={clinics.error} />
      <Deliveries clinics={clinics} generation={generation} />
      <DisabledEndpoints clinics={clinics} onRedelivered={() => setGeneration((n) => n + 1)} />
    </>
  );
}
