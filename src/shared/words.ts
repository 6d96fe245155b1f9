/** `a`, `a or b`, `a, b or c`: a list of choices as a sentence says it (messages, descriptions). */
export const orList = (words: readonly string[]): string =>
  words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1) ?? ''}`;
