import { STATUS_LABEL, type SubmissionStatus } from '../../domain/statuses';

export function StatusChip({ status }: { status: SubmissionStatus }) {
  return <span class={`chip s-${status}`}>{STATUS_LABEL[status]}</span>;
}
