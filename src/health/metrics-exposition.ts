import { Registry } from 'prom-client';

/**
 * The two text formats a Prometheus server reads, chosen from its `Accept` header, and how each is
 * rendered from the runtime's one registry.
 *
 * Why OpenMetrics is rendered here rather than by prom-client: prom-client 15 renders OpenMetrics
 * only from a registry whose content type is OpenMetrics, and while doing so it renames every
 * counter it renders (`metric.name` loses its `_total`, for good). `setContentType` on the shared
 * registry would change the format of a concurrent scrape, and a second registry holding the same
 * metrics (`Registry.merge`) would still rename them, so the next plain-text scrape would publish
 * `rate_limit_rejections` instead of `rate_limit_rejections_total`. Instead the registry stays in
 * the Prometheus text format and is never changed by a scrape; OpenMetrics is written from
 * `getMetricsAsJSON()`, which only reads.
 */

export type ExpositionFormat = 'prometheus' | 'openmetrics';

export const CONTENT_TYPES: Record<ExpositionFormat, string> = {
  prometheus: Registry.PROMETHEUS_CONTENT_TYPE,
  openmetrics: Registry.OPENMETRICS_CONTENT_TYPE,
};

/**
 * OpenMetrics 1.0.0 when the client prefers it (Prometheus asks for it first), the Prometheus text
 * format 0.0.4 otherwise: for `text/plain`, `*∕*`, no Accept at all, and anything we cannot produce
 * (never a 406: a scraper that gets text it did not list still parses it better than an error).
 * Only OpenMetrics without a version or at version 1.0.0 counts: 0.0.1 is an older draft.
 */
export function negotiateExposition(accept: string | undefined): ExpositionFormat {
  if (accept === undefined) return 'prometheus';
  let openMetrics = 0;
  let text = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const param = (key: string) => params.find((p) => p.startsWith(`${key}=`))?.slice(key.length + 1);
    const q = param('q') === undefined ? 1 : Number(param('q'));
    if (!Number.isFinite(q)) continue;
    const version = param('version');
    if (type === 'application/openmetrics-text' && (version === undefined || version === '1.0.0')) {
      openMetrics = Math.max(openMetrics, q);
    } else if (type === 'text/plain' || type === 'text/*' || type === '*/*') {
      text = Math.max(text, q);
    }
  }
  return openMetrics > 0 && openMetrics >= text ? 'openmetrics' : 'prometheus';
}

/** The registry's metrics in the given format; reads the registry, never changes it. */
export async function renderMetrics(registry: Registry, format: ExpositionFormat): Promise<string> {
  return format === 'openmetrics' ? renderOpenMetrics(registry) : registry.metrics();
}

/**
 * OpenMetrics 1.0.0 text: a counter's family is named without `_total` and its sample with it;
 * histogram samples keep prom-client's `_bucket`/`_sum`/`_count`; no blank lines; `# EOF` last.
 */
async function renderOpenMetrics(registry: Registry): Promise<string> {
  const lines: string[] = [];
  for (const family of await registry.getMetricsAsJSON()) {
    // prom-client's typings say an enum; the value is the type's name ('counter', 'gauge'...).
    const type = String(family.type);
    const name = type === 'counter' ? family.name.replace(/_total$/, '') : family.name;
    lines.push(`# HELP ${name} ${escape(family.help)}`, `# TYPE ${name} ${type}`);
    for (const sample of family.values as { value: number; labels: object; metricName?: string }[]) {
      const sampleName = sample.metricName ?? (type === 'counter' ? `${name}_total` : name);
      lines.push(`${sampleName}${labelsOf(sample.labels)} ${numberOf(sample.value)}`);
    }
  }
  lines.push('# EOF');
  return `${lines.join('\n')}\n`;
}

function labelsOf(labels: object): string {
  const pairs = Object.entries(labels as Record<string, string | number | undefined>)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}="${escape(typeof value === 'number' ? numberOf(value) : String(value))}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function numberOf(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** OpenMetrics escapes backslash, newline and double quote in help texts and label values. */
function escape(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}
