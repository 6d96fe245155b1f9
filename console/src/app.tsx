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

const NAVIGATION = [
  { href: '/console/dashboard', label: 'Dashboard' },
  { href: '/console/orders', label: 'Orders' },
  { href: '/console/holds', label: 'Holds' },
  { href: '/console/recall', label: 'Recall' },
  { href: '/console/clinics', label: 'Clinics' },
  { href: '/console/carriers', label: 'Carriers' },
  { href: '/console/webhooks', label: 'Webhooks' },
  { href: '/console/audit', label: 'Audit' },
] as const;

function ConsoleShell({ session, onSessionChange }: { session: Session; onSessionChange: (session: Session | null) => void }) {
  // An admin who must turn on two-step sign-in first (REQUIRE_ADMIN_TOTP): the API answers only the account's routes.
  const links = session.totp_required
    ? [{ href: '/console/account', label: 'Account' }]
    : [
        ...NAVIGATION,
        ...(session.role === 'admin' ? [{ href: '/console/staff', label: 'Staff' }] : []),
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
