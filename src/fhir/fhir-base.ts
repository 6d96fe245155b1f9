/** Where the FHIR R4 API is, below the server's base address (`PUBLIC_BASE_URL`): partners' EHRs are configured with it. */
export const FHIR_BASE_PATH = '/fhir/R4';
