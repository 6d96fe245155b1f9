import type { ZxcvbnFactory, ZxcvbnResult } from '@zxcvbn-ts/core';

/**
 * Password strength for staff accounts (issue 21, item 4), by zxcvbn-ts (Dropbox's zxcvbn, kept
 * up in TypeScript): it estimates how many guesses a password takes from its common-password,
 * word and name lists, keyboard patterns, repeats, sequences and dates. A password is refused when
 * its score is under 3 ("safely unguessable" starts at 3: about 10^8 guesses) or when it is, as a
 * whole, one of the library's common passwords (l33t and reversed forms included). The account's
 * email and name count as words an attacker would try first.
 *
 * The check runs on the event loop, so its cost is bounded: only the first JUDGED_LENGTH characters
 * are judged (a longer password is judged by its start, which can only make the judgement stricter),
 * with at most 10 l33t substitutions tried; the library's defaults (256 characters, 100
 * substitutions) let one crafted 256-character password take seconds. Levenshtein matching (near
 * misses of a list entry) is left off for the same reason, and a near miss of a common password
 * scores under 3 anyway. The library and its lists are loaded on first use, not at start: they
 * take a few hundred milliseconds to load and about 60 MB of memory, which a server that never sets
 * a password (every partner request) should not carry (issue 19's peak RSS under 200 MB).
 *
 * @see https://zxcvbn-ts.github.io/zxcvbn/
 */
export const MIN_PASSWORD_SCORE = 3;
/** Characters of a password judged (tens of milliseconds at most, whatever they are). */
export const JUDGED_LENGTH = 64;

let checker: Promise<ZxcvbnFactory> | null = null;

function passwordChecker(): Promise<ZxcvbnFactory> {
  checker ??= (async () => {
    const [{ ZxcvbnFactory }, common, english] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      translations: english.translations,
      graphs: common.adjacencyGraphs,
      dictionary: { ...common.dictionary, ...english.dictionary },
      maxLength: JUDGED_LENGTH,
      l33tMaxSubstitutions: 10,
    });
  })();
  return checker;
}

/** Why `password` is too weak, as a sentence with the library's advice; null when it is strong enough. */
export async function passwordWeakness(password: string, userInputs: readonly string[] = []): Promise<string | null> {
  const result = (await passwordChecker()).check(password, [...userInputs]);
  if (isCommonPassword(result)) return withAdvice('is one of the most common passwords', result);
  if (result.score < MIN_PASSWORD_SCORE) return withAdvice('is too easy to guess', result);
  return null;
}

/** The whole password is one entry of the common-password list (as typed, reversed or in l33t). */
function isCommonPassword(result: ZxcvbnResult): boolean {
  const [only, ...others] = result.sequence;
  return others.length === 0 && only?.pattern === 'dictionary' && only.dictionaryName === 'passwords-common';
}

/** The library's warning and suggestions: general advice, never the password or a part of it. */
function withAdvice(problem: string, result: ZxcvbnResult): string {
  const advice = [result.feedback.warning, ...result.feedback.suggestions].filter(
    (line): line is string => typeof line === 'string' && line !== '',
  );
  return advice.length === 0 ? problem : `${problem}: ${advice.join(' ')}`;
}
