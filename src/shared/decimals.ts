/**
 * The decimal places of a number as JavaScript writes it shortest (`String(n)`): 0.3 has 1, 32.44
 * has 2, 1e21 has 0, 5e-324 has 324. Read from the written form, not computed by dividing (0.3 is
 * not a multiple of 0.001 in binary fractions), so that a value is judged as the client wrote it.
 */
export function decimalPlaces(value: number): number {
  if (!Number.isFinite(value)) return Infinity;
  const [mantissa = '', exponent = '0'] = String(Math.abs(value)).split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent));
}
