import { api } from '../../api';
import { CopyValue } from '../../components/copy-value';
import { Empty, ErrorMessage, Loading, Time } from '../../components/feedback';
import { useResource } from '../../components/use-resource';

/** The clinic at a glance: environment, clinic id, this minute's rate limit, the last day's errors; where the docs are. */
export function OverviewPage() {
  const overview = useResource('overview', () => api('GET', '/api/portal/overview'));
  const data = overview.data;
  return (
    <>
      <h1>Overview</h1>
      <ErrorMessage error={overview.error} />
      {overview.loading && !data && <Loading what="the overview" />}
      {data && (
        <>
          <dl class="facts">
            <dt>Clinic</dt>
            <dd>{data.clinic_name}</dd>
            <dt>Clinic id</dt>
            <dd>
              <code>{data.clinic_id}</code>
            </dd>
            <dt>Environment</dt>
            <dd>{data.environment === 'development' ? 'development (sandbox: test data only)' : 'production'}</dd>
            <dt>Rate limit this minute</dt>
            <dd>
              {data.rate_limit.used} of {data.rate_limit.limit} requests used; resets <Time iso={data.rate_limit.resets_at} />
            </dd>
            <dt>FHIR R4 base URL</dt>
            <dd>
              <CopyValue value={data.fhir_base_url} noun="FHIR base URL" />
            </dd>
            <dt>SMART configuration</dt>
            <dd>
              <CopyValue value={data.smart_configuration_url} noun="SMART configuration URL" />
            </dd>
            <dt>Requests in the last 24 hours</dt>
            <dd>{data.requests_24h}</dd>
          </dl>
          <section aria-labelledby="errors-heading">
            <h2 id="errors-heading">Errors in the last 24 hours</h2>
            {data.errors_24h.length === 0 ? (
              <Empty>No error answered in the last 24 hours.</Empty>
            ) : (
              <div class="table-wrap">
                <table>
                  <caption class="visually-hidden">Errors in the last 24 hours, by code</caption>
                  <thead>
                    <tr>
                      <th scope="col">Error code</th>
                      <th scope="col">Requests</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.errors_24h.map((error) => (
                      <tr key={error.code}>
                        <td>
                          <code>{error.code}</code>
                        </td>
                        <td>{error.count}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <p>
              <a href="/portal/requests?status=4xx">Client errors (4xx) in the request log</a> ·{' '}
              <a href="/portal/requests?status=5xx">Server errors (5xx) in the request log</a>
            </p>
          </section>
        </>
      )}
      <Documentation />
    </>
  );
}

/** Where a developer goes next: the API's reference and the typed client (the README's "Typed TypeScript client"). */
function Documentation() {
  return (
    <section aria-labelledby="docs-heading">
      <h2 id="docs-heading">Build your integration</h2>
      <ul>
        <li>
          <a href="/docs">API reference</a>: every route, its fields and its errors (OpenAPI), with examples to try.
        </li>
        <li>
          The FHIR R4 API, for an EHR: US Core resources of your patients, practitioners and orders, read with an API key or an
          OAuth client’s token for <code>system/*.rs</code> (SMART backend services); see <code>docs/fhir.md</code>.
        </li>
        <li>
          The typed TypeScript client, <code>@pharmacy/partner-fulfillment-client</code>, in the repository’s{' '}
          <code>clients/typescript</code>: <code>npm install</code> at the repository’s root builds it into{' '}
          <code>clients/typescript/dist</code>, and <code>examples/client.mjs</code> runs as written. Its calls and webhook events
          are typed from the same OpenAPI document, and <code>verifyWebhook(secret, body, headers)</code> checks a delivery’s
          signature.
        </li>
      </ul>
    </section>
  );
}
