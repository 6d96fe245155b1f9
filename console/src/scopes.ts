/** The scopes of a restricted key, as generated from the operator API (pages/clinic/types.ts), for the console's and the portal's pickers. */
export { SCOPE_RESOURCES, type Scope, type ScopeResource } from './pages/clinic/types';
