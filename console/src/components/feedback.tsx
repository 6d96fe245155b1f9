import type { ComponentChildren } from 'preact';
import { ApiError } from '../api';

/** An API error as staff read it: the message, each named field, and the request id to quote. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const apiError = error instanceof ApiError ? error : null;
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : 'Something went wrong';
  const details = Object.entries(apiError?.details ?? {});
  return (
    <div class="error" role="alert">
      <p>{message}</p>
      {details.length > 0 && (
        <ul>
          {details.map(([field, problem]) => (
            <li key={field}>
              <code>{field}</code> {problem}
            </li>
          ))}
        </ul>
      )}
      {apiError?.requestId && (
        <p class="request-id">
          Request id: <code>{apiError.requestId}</code>
        </p>
      )}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A success message, announced to screen readers. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status" aria-live="polite">
      {children}
    </p>
  );
}

/** An ISO-8601 time shown in the browser's time zone and locale (the value itself on hover). */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  return (
    <time dateTime={iso} title={iso}>
      {new Date(iso).toLocaleString()}
    </time>
  );
}
