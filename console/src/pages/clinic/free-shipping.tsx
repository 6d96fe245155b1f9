import { useId, useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { handler } from '../../components/events';
import { ErrorMessage, Notice } from '../../components/feedback';
import { useSession } from '../../session';
import type { Clinic } from './types';

/** The clinic's Free shipping switch: admins turn it on and off, pharmacists see it. */
export function FreeShipping({ clinic, onChange }: { clinic: Clinic; onChange: (clinic: Clinic) => void }) {
  const { role } = useSession();
  const action = useAction();
  const [changed, setChanged] = useState(false);
  const descriptionId = useId();

  const toggle = async (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    // Not disabled while saving, which would take the keyboard's focus away: a second change waits.
    if (action.busy) {
      input.checked = clinic.free_shipping;
      return;
    }
    setChanged(false);
    const saved = await action.run(async () => {
      const body = { free_shipping: input.checked };
      onChange(await api('PUT', '/api/admin/clinics/{clinicId}/shipping', { path: { clinicId: clinic.clinic_id }, body }));
    });
    if (saved) setChanged(true);
    else input.checked = clinic.free_shipping;
  };

  return (
    <section aria-labelledby={`${descriptionId}-heading`}>
      <h2 id={`${descriptionId}-heading`}>Shipping</h2>
      <label class="switch">
        <input
          type="checkbox"
          role="switch"
          checked={clinic.free_shipping}
          disabled={role !== 'admin'}
          aria-describedby={descriptionId}
          onChange={handler(toggle)}
        />
        Free shipping
      </label>
      <p id={descriptionId} class="muted">
        {clinic.free_shipping
          ? 'On: every order of this clinic ships at no cost to the clinic.'
          : 'Off: the clinic pays the price of the shipping service it chooses.'}
        {role !== 'admin' && ' Only admins can change it.'}
      </p>
      {changed && <Notice>Free shipping is now {clinic.free_shipping ? 'on' : 'off'}.</Notice>}
      <ErrorMessage error={action.error} />
    </section>
  );
}
