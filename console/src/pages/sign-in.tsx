import { api, type Session } from '../api';
import { SignInForm } from '../components/sign-in-form';

/** The console's sign-in (the form the portal shares): email, password, and the TOTP code when the account has one. */
export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  return (
    <SignInForm
      title="Pharmacy console"
      signIn={async (credentials) => onSignedIn(await api('POST', '/api/admin/session', { body: credentials }))}
    />
  );
}
