/** Row type of the audit trail (migration 006). Column conventions: see db/database.ts. */

/**
 * One access to a resource holding or pointing at PHI: who, when, what, from where. Append-only
 * (the database refuses UPDATE and DELETE). Ids only: never a name, a body or any other PHI.
 */
export interface AuditEventTable {
  id: string;
  /** When the access happened (a read: when it was served, not when the buffer wrote it). */
  at: string;
  /** 'partner' | 'oauth_client' | 'staff' | 'partner_user' | 'operator' | 'command_line' (see docs/audit.md). */
  actor_type: string;
  /** Who exactly, within `actor_type`: the API key id of a partner, an OAuth client's id, the id of a staff member; null for the operator token. */
  actor_id: string | null;
  /** A staff member's email (migration 008), null for other actors. */
  actor_email: string | null;
  /**
   * Who, by name, as they were named then (migration 017): a staff member's name, "Operator token",
   * the command line's operator; null for a partner's credential and for rows written before.
   */
  actor_name: string | null;
  /** The partner's clinic; for the operator, the clinic of the resource. */
  clinic_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  /** The X-Request-Id answered (always the server's own); null for an action without an HTTP request. */
  request_id: string | null;
  client_address: string | null;
  /** The X-Request-Id the client sent, if any, bounded and sanitized (migration 014; http/request-id.ts). */
  client_request_id: string | null;
  /**
   * On an `access_denied` row, the clinic the record really belongs to (never told to the caller);
   * null otherwise (migration 014).
   */
  resource_clinic_id: string | null;
}

export interface AuditTables {
  audit_events: AuditEventTable;
}
