/**
 * What a lot number may hold (docs/compounding.md#recall): 1 to 40 letters, digits, hyphens, dots or
 * slashes, starting with a letter or digit. Pure, so that the console's fill form uses the very
 * pattern the API checks.
 *
 * Written to be valid under every flag a reader compiles it with: the API's validator (`u`) and a
 * browser's `pattern` attribute, which compiles `^(?:pattern)$` with the `v` flag (HTML Living
 * Standard, "The pattern attribute"). Under `v`, `/` and `-` inside a class must be escaped: the
 * form's `[A-Za-z0-9./\-]` was refused, and the browser then checked nothing (issue 39, item 11).
 */
export const LOT_NUMBER_PATTERN = '[A-Za-z0-9][A-Za-z0-9.\\/\\-]*';

export const LOT_NUMBER_MAX_LENGTH = 40;
