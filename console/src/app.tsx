import { LocationProvider, Route, Router } from 'preact-iso';
import { api, type Session } from './api';
import { ErrorMessage, Loading } from './components/feedback';
import { Shell, useSignedIn } from './components/shell';
import { AccountPage } from './pages/account';
import { AuditPage } from './pages/audit';
import { CarriersPage } from './pages/carriers';
import { DashboardPage } from './pages/dashboard';
import { HoldsPage } from './pages/holds';
import { RecallPage } from './pages/recall';
import { ClinicPage, ClinicsPage } from './pages/clinics';
import { OrderPage, OrdersPage } from './pages/orders';
import { SignInPage } from './pages/sign-in';
import { StaffPage } from './pages/staff';
import { WebhooksPage } from './pages/webhooks';
import { SessionContext, SetSessionContext } from './session';
import { roleMayCall } from '../../src/staff/operator-roles.js';

/** The console's shell: who is signed in, the navigation, and the page of the current path. */
export function App() {
  const { session, setSession, error } = useSignedIn(() => api('GET', '/api/admin/session'));

  if (error) return <ErrorMessage error={error} />;
  if (session === undefined) return <Loading what="the console" />;
  return (
    <LocationProvider scope="/console">
      {session === null ? (
        <SignInPage onSignedIn={setSession} />
      ) : (
        <SessionContext.Provider value={session}>
          <SetSessionContext.Provider value={setSession}>
            <ConsoleShell session={session} onSessionChange={setSession} />
          </SetSessionContext.Provider>
        </SessionContext.Provider>
      )}
    </LocationProvider>
  );
}

/** The pages, each with the operator route it reads first: a link shows only to the roles that route answers. */
const NAVIGATION = [
  { href: '/console/dashboard', label: 'Dashboard', route: '/api/admin/dashboard' },
  { href: '/console/orders', label: 'Orders', route: '/api/admin/medication-requests' },
  { href: '/console/holds', label: 'Holds', route: '/api/admin/holds' },
  { href: '/console/recall', label: 'Recall', route: '/api/admin/lots/:lot_number/orders' },
  { href: '/console/clinics', label: 'Clinics', route: '/api/admin/clinics/:clinicId' },
  { href: '/console/carriers', label: 'Carriers', route: '/api/admin/carriers' },
  { href: '/console/webhooks', label: 'Webhooks', route: '/api/admin/webhook-deliveries' },
  { href: '/console/audit', label: 'Audit', route: '/api/admin/audit-events' },
  { href: '/console/staff', label: 'Staff', route: '/api/admin/staff' },
] as const;

function ConsoleShell({ session, onSessionChange }: { session: Session; onSessionChange: (session: Session | null) => void }) {
  // An admin who must turn on two-step sign-in first (REQUIRE_ADMIN_TOTP): the API answers only the account's routes.
  const links = session.totp_required
    ? [{ href: '/console/account', label: 'Account' }]
    : [
        ...NAVIGATION.filter(({ route }) => roleMayCall(session.role, 'GET', route)).map(({ href, label }) => ({ href, label })),
        { href: '/console/account', label: 'Account' },
      ];
  return (
    <Shell
      brand="Pharmacy console"
      links={links}
      signOut={() => api('DELETE', '/api/admin/session')}
      onSignedOut={() => onSessionChange(null)}
      who={
        <>
          {session.name} <span class="muted">({session.role})</span>
        </>
      }
    >
      {session.totp_required ? (
        <AccountPage />
      ) : (
        <Router>
          <Route path="/console/orders/:id" component={OrderPage} />
          <Route path="/console/holds" component={HoldsPage} />
          <Route path="/console/recall" component={RecallPage} />
          <Route path="/console/clinics/:id" component={ClinicPage} />
          <Route path="/console/clinics" component={ClinicsPage} />
          <Route path="/console/carriers" component={CarriersPage} />
          <Route path="/console/webhooks" component={WebhooksPage} />
          <Route path="/console/audit" component={AuditPage} />
          <Route path="/console/dashboard" component={DashboardPage} />
          <Route path="/console/staff" component={StaffPage} />
          <Route path="/console/account" component={AccountPage} />
          <Route default component={OrdersPage} />
        </Router>
      )}
    </Shell>
  );
}
