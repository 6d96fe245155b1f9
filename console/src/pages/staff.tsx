export function StaffPage() {
  return <h1>Staff</h1>;
}
