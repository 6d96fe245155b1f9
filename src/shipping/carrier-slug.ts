/** Longest carrier or service id (the OpaqueId schema's limit). */
export const MAX_ID_LENGTH = 64;

/** What a carrier or service id may look like: opaque, URL-safe (the spec's `fedex_ground`, `se-3818360`). */
export const CATALOGUE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * An id derived from a display name, in the style of the default catalogue:
 * `FedEx Ground®` → `fedex_ground`, `Stamps.com` → `stamps_com`. Empty when the name has no
 * letter or digit (the caller then asks for an explicit id).
 */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_ID_LENGTH)
    .replace(/_+$/, '');
}

export const isCatalogueId = (id: string): boolean => id.length <= MAX_ID_LENGTH && CATALOGUE_ID_PATTERN.test(id);
