// The renames that make one word name one thing in the code (CONTRIBUTING.md, "Glossary"), applied by
// scripts/rename-identifiers.mjs. Each entry names a declaration by the file it was declared in when
// the list was written; the tool finds it again if the file has moved since.
//
// An identifier entry: { file, name, to } renames a function, class, interface, type, variable or
// namespace import. `member: true` renames a property or method instead (only members that are never
// serialized), and `container` picks among several declarations of the same name in one file (the
// enclosing class, interface, function or variable). `key: true` (with `container`) renames the keys
// of object literals written there, for an object the language service cannot tie to its type. A file entry: { file, to } renames the file in
// its own folder (git mv) and rewrites the import paths.
//
// Never listed here: wire names (paths, fields, events, codes, environment variables, CLI commands,
// OpenAPI operation and schema ids), database tables and columns, migration files, and row types
// named after their table (`WebhookEndpointTable`, `StaffMemberTable`).

/** The glossary's words, for `--count`: identifiers that still use them. */
export const GLOSSARY_WORDS = ['staff', 'operator', 'admin', 'webhook', 'endpoint', 'partner user', 'portal user'];

const operatorApi = [
  // The operator API (/api/admin/*) is "operator" in code; "admin" is a staff role only.
  ['src/http/admin-guard.ts', 'guardAdminRequest', 'guardOperatorRequest'],
  ['src/http/schemas.ts', 'adminErrors', 'operatorErrors'],
  ['src/audit/audit.admin-routes.ts', 'auditAdminRoutes', 'auditOperatorRoutes'],
  ['src/shipping/carrier.admin-routes.ts', 'carrierAdminRoutes', 'carrierOperatorRoutes'],
  ['src/clinics/clinic.admin-routes.ts', 'clinicAdminRoutes', 'clinicOperatorRoutes'],
  ['src/dashboard/dashboard.admin-routes.ts', 'dashboardAdminRoutes', 'dashboardOperatorRoutes'],
  ['src/deprecations/deprecation.admin-routes.ts', 'deprecationAdminRoutes', 'deprecationOperatorRoutes'],
  ['src/oauth/oauth.admin-routes.ts', 'oauthAdminRoutes', 'oauthOperatorRoutes'],
  ['src/orders/order.admin-routes.ts', 'orderAdminRoutes', 'orderOperatorRoutes'],
  ['src/portal/partner-user.admin-routes.ts', 'partnerUserAdminRoutes', 'partnerUserOperatorRoutes'],
  ['src/webhooks/webhook.admin-routes.ts', 'webhookAdminRoutes', 'webhookOperatorRoutes'],
  ['src/orders/order-admin.service.ts', 'AdminListFilters', 'OperatorListFilters'],
  ['src/orders/order-admin.service.ts', 'adminRepo', 'operatorRepo'],
  ['src/orders/order-admin.schemas.ts', 'AdminListQuery', 'OperatorListQuery'],
  ['src/orders/order-admin.schemas.ts', 'AdminOrderDetail', 'OperatorOrderDetail'],
  ['src/orders/order-admin.schemas.ts', 'AdminOrderDetailData', 'OperatorOrderDetailData'],
  ['src/orders/order-admin.schemas.ts', 'AdminOrderSummary', 'OperatorOrderSummary'],
  ['src/orders/order-admin.schemas.ts', 'AdminOrderSummaryData', 'OperatorOrderSummaryData'],
  ['src/orders/order-admin.schemas.ts', 'AdminStatusBody', 'OperatorStatusBody'],
  ['src/orders/order-admin-view.ts', 'toAdminDetail', 'toOperatorDetail'],
  ['src/orders/order-admin-view.ts', 'toAdminSummary', 'toOperatorSummary'],
  ['test/http/openapi-parts.test.ts', 'adminRoutes', 'operatorRoutes'],
  ['src/openapi.ts', 'admin', 'operator', { container: 'documentRoute' }],
  // PostgreSQL's maintenance connection (schemas and databases made and dropped): not the staff role.
  ['test/helpers/test-db.ts', 'adminQuery', 'maintenanceQuery'],
  ['test/startup/two-commands.test.ts', 'adminUrl', 'maintenanceUrl'],
  ['scripts/bench/databases.js', 'adminUrl', 'maintenanceUrl', { container: 'createPostgresDatabases' }],
  ['scripts/bench/databases.js', 'admin', 'maintenance', { container: 'createPostgresDatabases' }],
];

