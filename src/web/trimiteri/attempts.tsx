import { attemptOutcomeLabel, errorCauseLabel } from '../../domain/error-causes';
import { isSubmissionStatus, STATUS_LABEL } from '../../domain/statuses';
import type { AttemptRecord } from '../../services/submissions/read';
import { showInstant } from '../ui/format';

/** What an attempt ended with, in words: its outcome, then the state it left the submission in. */
function result(a: AttemptRecord): string {
  if (!a.endedAt && !a.outcome) return 'în curs';
  const outcome = a.outcome ? attemptOutcomeLabel(a.outcome) : '';
  const after = a.resultStatus && isSubmissionStatus(a.resultStatus) ? STATUS_LABEL[a.resultStatus] : a.resultStatus;
  return [outcome, after ? `→ ${after}` : ''].filter(Boolean).join(' ');
}

/** The delivery attempts of a submission, in Romanian words (codes stay in a tooltip for support). */
export function Attempts({ attempts }: { attempts: AttemptRecord[] }) {
  if (attempts.length === 0) return <p class="muted">Nicio încercare de trimitere încă.</p>;
  return (
    <table class="list compact attempts">
      <thead>
        <tr>
          <th scope="col">Nr.</th>
          <th scope="col">Începută</th>
          <th scope="col">Rezultat</th>
          <th scope="col">Cauza</th>
          <th scope="col">HTTP</th>
        </tr>
      </thead>
      <tbody>
        {attempts.map((a) => (
          <tr>
            <td>{a.attemptNo}</td>
            <td>{showInstant(a.startedAt)}</td>
            <td title={a.outcome ?? undefined}>{result(a)}</td>
            <td title={a.errorCode ?? undefined}>{a.errorCode ? errorCauseLabel(a.errorCode) : ''}</td>
            <td>{a.httpStatus ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
