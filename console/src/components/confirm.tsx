import { useEffect, useRef, useState } from 'preact/hooks';
import { handler } from './events';

/**
 * A destructive action behind a confirmation: the button `label` asks `question` in place, with
 * `confirm` (which runs `onConfirm`) and `cancel`. Focus moves to the confirming button, Escape or
 * `cancel` puts it back on `label`. `onConfirm` shows its own failure (useAction); it must not throw.
 */
export function ConfirmButton({
  label,
  question,
  confirm,
  cancel = 'Keep it',
  busy = false,
  onConfirm,
}: {
  label: string;
  question: string;
  confirm: string;
  cancel?: string;
  busy?: boolean;
  onConfirm: () => Promise<unknown>;
}) {
  const [asking, setAsking] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const labelButton = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);

  useEffect(() => {
    if (asking) confirmButton.current?.focus();
    else if (returnFocus.current) {
      returnFocus.current = false;
      labelButton.current?.focus();
    }
  }, [asking]);

  const stopAsking = () => {
    returnFocus.current = true;
    setAsking(false);
  };

  if (!asking)
    return (
      <button type="button" class="danger" ref={labelButton} disabled={busy} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span
      class="confirm-inline"
      role="group"
      aria-label={question}
      onKeyDown={(event) => {
        if (event.key === 'Escape') stopAsking();
      }}
    >
      <span>{question}</span>
      <button
        type="button"
        class="danger"
        ref={confirmButton}
        disabled={busy}
        onClick={handler(async () => {
          await onConfirm();
          setAsking(false);
        })}
      >
        {confirm}
      </button>
      <button type="button" class="secondary" onClick={stopAsking}>
        {cancel}
      </button>
    </span>
  );
}
