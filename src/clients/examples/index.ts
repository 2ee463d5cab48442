import { csharpExamples } from './csharp';
import { ciExample, curlExamples } from './curl';
import { harbourSubmission, harbourUpload } from './harbour';
import { javascriptExamples } from './javascript';
import { phpExamples } from './php';
import { pythonExamples } from './python';
import type { LanguageExamples, Program } from './types';
import { vfpSubmission, vfpUpload } from './vfp';

export { LANGUAGES, type Language, type LanguageExamples, type Program } from './types';

/** Every language's examples for the gateway at `base`, in the order of the page's tabs. */
export function integrationExamples(base: string): LanguageExamples[] {
  return [
    curlExamples(base),
    pythonExamples(base),
    javascriptExamples(base),
    phpExamples(base),
    csharpExamples(base),
    { language: 'vfp', label: 'Visual FoxPro 9', run: false, submission: vfpSubmission(base), upload: vfpUpload(base) },
    { language: 'harbour', label: 'Harbour', run: false, submission: harbourSubmission(base), upload: harbourUpload(base) },
  ];
}

export function ciStep(base: string): Program {
  return ciExample(base);
}
