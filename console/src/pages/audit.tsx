export function AuditPage() {
  return <h1>Audit</h1>;
}
