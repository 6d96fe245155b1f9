import type { OperatorBody } from '../api-types';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { handler } from './events';
import { ErrorMessage } from './feedback';

/** The authenticator code's field: six digits (RFC 6238), typed or pasted with spaces. */
export function TotpCodeField({
  value,
  onInput,
  label = 'Authentication code',
}: {
  value: string;
  onInput: (code: string) => void;
  label?: string;
}) {
  return (
    <label>
      {label}
      <input
        name="totp_code"
        inputMode="numeric"
        autocomplete="one-time-code"
        pattern="[0-9 ]{6,8}"
        maxLength={8}
        required
        value={value}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
    </label>
  );
}

/** Email, password and, when the account has two-step sign-in, the code: the console's and the portal's sign-in alike. */
export type SignInCredentials = OperatorBody<'createOperatorSession'>;

/**
 * The sign-in of the console and of the portal (`signIn` POSTs email and password): fields
 * labelled Email and Password, a Sign in button, and the API's reason on failure. When the account
 * has a second factor, the API answers 401 naming `totp_code`: the form then asks for the
 * authenticator's code too and sends the three together.
 */
export function SignInForm({
  title,
  signIn,
  initialEmail = '',
  children,
}: {
  title: string;
  /** POSTs the credentials to the sign-in path and keeps the session it answers. */
  signIn: (credentials: SignInCredentials) => Promise<void>;
  initialEmail?: string;
  /** Shown above the form (e.g. "your account is ready"). */
  children?: ComponentChildren;
}) {
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [askCode, setAskCode] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const codeField = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (askCode) codeField.current?.querySelector('input')?.focus();
  }, [askCode]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const totp = code.replace(/\s/g, '');
      await signIn({ email, password, ...(askCode && totp ? { totp_code: totp } : {}) });
    } catch (failure) {
      const wantsCode = failure instanceof ApiError && failure.status === 401 && failure.details.totp_code !== undefined;
      // The first answer naming the code is a question, not a failure: the form asks for it.
      if (wantsCode && !askCode) setAskCode(true);
      else setError(failure);
      if (!wantsCode) {
        setPassword('');
        setAskCode(false);
      }
      setCode('');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>{title}</h1>
      {children}
      <form onSubmit={handler(submit)}>
        <h2>Sign in</h2>
        <ErrorMessage error={error} />
        <label>
          Email
          <input
            type="email"
            name="email"
            autocomplete="username"
            required
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        {askCode && (
          <div ref={codeField}>
            <p class="hint">This account has two-step sign-in: enter the 6-digit code your authenticator app shows now.</p>
            <TotpCodeField value={code} onInput={setCode} />
          </div>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
