import { ErrorMessage } from './feedback';

/**
 * The end of a form that calls the API: its last failure, the submit button (`submit`, disabled while
 * busy) and Cancel. `action` is the form's useAction.
 */
export function FormActions({
  action,
  submit,
  onCancel,
}: {
  action: { busy: boolean; error: unknown };
  submit: string;
  onCancel: () => void;
}) {
  return (
    <>
      <ErrorMessage error={action.error} />
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {submit}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </>
  );
}
