import { useState } from 'preact/hooks';
import { useAction } from './action';
import { handler } from './events';
import { ErrorMessage, Notice } from './feedback';
import { TotpCodeField } from './sign-in-form';

export interface Enrollment {
  secret: string;
  otpauth_uri: string;
}

/**
 * An account's second factor (TOTP, RFC 6238), for the console's staff and the portal's users alike
 * (/api/admin/account/totp or /api/portal/account/totp). Turning it on shows the secret and
 * its otpauth:// URI as text (no QR image: nothing is drawn from elsewhere) and asks for a code the
 * app then shows; turning it off asks for a current code.
 */
export function TotpSettings({
  enabled,
  start: startEnrollment,
  change,
}: {
  enabled: boolean;
  /** POST …/account/totp: a new secret. */
  start: () => Promise<Enrollment>;
  /** Confirms (POST …/account/totp/confirm) or turns off (DELETE …/account/totp) with the code, and keeps the session the API answers. */
  change: (action: 'confirm' | 'disable', code: string) => Promise<void>;
}) {
  const [enrollment, setEnrollment] = useState<Enrollment | null>(null);
  const [code, setCode] = useState('');
  const [notice, setNotice] = useState('');
  const action = useAction();
  const digits = () => code.replace(/\s/g, '');

  const start = async () => {
    await action.run(async () => {
      setNotice('');
      setEnrollment(await startEnrollment());
    });
  };
  const confirm = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      await change('confirm', digits());
      setEnrollment(null);
      setCode('');
      setNotice('Two-step sign-in is on: the next sign-in asks for a code.');
    });
  };
  const disable = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      await change('disable', digits());
      setCode('');
      setNotice('Two-step sign-in is off.');
    });
  };

  return (
    <section aria-labelledby="totp-heading">
      <h2 id="totp-heading">Two-step sign-in</h2>
      <p>
        Status: <strong>{enabled ? 'on' : 'off'}</strong>. With it on, signing in asks for the 6-digit code of an authenticator
        app (any app that reads RFC 6238 codes) besides the password.
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={action.error} />
      {!enabled && !enrollment && (
        <button type="button" disabled={action.busy} onClick={handler(start)}>
          Turn on two-step sign-in
        </button>
      )}
      {!enabled && enrollment && (
        <form onSubmit={handler(confirm)} aria-label="Confirm two-step sign-in">
          <p>Add this account to your authenticator app with the secret or the URI below, then type the code it shows.</p>
          <dl class="facts">
            <dt>Secret</dt>
            <dd>
              <code class="breakable">{enrollment.secret}</code>
            </dd>
            <dt>otpauth URI</dt>
            <dd>
              <code class="breakable">{enrollment.otpauth_uri}</code>
            </dd>
          </dl>
          <TotpCodeField value={code} onInput={setCode} label="Code from the app" />
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              Confirm
            </button>
            <button type="button" class="secondary" onClick={() => setEnrollment(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {enabled && (
        <form onSubmit={handler(disable)} aria-label="Turn off two-step sign-in">
          <TotpCodeField value={code} onInput={setCode} label="Current code from the app" />
          <button type="submit" class="danger" disabled={action.busy}>
            Turn off two-step sign-in
          </button>
        </form>
      )}
    </section>
  );
}