const operatorToken = [
  // The shared secret is "the operator token" (as the start banner, the OpenAPI scheme `operatorToken`
  // and the 401 say); ADMIN_TOKEN stays the name of its environment variable only.
  ['src/config.ts', 'adminToken', 'operatorToken', { member: true, container: 'Config' }],
  ['src/config.ts', 'adminTokenGenerated', 'operatorTokenGenerated', { member: true, container: 'Config' }],
  ['src/config.ts', 'adminToken', 'operatorToken', { container: 'loadConfig' }],
  ['src/config.ts', 'adminTokenGenerated', 'operatorTokenGenerated', { container: 'loadConfig' }],
  ['src/config.ts', 'adminTokenProblem', 'operatorTokenProblem'],
  // The frozen object loadConfig returns is not typed as Config where it is written.
  ['src/config.ts', 'adminToken', 'operatorToken', { key: true, container: 'loadConfig' }],
  ['src/config.ts', 'adminTokenGenerated', 'operatorTokenGenerated', { key: true, container: 'loadConfig' }],
  ['src/secrets/dev-admin-token.ts', 'OperatorToken', 'KeptOperatorToken'],
  ['src/secrets/dev-admin-token.ts', 'adminToken', 'operatorToken', { key: true, container: 'keepDevelopmentAdminToken' }],
  ['src/secrets/dev-admin-token.ts', 'DEV_ADMIN_TOKEN_FILE', 'DEV_OPERATOR_TOKEN_FILE'],
  ['src/secrets/dev-admin-token.ts', 'keepDevelopmentAdminToken', 'keepDevelopmentOperatorToken'],
  ['test/helpers/test-app.ts', 'ADMIN_TOKEN', 'OPERATOR_TOKEN'],
  ['test/http/auth.test.ts', 'PROD_ADMIN_TOKEN', 'PROD_OPERATOR_TOKEN'],
  ['scripts/bench/servers.js', 'ADMIN_TOKEN', 'OPERATOR_TOKEN'],
  // The tests' operator call (`t.admin.get(…)`), made with the operator token.
  ['test/helpers/test-app.ts', 'admin', 'operator', { member: true, container: 'TestApp' }],
];

const endpoints = [
  // A partner's registered URL (a row of webhook_endpoints) is an "endpoint"; "webhook" is the
  // mechanism (events, deliveries, the worker) and the partner API's path and fields (`webhookId`).
  ['src/webhooks/webhook.schemas.ts', 'WebhookUrl', 'EndpointUrl'],
  ['src/webhooks/webhook.schemas.ts', 'RegisterWebhookBody', 'RegisterEndpointBody'],
  ['src/webhooks/webhook.schemas.ts', 'UpdateWebhookBody', 'UpdateEndpointBody'],
  ['src/webhooks/webhook.schemas.ts', 'WebhookRef', 'EndpointRef'],
  ['src/webhooks/webhook.schemas.ts', 'DeleteWebhookQuery', 'DeleteEndpointQuery'],
  ['src/webhooks/webhook.schemas.ts', 'RecoverWebhookBody', 'PartnerRecoverEndpointBody'],
  ['src/webhooks/webhook.schemas.ts', 'ListWebhooksQuery', 'ListEndpointsQuery'],
  ['src/webhooks/webhook.schemas.ts', 'RegisteredWebhook', 'RegisteredEndpoint'],
  ['src/webhooks/webhook.schemas.ts', 'DeletedWebhook', 'DeletedEndpoint'],
  ['src/webhooks/webhook.schemas.ts', 'WebhookEndpoint', 'PartnerEndpoint'],
  ['src/webhooks/webhook.schemas.ts', 'WebhookEndpointView', 'PartnerEndpointView'],
  ['src/webhooks/webhook.service.ts', 'registerWebhook', 'registerEndpointForPartner'],
  ['src/webhooks/webhook.service.ts', 'deleteWebhook', 'deleteEndpoint'],
  ['src/webhooks/webhook.service.ts', 'updateWebhook', 'updateEndpoint'],
  ['src/webhooks/webhook.service.ts', 'listWebhooks', 'listEndpointsForPartner'],
  ['src/webhooks/webhook.service.ts', 'webhookNotFound', 'endpointNotFound'],
  ['src/webhooks/test-call.service.ts', 'testWebhook', 'testEndpoint'],
  ['src/webhooks/delete-by-query.ts', 'webhookRefFromQuery', 'endpointRefFromQuery'],
  ['src/portal/portal-webhooks.service.ts', 'listPortalWebhooks', 'listPortalEndpoints'],
  ['src/portal/portal-webhooks.service.ts', 'addPortalWebhook', 'addPortalEndpoint'],
  ['src/portal/portal-webhooks.service.ts', 'patchPortalWebhook', 'patchPortalEndpoint'],
  ['src/portal/portal-webhooks.service.ts', 'disablePortalWebhook', 'disablePortalEndpoint'],
  ['src/portal/portal-webhooks.service.ts', 'enablePortalWebhook', 'enablePortalEndpoint'],
  ['src/portal/portal-webhooks.service.ts', 'rotatePortalWebhookSecret', 'rotatePortalEndpointSecret'],
  ['src/portal/portal-webhooks.service.ts', 'testPortalWebhook', 'testPortalEndpoint'],
  ['src/portal/portal-webhooks.service.ts', 'recoverPortalWebhook', 'recoverPortalEndpoint'],
  ['src/portal/portal-webhooks.schemas.ts', 'PortalCreateWebhookBody', 'PortalCreateEndpointBody'],
];

