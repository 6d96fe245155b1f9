import { ClinicName } from '../../components/clinics';
import { hostOf } from './types';

/**
 * The first two cells of an endpoint's row: its URL's host (how staff tell two endpoints of one
 * clinic apart) over the whole URL, and its clinic.
 */
export function EndpointCells({ url, clinicId, names }: { url: string; clinicId: string; names: ReadonlyMap<string, string> }) {
  return (
    <>
      <td>
        <strong>{hostOf(url)}</strong>
        <br />
        <code class="muted">{url}</code>
      </td>
      <td>
        <ClinicName id={clinicId} names={names} />
      </td>
    </>
  );
}
