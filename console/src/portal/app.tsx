import { api } from '../api';
import { useCallback, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { ErrorMessage, Loading, Notice } from '../components/feedback';
import { Shell, useSignedIn, type NavLink } from '../components/shell';
import { SignInForm } from '../components/sign-in-form';
import { useResource } from '../components/use-resource';
import { RefreshHoldCountContext } from './hold-count';
import { AccountPage } from './pages/account';
import { ApiKeysPage } from './pages/api-keys';
import { DeliveriesPage } from './pages/deliveries';
import { HoldsPage } from './pages/holds';
import { InvitationPage } from './pages/invitation';
import { OrderPage, OrdersPage } from './pages/order';
import { OverviewPage } from './pages/overview';
import { RequestsPage } from './pages/requests';
import { SandboxPage } from './pages/sandbox';
import { WebhooksPage } from './pages/webhooks';
import { PortalSessionContext, SetPortalSessionContext } from './session';
import type { PortalSession } from './types';

/** The partner portal (docs/portal.md): the invitation, the sign-in, then the clinic's pages. */
export function PortalApp() {
  return (
    <LocationProvider scope="/portal">
      <Portal />
    </LocationProvider>
  );
}

function Portal() {
  const { path, route } = useLocation();
  const { session, setSession, error } = useSignedIn(() => api('GET', '/api/portal/session'));
  // The email of an invitation just accepted: the sign-in says the account is ready and fills it in.
  const [accepted, setAccepted] = useState<string | null>(null);

  // The invitation is for someone without an account yet: shown whoever is signed in.
  if (path === '/portal/invitation')
    return (
      <InvitationPage
        onAccepted={(email) => {
          setAccepted(email);
          route('/portal');
        }}
      />
    );
  if (error) return <ErrorMessage error={error} />;
  if (session === undefined) return <Loading what="the portal" />;
  if (session === null)
    return (
      <SignInForm
        key={accepted ?? ''}
        title="Partner portal"
        signIn={async (credentials) => setSession(await api('POST', '/api/portal/session', { body: credentials }))}
        initialEmail={accepted ?? ''}
      >
        {accepted && <Notice>Your account is ready: sign in with your new password.</Notice>}
      </SignInForm>
    );
  return (
    <PortalSessionContext.Provider value={session}>
      <SetPortalSessionContext.Provider value={setSession}>
        <PortalShell session={session} onSignedOut={() => setSession(null)} />
      </SetPortalSessionContext.Provider>
    </PortalSessionContext.Provider>
  );
}

function PortalShell({ session, onSignedOut }: { session: PortalSession; onSignedOut: () => void }) {
  const { path } = useLocation();
  // The orders waiting on the clinic's answer, counted again at every page and after every answer.
  const [countGeneration, setCountGeneration] = useState(0);
  const holds = useResource(`hold count ${path} ${countGeneration}`, () =>
    api('GET', '/api/portal/holds', { query: { limit: 1 } }),
  );
  const refreshHoldCount = useCallback(() => setCountGeneration((n) => n + 1), []);
  const links: NavLink[] = [
    { href: '/portal', label: 'Overview', exact: true },
    {
      href: '/portal/holds',
      label: 'Needs your answer',
      badge: holds.data ? { count: holds.data.waiting_on_partner, label: 'waiting on your answer' } : undefined,
    },
    { href: '/portal/orders', label: 'Orders' },
    { href: '/portal/keys', label: 'API keys' },
    { href: '/portal/webhooks', label: 'Webhooks' },
    { href: '/portal/deliveries', label: 'Deliveries' },
    { href: '/portal/requests', label: 'Request log' },
    // The sandbox exists in development only (its API answers 404 in production).
    ...(session.environment === 'development' ? [{ href: '/portal/sandbox', label: 'Sandbox' }] : []),
    { href: '/portal/account', label: 'Account' },
  ];
  return (
    <Shell
      brand="Partner portal"
      links={links}
      signOut={() => api('DELETE', '/api/portal/session')}
      onSignedOut={onSignedOut}
      who={
        <>
          {session.name ?? session.email}{' '}
          <span class="muted">
            ({session.role}, {session.clinic_name})
          </span>
        </>
      }
    >
      <RefreshHoldCountContext.Provider value={refreshHoldCount}>
        <Router>
          <Route path="/portal/holds" component={HoldsPage} />
          <Route path="/portal/orders/:orderId" component={OrderPage} />
          <Route path="/portal/orders" component={OrdersPage} />
          <Route path="/portal/keys" component={ApiKeysPage} />
          <Route path="/portal/webhooks" component={WebhooksPage} />
          <Route path="/portal/deliveries" component={DeliveriesPage} />
          <Route path="/portal/requests" component={RequestsPage} />
          <Route path="/portal/sandbox" component={SandboxPage} />
          <Route path="/portal/account" component={AccountPage} />
          <Route default component={OverviewPage} />
        </Router>
      </RefreshHoldCountContext.Provider>
    </Shell>
  );
}
