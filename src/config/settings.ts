import { ACCESS_SETTINGS } from './access.settings.js';
import { EDGE_SETTINGS } from './edge.settings.js';
import { EVENTS_SETTINGS } from './events.settings.js';
import { PHARMACY_SETTINGS } from './pharmacy.settings.js';
import { SERVER_SETTINGS } from './server.settings.js';
import type { Settings, Values } from './setting.js';

/**
 * Every environment variable the server, the worker and the command line read, in the groups and
 * the order docs/configuration.md lists them. A new setting is one declaration in the group of its
 * concern (CONTRIBUTING.md, "Adding a setting").
 */
export const SETTING_GROUPS: readonly { readonly title: string; readonly settings: Settings }[] = [
  { title: 'The server', settings: SERVER_SETTINGS },
  { title: 'Requests, proxies and TLS', settings: EDGE_SETTINGS },
  { title: 'Webhooks, the event log and the request log', settings: EVENTS_SETTINGS },
  { title: 'Operators, sign-in and keys', settings: ACCESS_SETTINGS },
  { title: 'The pharmacy', settings: PHARMACY_SETTINGS },
];

export const SETTINGS = {
  ...SERVER_SETTINGS,
  ...EDGE_SETTINGS,
  ...EVENTS_SETTINGS,
  ...ACCESS_SETTINGS,
  ...PHARMACY_SETTINGS,
};

/** The settings as read: each variable's typed value, its default applied. */
export type SettingValues = Values<typeof SETTINGS>;
