/** The number to call a patient on: their first `phone` contact, else their first `sms` one (contacts as stored: JSON `[{key, value}]`). Pure. */
export function phoneOf(contactsJson: string): string | null {
  const contacts = JSON.parse(contactsJson) as { key: string; value: string }[];
  return (contacts.find((c) => c.key === 'phone') ?? contacts.find((c) => c.key === 'sms'))?.value ?? null;
}
