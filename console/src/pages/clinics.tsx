export function ClinicsPage() {
  return <h1>Clinics</h1>;
}

export function ClinicPage() {
  return <h1>Clinic</h1>;
}
