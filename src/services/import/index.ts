// The import service's face: what routes, the web screens and the server's start may call.
// Everything else in this folder is its own (a test holds every import from outside to this
// file): the reader walk, the staging, the derived facts, the raw blocks.

export { getImportBatch, assertStaged, type LoadedBatch } from './batch';
export { saveColumnMapping } from './column-mapping';
export { commitImportBatch, type ImportCommit } from './commit';
export { editImportRow, setRowLeftOut, setRowReview, type RowChange } from './edit';
export { exportFailedRows, FAILED_FORMATS } from './export-failed';
export { batchSubmissionStatuses, listImportBatches, rowSubmissionStatuses, type ImportBatchItem } from './history';
export { hasHeavyRows } from './raw-blocks';
export { previewImportBatch, type ImportPreview, type ImportRowRecord } from './preview';
export { columnSamples, type Sample } from './samples';
export type { StagingFailure } from './staging-failure';
export { admitUpload, createUploadGate, queueUpload, uploadRefusal, type UploadAdmission, type UploadGate, type UploadRefusal } from './queue';
export { startStager, type Stager, type StagerOptions } from './stager';
export type { BatchSummary, OperationToMap } from './states';
export { readUploadForm, type UploadedForm, type UploadFormProblem } from './upload-form';
