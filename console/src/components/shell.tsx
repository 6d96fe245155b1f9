import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError, onSignedOut } from '../api';
import { handler } from './events';
import { ErrorMessage } from './feedback';

export interface NavLink {
  href: string;
  label: string;
  /** Current on this path only (a home page whose path prefixes the others'). */
  exact?: boolean;
  /** A count shown beside the link when above zero (`label` says what it counts), outside the link's name. */
  badge?: { count: number; label: string } | undefined;
}

const isCurrent = (link: NavLink, path: string) => path === link.href || (!link.exact && path.startsWith(`${link.href}/`));

/**
 * Who is signed in (`load`: GET the session): undefined while asking, null when nobody is (401), the session
 * otherwise; back to null whenever the API says the session has ended. The console's and the
 * portal's shells start with it.
 */
export function useSignedIn<S>(load: () => Promise<S>) {
  const [session, setSession] = useState<S | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    load().then(setSession, (failure: unknown) => {
      if (failure instanceof ApiError && failure.status === 401) setSession(null);
      else setError(failure);
    });
    return onSignedOut(() => setSession(null));
    // Once: `load` is a new function at every render of the page's root.
  }, []);
  return { session, setSession, error };
}

/**
 * The frame of a signed-in page, the console's and the portal's: a skip link, the brand, the main
 * navigation (the current section marked with aria-current), who is signed in, Sign out (DELETE
 * `signOut`), and the page in <main id="main">.
 */
export function Shell({
  brand,
  links,
  who,
  signOut: endSession,
  onSignedOut: signedOut,
  children,
}: {
  brand: string;
  links: readonly NavLink[];
  who: ComponentChildren;
  /** DELETE the session. */
  signOut: () => Promise<unknown>;
  onSignedOut: () => void;
  children: ComponentChildren;
}) {
  const { path } = useLocation();
  const [signOutError, setSignOutError] = useState<unknown>(null);

  const signOut = async () => {
    try {
      await endSession();
      signedOut();
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 401) signedOut();
      else setSignOutError(failure);
    }
  };

  return (
    <div class="shell">
      <header class="top">
        <a class="skip" href="#main">
          Skip to content
        </a>
        <span class="brand">{brand}</span>
        <nav aria-label="Main">
          <ul>
            {links.map((link) => (
              <li key={link.href}>
                <a href={link.href} aria-current={isCurrent(link, path) ? 'page' : undefined}>
                  {link.label}
                </a>
                {link.badge && link.badge.count > 0 && (
                  <span class="nav-badge" title={`${link.badge.count} ${link.badge.label}`}>
                    {link.badge.count}
                    <span class="visually-hidden"> {link.badge.label}</span>
                  </span>
                )}
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">{who}</span>
        <button type="button" onClick={handler(signOut)}>
          Sign out
        </button>
      </header>
      <main id="main">
        <ErrorMessage error={signOutError} />
        {children}
      </main>
    </div>
  );
}
