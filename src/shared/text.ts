/** Optional free text: trimmed, and blank (or absent) stored as null. */
export const blankToNull = (value: string | undefined | null): string | null => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
};

/** A name as stored and compared: no spaces around it, and each run of whitespace inside one space. */
export const collapseSpaces = (value: string): string => value.trim().replace(/\s+/g, ' ');

/*
 * Text that means what it shows (issue 21, item 5; issue 9, item 2), the rules every text field of
 * a request follows (contracts/validation.ts applies them to every string of every route schema; the
 * list is in docs/errors.md#text-rules):
 *
 * - every text is NFC-normalized (`é` sent as `e` + U+0301 is stored as U+00E9), so that what is
 *   stored, compared and searched is one form of what the client showed;
 * - NUL, the other control characters and lone surrogates are refused (free text may hold tabs and
 *   line breaks);
 * - bidirectional controls (U+202A–U+202E, U+2066–U+2069) are refused everywhere: they make text
 *   show other than it reads (`Jane\u202Eeod` shows as `Janedoe` reversed);
 * - in names and address fields, zero-width characters (U+200B–U+200D, U+2060, U+FEFF) are refused;
 *   in other text they are allowed only where a human language needs them: between two letters
 *   (ZWNJ and ZWJ in Persian or the Indic scripts, ZWSP between Thai words), and ZWJ inside an emoji
 *   sequence;
 * - a name holds at least one letter.
 */

/** What a text field holds, which sets its rules. */
export type TextKind = 'plain' | 'free' | 'name' | 'address' | 'secret';
export const TEXT_KINDS: readonly TextKind[] = ['plain', 'free', 'name', 'address', 'secret'];

// C0 controls and DEL, and the C1 controls: matching control characters is the point here.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// A lone surrogate (half of a pair), which has no UTF-8 form.
const LONE_SURROGATE = /\p{Cs}/u;
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/;
/**
 * The zero-width characters a language needs: one between two letters (a combining mark may
 * follow the first), or a ZWJ between two pictographs (a skin tone or VS16 may follow the first).
 */
const NEEDED_ZERO_WIDTH =
  /(?<=[\p{L}\p{M}])[\u200b-\u200d\u2060](?=\p{L})|(?<=\p{Extended_Pictographic}|[\u{1f3fb}-\u{1f3ff}]|\ufe0f)\u200d(?=\p{Extended_Pictographic})/gu;
const LETTER = /\p{L}/u;

export const TEXT_MESSAGES = {
  control: 'must not contain control characters or invalid Unicode',
  controlFree: 'must not contain control characters (other than tabs and line breaks) or invalid Unicode',
  bidi: 'must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069)',
  zeroWidth: 'must not contain zero-width characters (U+200B–U+200D, U+2060, U+FEFF)',
  zeroWidthOutsideWord: 'must not contain zero-width characters (U+200B–U+200D, U+2060, U+FEFF) other than between two letters',
  noLetter: 'must contain at least one letter',
} as const;

/**
 * The value as stored (NFC) and, when it breaks a rule of its kind, the message naming the rule.
 * Linear in the length of the value.
 */
export function checkText(kind: TextKind, value: string): { value: string; problem: string | null } {
  if (LONE_SURROGATE.test(value)) return { value, problem: kind === 'free' ? TEXT_MESSAGES.controlFree : TEXT_MESSAGES.control };
  // A password is never shown to anyone: what it holds is its owner's choice, and one made before
  // these rules must still sign in. Only control characters and lone surrogates are refused (the
  // hash normalizes it to NFC itself: staff/password.ts).
  if (kind === 'secret') return { value, problem: CONTROL.test(value) ? TEXT_MESSAGES.control : null };
  const normalized = value.normalize('NFC');
  return { value: normalized, problem: textProblem(kind, normalized) };
}

function textProblem(kind: TextKind, value: string): string | null {
  if (kind === 'free' ? CONTROL_BUT_LINES.test(value) : CONTROL.test(value)) {
    return kind === 'free' ? TEXT_MESSAGES.controlFree : TEXT_MESSAGES.control;
  }
  if (BIDI_CONTROL.test(value)) return TEXT_MESSAGES.bidi;
  if (ZERO_WIDTH.test(value)) {
    if (kind === 'name' || kind === 'address') return TEXT_MESSAGES.zeroWidth;
    if (ZERO_WIDTH.test(value.replace(NEEDED_ZERO_WIDTH, ''))) return TEXT_MESSAGES.zeroWidthOutsideWord;
  }
  // A blank name is refused by its schema (`must not be blank`), or means none (`middle_name`).
  if (kind === 'name' && value.trim() !== '' && !LETTER.test(value)) return TEXT_MESSAGES.noLetter;
  return null;
}

/** The rules of a kind in a sentence, for the descriptions of the OpenAPI document. */
export const TEXT_RULES_DOC: Record<TextKind, string> = {
  plain: 'NFC-normalized; no control characters or bidirectional controls; zero-width characters only between two letters.',
  free: 'NFC-normalized; tabs and line breaks allowed; no other control characters and no bidirectional controls; zero-width characters only between two letters (ZWJ also inside an emoji).',
  name: 'NFC-normalized; must contain a letter; no control characters, bidirectional controls or zero-width characters.',
  address: 'NFC-normalized; no control characters, bidirectional controls or zero-width characters.',
  secret:
    'Any characters but control characters (a password: never shown, so bidirectional and zero-width characters are its owner’s choice).',
};
