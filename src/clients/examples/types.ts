/** The languages of the integration page, in the order of its tabs. */
export const LANGUAGES = ['curl', 'python', 'javascript', 'php', 'csharp', 'vfp', 'harbour'] as const;
export type Language = (typeof LANGUAGES)[number];

/** One language's two programs: a submission (dry run, then the real one) and a file import. */
export interface LanguageExamples {
  language: Language;
  label: string;
  /** Where to save each program and how to run it, shown above its block. */
  submission: Program;
  upload: Program;
  /** Run by the test suite against a live server (the xBase dialects are checked structurally only). */
  run: boolean;
}

export interface Program {
  filename: string;
  howToRun: string;
  code: string;
}
