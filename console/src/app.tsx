import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { api, ApiError, onSignedOut, type Session } from './api';
import { handler } from './components/events';
import { ErrorMessage, Loading } from './components/feedback';
import { AuditPage } from './pages/audit';
import { CarriersPage } from './pages/carriers';
import { DashboardPage } from './pages/dashboard';
import { ClinicPage, ClinicsPage } from './pages/clinics';
import { OrderPage, OrdersPage } from './pages/orders';
import { SignInPage } from './pages/sign-in';
import { StaffPage } from './pages/staff';
import { WebhooksPage } from './pages/webhooks';
import { SessionContext } from './session';

/** The console's shell: who is signed in, the navigation, and the page of the current path. */
export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    api('GET', '/api/admin/session').then(setSession, (failure: unknown) => {
      if (failure instanceof ApiError && failure.status === 401) setSession(null);
      else setError(failure);
    });
    return onSignedOut(() => setSession(null));
  }, []);

  if (error) return <ErrorMessage error={error} />;
  if (session === undefined) return <Loading what="the console" />;
  return (
    <LocationProvider scope="/console">
      {session === null ? (
        <SignInPage onSignedIn={setSession} />
      ) : (
        <SessionContext.Provider value={session}>
          <Shell session={session} onSignedOut={() => setSession(null)} />
        </SessionContext.Provider>
      )}
    </LocationProvider>
  );
}

const NAVIGATION = [
  { href: '/console/dashboard', label: 'Dashboard' },
  { href: '/console/orders', label: 'Orders' },
  { href: '/console/clinics', label: 'Clinics' },
  { href: '/console/carriers', label: 'Carriers' },
  { href: '/console/webhooks', label: 'Webhooks' },
  { href: '/console/audit', label: 'Audit' },
] as const;

function Shell({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const { path } = useLocation();
  const [signOutError, setSignOutError] = useState<unknown>(null);
  const links = session.role === 'admin' ? [...NAVIGATION, { href: '/console/staff', label: 'Staff' }] : NAVIGATION;

  const signOut = async () => {
    try {
      await api('DELETE', '/api/admin/session');
      onSignedOut();
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 401) onSignedOut();
      else setSignOutError(failure);
    }
  };

  return (
    <div class="shell">
      <header class="top">
        <a class="skip" href="#main">
          Skip to content
        </a>
        <span class="brand">Pharmacy console</span>
        <nav aria-label="Main">
          <ul>
            {links.map((link) => (
              <li key={link.href}>
                <a href={link.href} aria-current={path.startsWith(link.href) ? 'page' : undefined}>
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {session.name} <span class="muted">({session.role})</span>
        </span>
        <button type="button" onClick={handler(signOut)}>
          Sign out
        </button>
      </header>
      <main id="main">
        <ErrorMessage error={signOutError} />
        <Router>
          <Route path="/console/orders/:id" component={OrderPage} />
          <Route path="/console/clinics/:id" component={ClinicPage} />
          <Route path="/console/clinics" component={ClinicsPage} />
          <Route path="/console/carriers" component={CarriersPage} />
          <Route path="/console/webhooks" component={WebhooksPage} />
          <Route path="/console/audit" component={AuditPage} />
          <Route path="/console/dashboard" component={DashboardPage} />
          <Route path="/console/staff" component={StaffPage} />
          <Route default component={OrdersPage} />
        </Router>
      </main>
    </div>
  );
}