const partnerUsers = [
  // A person of a clinic who signs in to the partner portal is a "partner user" (the table, the
  // operator API's path and the audit actor say so); "portal" names the portal itself.
  ['src/portal/portal-user.ts', 'PortalUser', 'PartnerUserIdentity'],
  ['src/portal/portal-user.ts', 'portalUser', 'partnerUser', { member: true, container: 'FastifyRequest' }],
  ['src/portal/portal-user.ts', 'portalUserOf', 'partnerUserOf'],
  ['src/http/denied-access.ts', 'portalUser', 'partnerUser', { container: 'deniedAccessRecorder' }],
  ['src/portal/partner-user.service.ts', 'portalUserOfRow', 'partnerUserIdentityOf'],
  ['test/helpers/portal.ts', 'invitePortalUser', 'invitePartnerUserForTest'],
  ['test/hardening/text-world-portal.ts', 'activePortalUser', 'activePartnerUser'],
  ['console/src/pages/clinic/portal-users.tsx', 'PortalUsers', 'PartnerUsers'],
  ['console/src/pages/clinic/portal-users.tsx', 'AdminPortalUsers', 'AdminPartnerUsers'],
];

export const IDENTIFIER_RENAMES = [...operatorApi, ...operatorToken, ...endpoints, ...partnerUsers].map(
  ([file, name, to, options = {}]) => ({ file, name, to, ...options }),
);

export const FILE_RENAMES = [
  ['src/http/admin-guard.ts', 'operator-guard.ts'],
  ['src/audit/audit.admin-routes.ts', 'audit.operator-routes.ts'],
  ['src/shipping/carrier.admin-routes.ts', 'carrier.operator-routes.ts'],
  ['src/clinics/clinic.admin-routes.ts', 'clinic.operator-routes.ts'],
  ['src/dashboard/dashboard.admin-routes.ts', 'dashboard.operator-routes.ts'],
  ['src/deprecations/deprecation.admin-routes.ts', 'deprecation.operator-routes.ts'],
  ['src/oauth/oauth.admin-routes.ts', 'oauth.operator-routes.ts'],
  ['src/orders/order.admin-routes.ts', 'order.operator-routes.ts'],
  ['src/portal/partner-user.admin-routes.ts', 'partner-user.operator-routes.ts'],
  ['src/webhooks/webhook.admin-routes.ts', 'webhook.operator-routes.ts'],
  ['src/orders/order-admin.service.ts', 'order-operator.service.ts'],
  ['src/orders/order-admin.repository.ts', 'order-operator.repository.ts'],
  ['src/orders/order-admin.schemas.ts', 'order-operator.schemas.ts'],
  ['src/orders/order-admin-view.ts', 'order-operator-view.ts'],
  ['src/webhooks/webhook-admin.service.ts', 'webhook-operator.service.ts'],
  ['src/secrets/dev-admin-token.ts', 'dev-operator-token.ts'],
  ['src/portal/portal-user.ts', 'partner-user-identity.ts'],
].map(([file, to]) => ({ file, to }));
