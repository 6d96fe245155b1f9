/**
 * A strict reader of the two text formats GET /metrics answers with, so that tests check what a
 * Prometheus server would parse: every sample belongs to a family declared before it with a name
 * its type allows, labels and values are well formed, and OpenMetrics has no blank line and ends
 * with `# EOF`. Throws on the first line that breaks a rule.
 */

export type Format = 'prometheus' | 'openmetrics';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  type: string;
  help?: string;
  samples: Sample[];
}

export interface Exposition {
  families: Map<string, Family>;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped', 'unknown', 'info', 'stateset', 'gaugehistogram'];

/** The sample names a family of this type may have, in this format. */
function sampleNamesOf(family: string, type: string, format: Format): string[] {
  switch (type) {
    case 'counter':
      return format === 'openmetrics' ? [`${family}_total`, `${family}_created`] : [family];
    case 'histogram':
      return [`${family}_bucket`, `${family}_sum`, `${family}_count`, `${family}_created`];
    case 'summary':
      return [family, `${family}_sum`, `${family}_count`, `${family}_created`];
    default:
      return [family];
  }
}

export function parseExposition(text: string, format: Format): Exposition {
  const families = new Map<string, Family>();
  const samples: Sample[] = [];
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const lines = text.slice(0, -1).split('\n');
  let current: string | null = null;
  lines.forEach((line, index) => {
    const where = `line ${index + 1} (${JSON.stringify(line)})`;
    if (format === 'openmetrics' && index === lines.length - 1) {
      if (line !== '# EOF') throw new Error(`OpenMetrics must end with "# EOF", got ${where}`);
      return;
    }
    if (line === '') {
      if (format === 'openmetrics') throw new Error(`blank ${where} in OpenMetrics`);
      return;
    }
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name = '', rest = ''] = meta;
      if (!NAME.test(name)) throw new Error(`bad metric name at ${where}`);
      if (format === 'openmetrics' && current !== name && families.has(name))
        throw new Error(`family ${name} interleaved at ${where}`);
      current = name;
      const family = families.get(name) ?? { type: 'untyped', samples: [] };
      if (kind === 'TYPE') {
        if (!TYPES.includes(rest)) throw new Error(`unknown type at ${where}`);
        if (family.samples.length > 0) throw new Error(`TYPE after samples at ${where}`);
        family.type = rest;
      } else {
        family.help = rest;
      }
      families.set(name, family);
      return;
    }
    if (line.startsWith('#')) {
      if (format === 'openmetrics') throw new Error(`unexpected comment at ${where}`);
      return;
    }
    const sample = parseSample(line, where);
    const family = current === null ? undefined : families.get(current);
    if (!family || current === null || !sampleNamesOf(current, family.type, format).includes(sample.name)) {
      throw new Error(
        `sample ${sample.name} does not belong to the family declared before it (${current ?? 'none'}) at ${where}`,
      );
    }
    family.samples.push(sample);
    samples.push(sample);
  });
  return { families, samples };
}

function parseSample(line: string, where: string): Sample {
  const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)( -?\d+(\.\d+)?)?$/.exec(line);
  if (!match) throw new Error(`malformed sample at ${where}`);
  const [, name = '', rawLabels, rawValue = ''] = match;
  const value = parseValue(rawValue);
  if (value === null) throw new Error(`bad value at ${where}`);
  return { name, labels: rawLabels ? parseLabels(rawLabels.slice(1, -1), where) : {}, value };
}

function parseValue(raw: string): number | null {
  if (raw === '+Inf') return Infinity;
  if (raw === '-Inf') return -Infinity;
  if (/^nan$/i.test(raw)) return NaN;
  const value = Number(raw);
  return raw.trim() === '' || Number.isNaN(value) ? null : value;
}

function parseLabels(text: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const match = /^([^=]+)="((?:[^"\\]|\\.)*)"(,|$)/.exec(rest);
    if (!match) throw new Error(`malformed labels at ${where}`);
    const [all, name = '', value = ''] = match;
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name ${name} at ${where}`);
    if (name in labels) throw new Error(`label ${name} repeated at ${where}`);
    labels[name] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(all.length);
  }
  return labels;
}
