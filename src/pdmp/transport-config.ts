/**
 * Where a state's files go, as PDMP_TRANSPORT (every state) or PDMP_TRANSPORT_<STATE> (one state)
 * says (issue 41, item 6):
 *
 * - `folder:<path>`: files are written into that folder (relative to the working directory, or
 *   absolute); the default is `folder:data/pdmp`;
 * - `sftp://<user>@<host>:<port>/<dir>`: uploaded into `<dir>` (`/` for the login folder), the
 *   port 22 when left out; the password is PDMP_SFTP_PASSWORD_<STATE>, a secret, never in the URL.
 *
 * Anything else is refused with a sentence that starts with the variable's name and never repeats
 * the value (an SFTP URL with a password in it would print the password).
 */

export type PdmpTransportConfig =
  { kind: 'folder'; path: string } | { kind: 'sftp'; username: string; host: string; port: number; directory: string };

export const DEFAULT_PDMP_TRANSPORT = 'folder:data/pdmp';

/** The variables of one state: `PDMP_TRANSPORT_TX`, `PDMP_SFTP_PASSWORD_TX`. */
export const pdmpTransportVariable = (state: string): string => `PDMP_TRANSPORT_${state}`;
export const pdmpSftpPasswordVariable = (state: string): string => `PDMP_SFTP_PASSWORD_${state}`;

const ACCEPTED = 'must be folder:<path> or sftp://<user>@<host>:<port>/<dir>';

/** A transport value read, or the sentence that refuses it (starting with `variable`). */
export function parsePdmpTransport(variable: string, value: string): PdmpTransportConfig | string {
  const text = value.trim();
  if (text.startsWith('folder:')) {
    const path = text.slice('folder:'.length).trim();
    if (path === '' || path.includes('\0')) return `${variable} ${ACCEPTED}: the folder path is empty`;
    return { kind: 'folder', path };
  }
  if (!/^sftp:\/\//i.test(text)) return `${variable} ${ACCEPTED}`;
  // A URL resolves `/a/../b` to `/b` by itself: a folder written with `..` is refused, not rewritten.
  if (/\/(\.|%2e){1,2}(\/|$)/i.test(text.slice('sftp://'.length)))
    return `${variable} ${ACCEPTED}: the folder must not hold . or ..`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${variable} ${ACCEPTED}: it is not a URL`;
  }
  if (url.password !== '') {
    return `${variable} must not hold a password: put it in ${passwordVariableFor(variable)}, which is kept as a secret`;
  }
  if (url.username === '') return `${variable} ${ACCEPTED}: the user name is missing`;
  if (url.hostname === '') return `${variable} ${ACCEPTED}: the host is missing`;
  if (url.search !== '' || url.hash !== '') return `${variable} ${ACCEPTED}: a query or fragment is not accepted`;
  if (url.port === '0') return `${variable} ${ACCEPTED}: the port must be 1 to 65535`;
  let username: string;
  let directory: string;
  try {
    username = decodeURIComponent(url.username);
    directory = decodeURIComponent(url.pathname) || '/';
  } catch {
    return `${variable} ${ACCEPTED}: the user name or folder has a bad %-escape`;
  }
  if (directory.includes('\0')) return `${variable} ${ACCEPTED}: the folder holds a NUL character`;
  return {
    kind: 'sftp',
    username,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? 22 : Number(url.port),
    directory,
  };
}

/** PDMP_TRANSPORT_TX → PDMP_SFTP_PASSWORD_TX; PDMP_TRANSPORT → PDMP_SFTP_PASSWORD_<STATE>. */
function passwordVariableFor(variable: string): string {
  const state = /^PDMP_TRANSPORT_([A-Z]{2})$/.exec(variable)?.[1];
  return pdmpSftpPasswordVariable(state ?? '<STATE>');
}

/** Where a state's files go: its own setting, else the common one, else the default folder. */
export function transportForState(
  state: string,
  settings: { common?: PdmpTransportConfig; byState: Readonly<Record<string, PdmpTransportConfig>> },
): PdmpTransportConfig {
  return settings.byState[state] ?? settings.common ?? { kind: 'folder', path: DEFAULT_PDMP_TRANSPORT.slice('folder:'.length) };
}

/** How a transport is shown in logs and the submission log: the URL without a password. */
export function describeTransport(config: PdmpTransportConfig): string {
  if (config.kind === 'folder') return `folder:${config.path}`;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `sftp://${encodeURIComponent(config.username)}@${host}:${config.port}${config.directory}`;
}
