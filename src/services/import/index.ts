// The import service's face: what routes, the web screens and the server's start may call.
// Everything else in this folder is its own (a test holds every import from outside to this
// file): the reader walk, the staging and its thread, the derived facts, the raw blocks.

export { getImportBatch, assertStaged, type LoadedBatch } from './batch';
export { saveColumnMapping } from './column-mapping';
export { commitImportBatch, type ImportCommit } from './commit';
export { editImportRow, setRowLeftOut, setRowReview, type RowChange } from './edit';
export { exportFailedRows, FAILED_FORMATS } from './export-failed';
export { createAccountActivity, type AccountActivity } from './give-way';
export { batchSubmissionStatuses, listImportBatches, rowSubmissionStatuses, type ImportBatchItem } from './history';
export { previewImportBatch, type ImportPreview, type ImportRowRecord } from './preview';
export { columnSamples, type Sample } from './samples';
export { failInterruptedStagings, sweepInterruptedStagings, type StagingFailure } from './staging-failure';
export { createImportStagings, type AdmittedUpload, type ImportStagings, type UploadAdmission, type UploadRefusal } from './stagings';
export type { BatchSummary, OperationToMap } from './states';
export { createImportBatch } from './upload';
