export function CarriersPage() {
  return <h1>Carriers</h1>;
}
